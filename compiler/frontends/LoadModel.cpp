//===- LoadModel.cpp - Pick a model loader and verify its result ----------===//
//
// loadModel dispatches on what a path is (Hugging Face directory, GGUF file,
// llama2.c checkpoint); verifyModelSpec checks a ModelSpec's weights against
// the tensors its family's builder will ask for.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Frontends.h"
#include "compiler/frontends/LoaderSupport.h"
#include "runtime/Tokenizer.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace tfmc;
using namespace tfmc::frontends;

namespace {

/// True when the file starts with the GGUF magic, so a renamed file still
/// reaches the right loader.
bool hasGgufMagic(const std::string &path) {
  auto file = llvm::MemoryBuffer::getFileSlice(path, 4, 0, /*IsVolatile=*/false);
  return file && (*file)->getBufferSize() == 4 &&
         std::memcmp((*file)->getBufferStart(), "GGUF", 4) == 0;
}

using ShapeMap = std::map<std::string, std::vector<int64_t>>;

const char *familyName(ModelFamily family) {
  return family == ModelFamily::Llama ? "llama" : "gpt2";
}

llvm::Error checkConfig(const ModelSpec &spec) {
  const ModelConfig &c = spec.config;
  auto fail = [&](const llvm::Twine &what) {
    return makeError(spec.description + ": " + what);
  };
  struct Field {
    const char *name;
    int64_t value;
  };
  const Field fields[] = {{"dim", c.dim},           {"hidden_dim", c.hiddenDim},
                          {"num_layers", c.numLayers}, {"num_heads", c.numHeads},
                          {"num_kv_heads", c.numKVHeads},
                          {"vocab_size", c.vocabSize},
                          {"context_length", c.contextLength}};
  for (const Field &field : fields)
    if (field.value <= 0)
      return fail(llvm::Twine("config field ") + field.name + " = " +
                  llvm::Twine(field.value) + " must be positive");
  if (c.dim % c.numHeads != 0)
    return fail("dim " + llvm::Twine(c.dim) + " is not divisible by num_heads " +
                llvm::Twine(c.numHeads));
  if (c.numHeads % c.numKVHeads != 0)
    return fail("num_heads " + llvm::Twine(c.numHeads) +
                " is not divisible by num_kv_heads " +
                llvm::Twine(c.numKVHeads));
  if (c.family == ModelFamily::Llama && c.headDim() % 2 != 0)
    return fail("head size " + llvm::Twine(c.headDim()) +
                " must be even for rotary embeddings");
  if (c.family == ModelFamily::Gpt2 && c.numKVHeads != c.numHeads)
    return fail("gpt2 models need num_kv_heads == num_heads");
  if (!(c.normEps > 0))
    return fail("norm epsilon must be positive");
  return llvm::Error::success();
}

/// The tensors the family builder reads, with their shapes.

/// Builds the tokenizer the produced binary will build, so a bad blob or ids
/// beyond the embedding fail at compile time rather than at run time.
llvm::Error checkTokenizer(const ModelSpec &spec) {
  const TokenizerSpec &t = spec.tokenizer;
  if (t.kind.empty())
    return llvm::Error::success();
  std::string error;
  auto tokenizer = tfm::rt::loadTokenizer(t.kind, t.blob, t.bos, t.eos, error);
  if (!tokenizer)
    return makeError(spec.description + ": invalid " + t.kind +
                     " tokenizer: " + error);
  int64_t vocab = spec.config.vocabSize;
  if (tokenizer->vocabSize() > vocab)
    return makeError(spec.description + ": the tokenizer has " +
                     llvm::Twine(tokenizer->vocabSize()) +
                     " tokens but the model's vocabulary has " +
                     llvm::Twine(vocab));
  for (auto [name, id] : {std::pair<const char *, int>{"BOS", t.bos},
                          std::pair<const char *, int>{"EOS", t.eos}})
    if (id >= vocab || id < -1)
      return makeError(spec.description + ": tokenizer " + name + " id " +
                       llvm::Twine(id) + " is outside the vocabulary (" +
                       llvm::Twine(vocab) + " tokens)");
  return llvm::Error::success();
}

} // namespace

