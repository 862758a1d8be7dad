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

namespace {
struct PresetShape {
  const char *name;
  ModelFamily family;
  int64_t dim, hidden, layers, heads, kvHeads, vocab, context;
};

/// Tiny models for tests and the benchmark shapes of issue-level targets
/// (stories15M/42M/110M are llama2.c's TinyStories models, gpt2-124m is
/// GPT-2 small), all with seeded random weights.
constexpr PresetShape kPresets[] = {
    {"llama-tiny", ModelFamily::Llama, 64, 172, 2, 4, 2, 259, 256},
    {"gpt2-tiny", ModelFamily::Gpt2, 64, 256, 2, 4, 4, 257, 256},
    {"llama-15m", ModelFamily::Llama, 288, 768, 6, 6, 6, 32000, 256},
    {"llama-42m", ModelFamily::Llama, 512, 1376, 8, 8, 8, 32000, 1024},
    {"llama-110m", ModelFamily::Llama, 768, 2048, 12, 12, 12, 32000, 1024},
    {"gpt2-124m", ModelFamily::Gpt2, 768, 3072, 12, 12, 12, 50257, 1024},
};
} // namespace

std::vector<std::string> tfmc::presetNames() {
  std::vector<std::string> names;
  for (const PresetShape &preset : kPresets)
    names.push_back(preset.name);
  return names;
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
  const PresetShape *shape = nullptr;
  for (const PresetShape &preset : kPresets)
    if (name == preset.name)
      shape = &preset;
  if (!shape) {
    std::string known;
    for (const std::string &preset : presetNames())
      known += (known.empty() ? "" : ", ") + preset;
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown preset '" + name +
                                       "' (known: " + known + ")");
  }
  ModelSpec spec;
  ModelConfig &c = spec.config;
  c.family = shape->family;
  c.dim = shape->dim;
  c.hiddenDim = shape->hidden;
  c.numLayers = shape->layers;
  c.numHeads = shape->heads;
  c.numKVHeads = shape->kvHeads;
  c.vocabSize = shape->vocab;
  c.contextLength = shape->context;
  c.ropeLayout = RopeLayout::Interleaved;
  c.tiedEmbeddings = true;
  spec.tokenizer = c.family == ModelFamily::Llama ? byteLevelSpmTokenizer()
                                                  : byteLevelGpt2Tokenizer();
  fillRandomWeights(spec, seed);
  spec.description = "preset " + name + " (seeded random weights, seed " +
                     std::to_string(seed) + ")";
  spec.note = "this is the built-in preset '" + name +
              "' with seeded random weights: its text is gibberish by design";
  return spec;
}
