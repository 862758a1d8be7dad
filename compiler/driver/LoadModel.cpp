//===- LoadModel.cpp - Model file -> format reader -> family -> ModelSpec -===//
#include "compiler/driver/LoadModel.h"

#include "compiler/builders/DecoderSkeleton.h"
#include "compiler/frontends/Generation.h"
#include "compiler/frontends/Gguf.h"
#include "compiler/frontends/HfConfig.h"
#include "compiler/frontends/Llama2c.h"
#include "compiler/frontends/ModelFormat.h"
#include "compiler/frontends/Safetensors.h"
#include "compiler/frontends/Tokenizers.h"
#include "models/Registry.h"
#include "runtime/Tokenizer.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <limits>

using namespace tfmc;
using namespace tfmc::frontends;
using tfmc::weights::shapeString;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

/// The last path component, for ModelSpec::description ("." and ".." name
/// the real directory).
std::string fileName(llvm::StringRef path) {
  llvm::SmallString<256> real;
  if (!llvm::sys::fs::real_path(path, real))
    path = real;
  llvm::StringRef name = llvm::sys::path::filename(path.rtrim('/'));
  return name.empty() ? path.str() : name.str();
}

/// Sizes become 32-bit fields of the produced model (tfm_model_info) and
/// 32-bit loop bounds; no real model comes near, so a larger value is corrupt
/// and must not wrap (a vocabulary of 2^32 + 8 is not 8). The context length
/// is left to the KV-cache check, which also offers --context as a remedy.
llvm::Error checkSizes(const DecoderConfig &c, llvm::StringRef where) {
  const AttentionSettings &a = c.attention;
  const std::pair<const char *, int64_t> fields[] = {
      {"dim", c.dim},
      {"hidden_dim", c.hiddenDim},
      {"num_layers", c.numLayers},
      {"num_heads", a.numHeads},
      {"num_kv_heads", a.numKVHeads},
      {"head_dim", a.headDim},
      {"vocab_size", c.vocabSize}};
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  for (auto [name, value] : fields)
    if (value > kMax)
      return makeError(where + ": config field " + name + " = " +
                       llvm::Twine(value) +
                       " is more than the largest size tfmc supports (" +
                       llvm::Twine(kMax) + ")");
  return llvm::Error::success();
}

/// Rejects a layer count the file cannot hold before anything is made per
/// layer: a 4 KB GGUF claiming 16M blocks took minutes and gigabytes to reach
/// its first missing tensor. Each layer has tensors of its own, except in
/// llama2.c files, whose stacked tensors' sizes were checked against the file.
llvm::Error checkLayerCount(CheckpointFormat format, const DecoderConfig &c,
                            const TensorTable &tensors) {
  uint64_t present = tensors.entries().size();
  if (format == CheckpointFormat::Llama2c ||
      static_cast<uint64_t>(c.numLayers) <= present)
    return llvm::Error::success();
  return makeError(tensors.describe() + " declares " +
                   llvm::Twine(c.numLayers) + " layers but holds only " +
                   llvm::Twine(present) + " tensors");
}

/// The family's reading of `config` and `tensors`, checked: settings the
/// skeleton accepts, and no tensor the family did not account for.
llvm::Expected<ModelSpec> importCheckpoint(const ModelFamily &family,
                                           CheckpointFormat format,
                                           const ConfigSource &config,
                                           TensorTable &tensors,
                                           std::string description) {
  Checkpoint checkpoint{format, config, tensors};
  auto decoder = family.readConfig(checkpoint);
  if (!decoder)
    return decoder.takeError();
  if (auto err = checkDecoderConfig(*decoder, config.describe()))
    return std::move(err);
  if (auto err = checkSizes(*decoder, config.describe()))
    return std::move(err);
  if (auto err = checkLayerCount(format, *decoder, tensors))
    return std::move(err);
  auto weights = family.mapWeights(checkpoint, *decoder);
  if (!weights)
    return weights.takeError();
  if (const TensorEntry *left = tensors.leftover())
    return makeError(tensors.describe() + " has unexpected tensor '" +
                     left->name + "' for a " + family.name() + " model");
  ModelSpec spec;
  spec.family = family.name().str();
  spec.config = *decoder;
  spec.weights = std::move(*weights);
  spec.description = std::move(description);
  return spec;
}

