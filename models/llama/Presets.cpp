//===- Presets.cpp - LLaMA presets and their byte-level tokenizer ---------===//
//
// llama-tiny for tests; llama-15m/42m/110m have the shapes of llama2.c's
// TinyStories models (stories15M/42M/110M), the benchmark shapes.
//
//===----------------------------------------------------------------------===//
#include "models/llama/Llama.h"

#include "runtime/Tokenizer.h"

#include <cstdio>

using namespace tfmc;

std::vector<Preset> tfmc::llama::presets() {
  struct Shape {
    const char *name;
    int64_t dim, hidden, layers, heads, kvHeads, vocab, context;
  };
  static const Shape kShapes[] = {
      {"llama-tiny", 64, 172, 2, 4, 2, 259, 256},
      {"llama-15m", 288, 768, 6, 6, 6, 32000, 256},
      {"llama-42m", 512, 1376, 8, 8, 8, 32000, 1024},
      {"llama-110m", 768, 2048, 12, 12, 12, 32000, 1024},
  };
  std::vector<Preset> presets;
  for (const Shape &shape : kShapes) {
    DecoderConfig c = architecture(RopeLayout::Interleaved);
    c.dim = shape.dim;
    c.hiddenDim = shape.hidden;
    c.numLayers = shape.layers;
    c.attention.numHeads = shape.heads;
    c.attention.numKVHeads = shape.kvHeads;
    c.attention.headDim = shape.dim / shape.heads;
    c.vocabSize = shape.vocab;
    c.contextLength = shape.context;
    presets.push_back({shape.name, c});
  }
  return presets;
}

/// Pieces <unk>, <s>, </s> and the 256 byte pieces: every string encodes by
/// byte fallback, which is all a random-weight model needs.
TokenizerSpec tfmc::llama::presetTokenizer() {
  std::vector<std::string> pieces = {"<unk>", "<s>", "</s>"};
  std::vector<float> scores(3, 0.0f);
  for (int byte = 0; byte < 256; ++byte) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", byte);
    pieces.push_back(name);
    scores.push_back(0.0f);
  }
  TokenizerSpec tokenizer;
  tokenizer.kind = "spm";
  tokenizer.blob = tfm::rt::spmBlobFromPieces(pieces, scores);
  tokenizer.bos = 1;
  tokenizer.eos = 2;
  return tokenizer;
}
