//===- Presets.cpp - GPT-2 presets and their byte-level tokenizer ---------===//
//
// gpt2-tiny for tests; gpt2-124m has the shape of GPT-2 small, a benchmark
// shape. gpt2-sinusoidal-tiny swaps the learned position table for the
// original Transformer's fixed sin/cos encodings: no supported checkpoint
// format carries those, so a preset is how a user reaches them.
//
//===----------------------------------------------------------------------===//
#include "models/gpt2/Gpt2.h"

#include "runtime/Tokenizer.h"

using namespace tfmc;

std::vector<Preset> tfmc::gpt2::presets() {
  struct Shape {
    const char *name;
    int64_t dim, hidden, layers, heads, vocab, context;
    PositionKind position;
  };
  static const Shape kShapes[] = {
      {"gpt2-tiny", 64, 256, 2, 4, 257, 256, PositionKind::Learned},
      // No table: the context is only the default cache size.
      {"gpt2-sinusoidal-tiny", 64, 256, 2, 4, 257, 1024,
       PositionKind::Sinusoidal},
      {"gpt2-124m", 768, 3072, 12, 12, 50257, 1024, PositionKind::Learned},
  };
  std::vector<Preset> presets;
  for (const Shape &shape : kShapes) {
    DecoderConfig c = architecture();
    c.dim = shape.dim;
    c.hiddenDim = shape.hidden;
    c.numLayers = shape.layers;
    c.attention.numHeads = c.attention.numKVHeads = shape.heads;
    c.attention.headDim = shape.dim / shape.heads;
    c.vocabSize = shape.vocab;
    c.contextLength = shape.context;
    c.position = shape.position;
    presets.push_back({shape.name, c});
  }
  return presets;
}

/// GPT-2's byte alphabet (no merges) plus <|endoftext|>.
TokenizerSpec tfmc::gpt2::presetTokenizer() {
  std::vector<std::string> tokens;
  // GPT-2 maps bytes to printable code points; the runtime's blob builder
  // takes tokens in that alphabet, which bytesToUnicode reproduces.
  auto encodeUtf8 = [](unsigned cp) {
    std::string out;
    if (cp < 0x80) {
      out += char(cp);
    } else {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    }
    return out;
  };
  std::vector<unsigned> byteToCodepoint(256);
  unsigned extra = 0;
  for (unsigned b = 0; b < 256; ++b) {
    bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) ||
                     (b >= 0xAE && b <= 0xFF);
    byteToCodepoint[b] = printable ? b : 256 + extra++;
  }
  for (unsigned b = 0; b < 256; ++b)
    tokens.push_back(encodeUtf8(byteToCodepoint[b]));
  tokens.push_back("<|endoftext|>");
  TokenizerSpec tokenizer;
  tokenizer.kind = "gpt2-bpe";
  tokenizer.blob = tfm::rt::gpt2BlobFromVocab(tokens, {});
  tokenizer.bos = 256;
  tokenizer.eos = 256;
  return tokenizer;
}