std::map<std::string, std::vector<int64_t>>
tfmc::expectedWeightShapes(const ModelConfig &c) {
  bool gpt2 = c.family == ModelFamily::Gpt2;
  int64_t hd = c.headDim();
  int64_t qDim = c.numHeads * hd, kvDim = c.numKVHeads * hd;
  ShapeMap shapes;
  shapes["token_embedding"] = {c.vocabSize, c.dim};
  if (gpt2)
    shapes["position_embedding"] = {c.contextLength, c.dim};
  auto norm = [&](const std::string &prefix) {
    shapes[prefix + ".weight"] = {c.dim};
    if (gpt2)
      shapes[prefix + ".bias"] = {c.dim};
  };
  for (int64_t l = 0; l < c.numLayers; ++l) {
    auto name = [&](const char *suffix) { return layerTensorName(l, suffix); };
    norm(name("attn_norm"));
    shapes[name("attn.wq")] = {qDim, c.dim};
    shapes[name("attn.wk")] = {kvDim, c.dim};
    shapes[name("attn.wv")] = {kvDim, c.dim};
    shapes[name("attn.wo")] = {c.dim, qDim};
    norm(name("ffn_norm"));
    shapes[name("ffn.w_up")] = {c.hiddenDim, c.dim};
    shapes[name("ffn.w_down")] = {c.dim, c.hiddenDim};
    if (!gpt2) {
      shapes[name("ffn.w_gate")] = {c.hiddenDim, c.dim};
      continue;
    }
    shapes[name("attn.bq")] = {qDim};
    shapes[name("attn.bk")] = {kvDim};
    shapes[name("attn.bv")] = {kvDim};
    shapes[name("attn.bo")] = {c.dim};
    shapes[name("ffn.b_up")] = {c.hiddenDim};
    shapes[name("ffn.b_down")] = {c.dim};
  }
  norm("final_norm");
  if (!c.tiedEmbeddings)
    shapes["lm_head"] = {c.vocabSize, c.dim};
  return shapes;
}

llvm::Error tfmc::verifyModelSpec(const ModelSpec &spec) {
  if (auto err = checkConfig(spec))
    return err;
  ShapeMap expected = expectedWeightShapes(spec.config);
  for (const auto &[name, shape] : expected) {
    auto it = spec.weights.find(name);
    if (it == spec.weights.end())
      return makeError(spec.description + ": missing tensor '" + name +
                       "' of shape " + shapeString(shape));
    const WeightTensor &tensor = it->second;
    if (tensor.shape != shape)
      return makeError(spec.description + ": tensor '" + name +
                       "' has shape " + shapeString(tensor.shape) +
                       ", expected " + shapeString(shape));
    if (tensor.data.size() != numElements(shape))
      return makeError(spec.description + ": tensor '" + name + "' holds " +
                       llvm::Twine(tensor.data.size()) +
                       " values, its shape " + shapeString(shape) + " needs " +
                       llvm::Twine(numElements(shape)));
  }
  for (const auto &[name, tensor] : spec.weights)
    if (!expected.count(name))
      return makeError(spec.description + ": unexpected tensor '" + name +
                       "' for a " + familyName(spec.config.family) + " model" +
                       (name == "lm_head" ? " with tied embeddings" : ""));
  return checkTokenizer(spec);
}

llvm::Expected<ModelSpec> tfmc::loadModel(const std::string &path,
                                         const std::string &tokenizerPath) {
  if (!llvm::sys::fs::exists(path))
    return makeError("model '" + path + "' does not exist");
  llvm::Expected<ModelSpec> spec = [&]() -> llvm::Expected<ModelSpec> {
    if (llvm::sys::fs::is_directory(path))
      return loadHuggingFace(path, tokenizerPath);
    // Naming a file of a Hugging Face directory means the directory.
    llvm::StringRef name = llvm::sys::path::filename(path);
    if (name == "config.json" || name.ends_with(".safetensors")) {
      llvm::StringRef parent = llvm::sys::path::parent_path(path);
      return loadHuggingFace(parent.empty() ? "." : parent.str(),
                             tokenizerPath);
    }
    if (!llvm::sys::path::extension(path).equals_insensitive(".gguf") &&
        !hasGgufMagic(path))
      return loadLlama2c(path, tokenizerPath);
    auto gguf = loadGguf(path);
    if (!gguf || tokenizerPath.empty())
      return gguf;
    // An explicit tokenizer replaces the embedded one (same special ids).
    int bos = gguf->tokenizer.kind.empty() ? 1 : gguf->tokenizer.bos;
    int eos = gguf->tokenizer.kind.empty() ? 2 : gguf->tokenizer.eos;
    auto tokenizer = loadLlama2cTokenizer(tokenizerPath,
                                          gguf->config.vocabSize, bos, eos);
    if (!tokenizer)
      return tokenizer.takeError();
    gguf->tokenizer = std::move(*tokenizer);
    return gguf;
  }();
  if (!spec)
    return spec.takeError();
  if (auto err = verifyModelSpec(*spec))
    return err;
  return spec;
}
