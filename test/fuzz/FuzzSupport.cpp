//===- FuzzSupport.cpp - Shared pieces of the loader fuzz targets ---------===//
#include "test/fuzz/FuzzSupport.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace tfm::fuzz {

std::vector<std::string_view> splitParts(const uint8_t *data, size_t size,
                                         size_t maxParts) {
  std::string_view rest(reinterpret_cast<const char *>(data), size);
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < maxParts) {
    size_t at = rest.find(kPartSeparator);
    if (at == std::string_view::npos)
      break;
    parts.push_back(rest.substr(0, at));
    rest.remove_prefix(at + kPartSeparator.size());
  }
  parts.push_back(rest);
  return parts;
}

namespace {
std::string &scratchPath() {
  static std::string path;
  return path;
}

void removeScratchDir() {
  std::error_code error;
  if (!scratchPath().empty())
    std::filesystem::remove_all(scratchPath(), error);
}
} // namespace

const std::string &scratchDir() {
  std::string &dir = scratchPath();
  if (!dir.empty())
    return dir;
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/tfmc-fuzz-XXXXXX";
  if (!mkdtemp(pattern.data())) {
    std::perror("fuzz: mkdtemp");
    std::abort();
  }
  dir = pattern;
  std::atexit(removeScratchDir);
  return dir;
}

std::string writeScratch(const std::string &name, std::string_view bytes) {
  std::string path = scratchDir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
  return path;
}

void removeScratch(const std::string &name) {
  std::remove((scratchDir() + "/" + name).c_str());
}

void exerciseTokenizer(const rt::Tokenizer &tokenizer, std::string_view text) {
  text = text.substr(0, 4096);
  int vocab = tokenizer.vocabSize();
  std::vector<int> ids;
  std::string error;
  for (bool special : {true, false}) {
    ids.clear();
    if (!tokenizer.encode(text, special, ids, error))
      continue;
    for (int id : ids)
      if (id < 0 || id >= vocab) {
        std::fprintf(stderr, "fuzz: encode produced id %d outside [0, %d)\n",
                     id, vocab);
        std::abort();
      }
  }
  // Print the ids of the text back, then every id of a small vocabulary (or
  // a stride through a large one), as a model's generation would.
  std::vector<int> printed = ids;
  int stride = std::max(1, vocab / 512);
  for (int id = 0; id < vocab; id += stride)
    printed.push_back(id);
  std::string out;
  auto detokenizer = tokenizer.detokenizer();
  int prev = tokenizer.beginOfSequence();
  for (int id : printed) {
    out += detokenizer->step(id);
    out += tokenizer.decode(prev, id);
    std::string piece = tokenizer.tokenString(id);
    if (!piece.empty())
      (void)tokenizer.tokenId(piece);
    prev = id;
  }
  out += detokenizer->finish();
  (void)tokenizer.tokenString(-1);
  (void)tokenizer.tokenString(vocab);
  (void)tokenizer.tokenId(text.substr(0, 16));
}

uint64_t touchBytes(const char *data, uint64_t size) {
  uint64_t sum = 0;
  for (uint64_t i = 0; i < size; ++i)
    sum += static_cast<unsigned char>(data[i]);
  return sum;
}

} // namespace tfm::fuzz