llvm::Expected<ModelSpec> loadHuggingFace(const std::string &directory,
                                          const std::string &tokenizerPath) {
  auto config = HfConfig::open(directory);
  if (!config)
    return config.takeError();
  auto modelType = (*config)->string("model_type", std::string());
  if (!modelType)
    return modelType.takeError();
  std::string supported = supportedNames(
      [](const ModelFamily &f) { return f.huggingFaceModelType(); });
  if (modelType->empty())
    return makeError((*config)->describe() +
                     " has no model_type (supported: " + supported + ")");
  const ModelFamily *family = findFamily([&](const ModelFamily &f) {
    return f.huggingFaceModelType() == *modelType;
  });
  if (!family)
    return makeError("unsupported model_type '" + *modelType + "' in " +
                     (*config)->describe() + " (supported: " + supported + ")");
  auto tensors = openSafetensorsCheckpoint(directory);
  if (!tensors)
    return tensors.takeError();
  auto spec = importCheckpoint(
      *family, CheckpointFormat::HuggingFace, **config, *tensors,
      "Hugging Face " + *modelType + " model " + fileName(directory));
  if (!spec)
    return spec.takeError();
  auto tokenizer =
      readHfTokenizer(directory, tokenizerPath, (*config)->json(),
                      spec->config.vocabSize, family->specialTokens());
  if (!tokenizer)
    return tokenizer.takeError();
  spec->tokenizer = std::move(*tokenizer);
  auto generation =
      readHfGeneration(directory, (*config)->json(), spec->tokenizer.eos,
                       spec->config.vocabSize);
  if (!generation)
    return generation.takeError();
  spec->generation = std::move(*generation);
  if (spec->config.kind == ModelKind::EncoderOnly) {
    auto embedding = readSentenceTransformers(directory);
    if (!embedding)
      return embedding.takeError();
    if (*embedding)
      spec->config.embedding = **embedding;
  }
  return spec;
}

llvm::Expected<ModelSpec> loadGguf(const std::string &path,
                                   const std::string &tokenizerPath) {
  auto file = GgufFile::open(path);
  if (!file)
    return file.takeError();
  auto architecture = (*file)->string("general.architecture", std::nullopt);
  if (!architecture)
    return architecture.takeError();
  const ModelFamily *family = findFamily([&](const ModelFamily &f) {
    return f.ggufArchitecture() == *architecture;
  });
  if (!family)
    return makeError(
        (*file)->describe() + " has architecture '" + *architecture +
        "' (supported: " + supportedNames([](const ModelFamily &f) {
          return f.ggufArchitecture();
        }) +
        ")");
  auto spec =
      importCheckpoint(*family, CheckpointFormat::Gguf, **file,
                       (*file)->tensors(), "GGUF model " + fileName(path));
  if (!spec)
    return spec.takeError();
  auto tokenizer = readGgufTokenizer(**file, family->specialTokens());
  if (!tokenizer)
    return tokenizer.takeError();
  if (!tokenizerPath.empty()) {
    // An explicit tokenizer replaces the embedded one (same special ids).
    // A file without one may still state its special ids.
    SpecialTokens ids = family->specialTokens();
    if (!tokenizer->kind.empty()) {
      ids = {tokenizer->bos, tokenizer->eos};
    } else {
      for (auto [key, id] :
           {std::pair("tokenizer.ggml.bos_token_id", &ids.bos),
            std::pair("tokenizer.ggml.eos_token_id", &ids.eos)}) {
        if (!(*file)->isSet(key))
          continue;
        int64_t stated = 0;
        if (llvm::Error error = (*file)->readCount(key, stated))
          return std::move(error);
        *id = static_cast<int>(stated);
      }
    }
    int pad = tokenizer->pad;
    tokenizer = readTokenizerFile(tokenizerPath, spec->config.vocabSize, ids);
    if (!tokenizer)
      return tokenizer.takeError();
    tokenizer->pad = pad;
  }
  spec->tokenizer = std::move(*tokenizer);
  auto generation =
      readGgufGeneration(**file, spec->tokenizer.eos, spec->config.vocabSize);
  if (!generation)
    return generation.takeError();
  spec->generation = std::move(*generation);
  return spec;
}

