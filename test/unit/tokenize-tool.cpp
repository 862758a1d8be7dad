//===- tokenize-tool.cpp - tfm-tokenize: runtime tokenizers on stdin ----===//
//
// Test driver for the runtime tokenizers, used by lit tests that compare them
// with reference implementations:
//   tfm-tokenize --gpt2 VOCAB_JSON MERGES_TXT [--lines] < text
//   tfm-tokenize --spm TOKENIZER_BIN [--bos] [--lines] < text
//   tfm-tokenize --hf TOKENIZER_JSON [--config TOKENIZER_CONFIG_JSON]
//                [--add-special] [--decode] [--lines] < text-or-ids
//   tfm-tokenize --gguf MODEL_GGUF [--add-special] [--decode] [--lines]
// prints the ids of stdin space-separated on one line; with --lines, stdin is
// split at '\n' (like JavaScript's split, so a final newline yields a last
// empty line) and each line's ids are printed on their own line. --bos and
// --add-special add the tokenizer's special tokens. With --decode, stdin
// holds ids (space-separated; one sequence per line with --lines) and the
// text is printed, each sequence followed by '\n': streamed id by id
// through the tokenizer's Detokenizer, special tokens skipped, exactly as
// a produced binary prints generated text. --gguf runs the tokenizer tfmc
// makes of the vocabulary in a GGUF file's metadata.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Gguf.h"
#include "compiler/frontends/Tokenizers.h"
#include "runtime/ReadFile.h"
#include "runtime/Tokenizer.h"

#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>

using namespace tfm::rt;

namespace {

/// llama2.c's BOS id, the only special id an "spm" blob needs.
constexpr int kSpmBos = 1;

int usage() {
  std::cerr << "usage: tfm-tokenize --gpt2 VOCAB_JSON MERGES_TXT [--lines]\n"
               "       tfm-tokenize --spm TOKENIZER_BIN [--bos] [--lines]\n"
               "       tfm-tokenize --hf TOKENIZER_JSON [--config "
               "TOKENIZER_CONFIG_JSON]\n"
               "                    [--add-special] [--decode] [--lines]\n"
               "       tfm-tokenize --gguf MODEL_GGUF [--add-special] "
               "[--decode] [--lines]\n"
               "Reads text on stdin and prints token ids (--decode: the "
               "reverse).\n";
  return 2;
}

/// Parses space-separated ids; false on anything else.
bool parseIds(std::string_view line, std::vector<int> &ids) {
  ids.clear();
  size_t pos = 0;
  while (pos < line.size()) {
    if (line[pos] == ' ' || line[pos] == '\r') {
      ++pos;
      continue;
    }
    size_t end = pos;
    long value = 0;
    while (end < line.size() && line[end] >= '0' && line[end] <= '9' &&
           value < (1L << 31))
      value = value * 10 + (line[end++] - '0');
    if (end == pos || value >= (1L << 31) ||
        (end < line.size() && line[end] != ' ' && line[end] != '\r'))
      return false;
    ids.push_back(static_cast<int>(value));
    pos = end;
  }
  return true;
}

void printText(const Tokenizer &tok, const std::vector<int> &ids) {
  std::unique_ptr<Detokenizer> detokenizer = tok.detokenizer();
  std::string text;
  for (int id : ids)
    text += detokenizer->step(id);
  text += detokenizer->finish();
  text += '\n';
  std::fwrite(text.data(), 1, text.size(), stdout);
}

void printIds(const std::vector<int> &ids) {
  std::string line;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i)
      line += ' ';
    line += std::to_string(ids[i]);
  }
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stdout);
}

/// The tokenizer of a GGUF file's metadata, as tfmc compiles it.
bool ggufTokenizer(const char *path, std::string &kind, std::string &blob,
                   int &bos) {
  auto fail = [](llvm::Error err) {
    std::cerr << "tfm-tokenize: " << llvm::toString(std::move(err)) << "\n";
    return false;
  };
  auto file = tfmc::frontends::GgufFile::open(path);
  if (!file)
    return fail(file.takeError());
  auto spec = tfmc::frontends::readGgufTokenizer(**file, {});
  if (!spec)
    return fail(spec.takeError());
  if (spec->kind.empty()) {
    std::cerr << "tfm-tokenize: '" << path << "' has no tokenizer\n";
    return false;
  }
  kind = spec->kind;
  blob = spec->blob;
  bos = spec->bos;
  return true;
}

} // namespace

int main(int argc, char **argv) {
  std::string kind, blob, error, hfJson, hfConfig;
  bool lines = false, addBos = false, decode = false;
  int bos = -1;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--gpt2") && i + 2 < argc) {
      kind = "gpt2-bpe";
      if (!gpt2BlobFromFiles(argv[i + 1], argv[i + 2], blob, error)) {
        std::cerr << "tfm-tokenize: " << error << "\n";
        return 1;
      }
      i += 2;
    } else if (!std::strcmp(argv[i], "--spm") && i + 1 < argc) {
      kind = "spm";
      bos = kSpmBos;
      // No model here to check the piece count against: the blob is the
      // file as is, validated by loadTokenizer.
      if (!readFile(argv[i + 1], blob, error)) {
        std::cerr << "tfm-tokenize: " << error << "\n";
        return 1;
      }
      i += 1;
    } else if (!std::strcmp(argv[i], "--hf") && i + 1 < argc) {
      kind = "hf";
      hfJson = argv[++i];
    } else if (!std::strcmp(argv[i], "--gguf") && i + 1 < argc) {
      if (!ggufTokenizer(argv[++i], kind, blob, bos))
        return 1;
    } else if (!std::strcmp(argv[i], "--config") && i + 1 < argc) {
      hfConfig = argv[++i];
    } else if (!std::strcmp(argv[i], "--add-special")) {
      addBos = true;
    } else if (!std::strcmp(argv[i], "--decode")) {
      decode = true;
    } else if (!std::strcmp(argv[i], "--lines")) {
      lines = true;
    } else if (!std::strcmp(argv[i], "--bos")) {
      addBos = true;
    } else {
      return usage();
    }
  }
  if (kind.empty())
    return usage();
  if (!hfJson.empty() && !hfBlobFromFiles(hfJson, hfConfig, blob, error)) {
    std::cerr << "tfm-tokenize: " << error << "\n";
    return 1;
  }
  std::unique_ptr<Tokenizer> tok =
      loadTokenizer(kind, blob, bos, /*eos=*/-1, error);
  if (!tok) {
    std::cerr << "tfm-tokenize: " << error << "\n";
    return 1;
  }

  std::string text((std::istreambuf_iterator<char>(std::cin)),
                   std::istreambuf_iterator<char>());
  // One sequence: encode it, or decode it with --decode.
  auto process = [&](std::string_view chunk) {
    std::vector<int> ids;
    if (decode) {
      if (!parseIds(chunk, ids)) {
        std::cerr << "tfm-tokenize: expected space-separated ids, got '"
                  << chunk << "'\n";
        return false;
      }
      printText(*tok, ids);
      return true;
    }
    if (!tok->encode(chunk, addBos, ids, error)) {
      std::cerr << "tfm-tokenize: " << error << "\n";
      return false;
    }
    printIds(ids);
    return true;
  };
  if (!lines)
    return process(decode && !text.empty() && text.back() == '\n'
                       ? std::string_view(text).substr(0, text.size() - 1)
                       : std::string_view(text))
               ? 0
               : 1;
  for (size_t start = 0;;) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      return process(std::string_view(text).substr(start)) ? 0 : 1;
    if (!process(std::string_view(text).substr(start, end - start)))
      return 1;
    start = end + 1;
  }
}
