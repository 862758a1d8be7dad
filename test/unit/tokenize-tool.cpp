//===- tokenize-tool.cpp - tfm-tokenize: runtime tokenizers on stdin ----===//
//
// Test driver for the runtime tokenizers, used by lit tests that compare them
// with reference implementations:
//   tfm-tokenize --gpt2 VOCAB_JSON MERGES_TXT [--lines] < text
//   tfm-tokenize --spm TOKENIZER_BIN [--bos] [--lines] < text
// prints the ids of stdin space-separated on one line; with --lines, stdin is
// split at '\n' (like JavaScript's split, so a final newline yields a last
// empty line) and each line's ids are printed on their own line.
//
//===----------------------------------------------------------------------===//
#include "runtime/Tokenizer.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

using namespace tfm::rt;

namespace {

/// llama2.c's BOS id, the only special id an "spm" blob needs.
constexpr int kSpmBos = 1;

int usage() {
  std::cerr << "usage: tfm-tokenize --gpt2 VOCAB_JSON MERGES_TXT [--lines]\n"
               "       tfm-tokenize --spm TOKENIZER_BIN [--bos] [--lines]\n"
               "Reads text on stdin and prints token ids.\n";
  return 2;
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

} // namespace

int main(int argc, char **argv) {
  std::string kind, blob, error;
  bool lines = false, addBos = false;
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
      std::ifstream in(argv[i + 1], std::ios::binary);
      if (!in) {
        std::cerr << "tfm-tokenize: cannot open '" << argv[i + 1] << "'\n";
        return 1;
      }
      blob.assign(std::istreambuf_iterator<char>(in),
                  std::istreambuf_iterator<char>());
      i += 1;
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
  std::unique_ptr<Tokenizer> tok =
      loadTokenizer(kind, blob, bos, /*eos=*/-1, error);
  if (!tok) {
    std::cerr << "tfm-tokenize: " << error << "\n";
    return 1;
  }

  std::string text((std::istreambuf_iterator<char>(std::cin)),
                   std::istreambuf_iterator<char>());
  if (!lines) {
    printIds(tok->encode(text, addBos));
    return 0;
  }
  for (size_t start = 0;;) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      printIds(tok->encode(std::string_view(text).substr(start), addBos));
      return 0;
    }
    printIds(
        tok->encode(std::string_view(text).substr(start, end - start), addBos));
    start = end + 1;
  }
}