llvm::Expected<ModelSpec> loadLlama2c(const std::string &path,
                                      const std::string &tokenizerPath) {
  auto checkpoint = Llama2cCheckpoint::open(path);
  if (!checkpoint)
    return checkpoint.takeError();
  const ModelFamily *family =
      findFamily([](const ModelFamily &f) { return f.readsLlama2c(); });
  if (!family)
    return makeError("no model family reads llama2.c checkpoints like '" +
                     path + "'");
  auto spec = importCheckpoint(*family, CheckpointFormat::Llama2c, **checkpoint,
                               (*checkpoint)->tensors(),
                               "llama2.c checkpoint " + fileName(path));
  if (!spec || tokenizerPath.empty())
    return spec;
  auto tokenizer = readTokenizerFile(tokenizerPath, spec->config.vocabSize,
                                     family->specialTokens());
  if (!tokenizer)
    return tokenizer.takeError();
  spec->tokenizer = std::move(*tokenizer);
  return spec;
}

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

llvm::Expected<ModelSpec> tfmc::loadModel(const std::string &path,
                                          const std::string &tokenizerPath) {
  if (!llvm::sys::fs::exists(path))
    return makeError("model '" + path + "' does not exist");
  auto format = detectModelFormat(path);
  if (!format)
    return format.takeError();
  switch (*format) {
  case ModelFormat::HuggingFace: {
    if (llvm::sys::fs::is_directory(path))
      return loadHuggingFace(path, tokenizerPath);
    // Naming a file of a Hugging Face directory means the directory.
    llvm::StringRef parent = llvm::sys::path::parent_path(path);
    return loadHuggingFace(parent.empty() ? "." : parent.str(), tokenizerPath);
  }
  case ModelFormat::Gguf:
    return loadGguf(path, tokenizerPath);
  case ModelFormat::Llama2c:
    return loadLlama2c(path, tokenizerPath);
  case ModelFormat::TfmIR:
    break;
  }
  // The driver compiles IR itself; here it was named as the source of a
  // model's weights (--weights-from, --tokenizer's model).
  return makeError("'" + path +
                   "' is IR in the tfm dialect, not a model file with "
                   "weights");
}

llvm::Error tfmc::verifyModelSpec(const ModelSpec &spec) {
  if (auto err = checkDecoderConfig(spec.config, spec.description))
    return err;
  std::map<std::string, weights::Shape> expected =
      decoderWeightShapes(spec.config);
  for (const auto &[name, shape] : expected) {
    auto it = spec.weights.find(name);
    if (it == spec.weights.end())
      return makeError(spec.description + ": missing tensor '" + name +
                       "' of shape " + shapeString(shape));
    if (it->second.shape() != shape)
      return makeError(spec.description + ": tensor '" + name + "' has shape " +
                       shapeString(it->second.shape()) + ", expected " +
                       shapeString(shape));
  }
  for (const auto &[name, weight] : spec.weights)
    if (!expected.count(name))
      return makeError(spec.description + ": unexpected tensor '" + name +
                       "' for a " + spec.family + " model" +
                       (name == "lm_head" ? " with tied embeddings" : ""));
  return checkTokenizer(spec);
}
