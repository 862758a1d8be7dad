//===- Presets.cpp - Built-in model configurations with seeded weights -----===//
#include "models/Presets.h"

#include "compiler/frontends/Frontends.h"
#include "runtime/Tokenizer.h"

#include "llvm/ADT/StringRef.h"

#include <cmath>
#include <cstdio>

using namespace tfmc;

namespace {

/// splitmix64: tiny, seedable, identical on every platform.
class SplitMix {
public:
  explicit SplitMix(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [-1, 1).
  float symmetric() { return float((next() >> 40) * 0x1.0p-24 * 2.0 - 1.0); }

private:
  uint64_t state;
};

/// Pieces <unk>, <s>, </s> and the 256 byte pieces: every string encodes by
/// byte fallback, which is all a random-weight model needs.
TokenizerSpec byteLevelSpmTokenizer() {
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

/// GPT-2's byte alphabet (no merges) plus <|endoftext|>.
TokenizerSpec byteLevelGpt2Tokenizer() {
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

} // namespace

std::vector<std::string> tfmc::presetNames() {
  return {"llama-tiny", "gpt2-tiny"};
}

void tfmc::fillRandomWeights(ModelSpec &spec, uint64_t seed) {
  SplitMix random(seed);
  for (const auto &[name, shape] : expectedWeightShapes(spec.config)) {
    WeightTensor tensor;
    tensor.shape = shape;
    size_t count = 1;
    for (int64_t extent : shape)
      count *= size_t(extent);
    tensor.data.resize(count);
    llvm::StringRef ref(name);
    bool isNorm = ref.contains("norm") && ref.ends_with(".weight");
    bool isVector = shape.size() == 1;
    float amplitude =
        isVector ? 0.1f : 1.0f / std::sqrt(float(shape.back()));
    for (float &value : tensor.data)
      value = (isNorm ? 1.0f : 0.0f) + amplitude * random.symmetric();
    spec.weights[name] = std::move(tensor);
  }
}

llvm::Expected<ModelSpec> tfmc::makePreset(const std::string &name,
                                           uint64_t seed) {
  ModelSpec spec;
  ModelConfig &c = spec.config;
  if (name == "llama-tiny") {
    c.family = ModelFamily::Llama;
    c.dim = 64;
    c.hiddenDim = 172;
    c.numLayers = 2;
    c.numHeads = 4;
    c.numKVHeads = 2;
    c.vocabSize = 259;
    c.contextLength = 256;
    c.ropeLayout = RopeLayout::Interleaved;
    c.tiedEmbeddings = true;
    spec.tokenizer = byteLevelSpmTokenizer();
  } else if (name == "gpt2-tiny") {
    c.family = ModelFamily::Gpt2;
    c.dim = 64;
    c.hiddenDim = 256;
    c.numLayers = 2;
    c.numHeads = 4;
    c.numKVHeads = 4;
    c.vocabSize = 257;
    c.contextLength = 256;
    c.tiedEmbeddings = true;
    spec.tokenizer = byteLevelGpt2Tokenizer();
  } else {
    std::string known;
    for (const std::string &preset : presetNames())
      known += (known.empty() ? "" : ", ") + preset;
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown preset '" + name +
                                       "' (known: " + known + ")");
  }
  fillRandomWeights(spec, seed);
  spec.description = "preset " + name + " (seeded random weights, seed " +
                     std::to_string(seed) + ")";
  spec.note = "this is the built-in preset '" + name +
              "' with seeded random weights: its text is gibberish by design";
  return spec;
}
