//===- HuggingFaceLoader.cpp - Read Hugging Face model directories --------===//
//
// config.json (model_type gpt2 or llama) gives the hyperparameters,
// model.safetensors (or the shards named by model.safetensors.index.json)
// the weights. GPT-2 stores its projections as Conv1D ([in, out]), so they
// are transposed into the canonical [out, in] and c_attn is split into Q/K/V.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Frontends.h"
#include "compiler/frontends/HfTokenizer.h"
#include "compiler/frontends/LoaderSupport.h"
#include "compiler/frontends/Safetensors.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <optional>

using namespace tfmc;
using namespace tfmc::frontends;

namespace {

std::string joinPath(const std::string &directory, llvm::StringRef name) {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, name);
  return std::string(path);
}

//===-- config.json --------------------------------------------------------===//

/// Typed access to config.json with errors naming the file and field.
class ConfigReader {
public:
  ConfigReader(std::string path, const llvm::json::Object &object)
      : path(std::move(path)), object(object) {}

  const std::string &file() const { return path; }
  const llvm::json::Object &json() const { return object; }

  /// A positive integer; `fallback` applies when the field is absent or null.
  llvm::Error positive(llvm::StringRef key, int64_t &out,
                       std::optional<int64_t> fallback = {}) const {
    const llvm::json::Value *value = object.get(key);
    if (!value || value->kind() == llvm::json::Value::Null) {
      if (!fallback)
        return makeError("'" + path + "' lacks integer field '" + key + "'");
      out = *fallback;
      return llvm::Error::success();
    }
    auto integer = value->getAsInteger();
    if (!integer || *integer <= 0)
      return makeError("field '" + key + "' in '" + path +
                       "' must be a positive integer");
    out = *integer;
    return llvm::Error::success();
  }

  llvm::Error number(llvm::StringRef key, float &out, double fallback) const {
    const llvm::json::Value *value = object.get(key);
    if (!value || value->kind() == llvm::json::Value::Null) {
      out = static_cast<float>(fallback);
      return llvm::Error::success();
    }
    auto real = value->getAsNumber();
    if (!real || !(*real > 0))
      return makeError("field '" + key + "' in '" + path +
                       "' must be a positive number");
    out = static_cast<float>(*real);
    return llvm::Error::success();
  }

  /// A string field; absent or null gives `fallback`.
  llvm::Expected<std::string> string(llvm::StringRef key,
                                     llvm::StringRef fallback) const {
    const llvm::json::Value *value = object.get(key);
    if (!value || value->kind() == llvm::json::Value::Null)
      return fallback.str();
    auto text = value->getAsString();
    if (!text)
      return makeError("field '" + key + "' in '" + path +
                       "' must be a string");
    return text->str();
  }

  bool flag(llvm::StringRef key, bool fallback) const {
    auto value = object.getBoolean(key);
    return value ? *value : fallback;
  }

  bool isSet(llvm::StringRef key) const {
    const llvm::json::Value *value = object.get(key);
    return value && value->kind() != llvm::json::Value::Null &&
           value->getAsBoolean() != std::optional<bool>(false);
  }

private:
  std::string path;
  const llvm::json::Object &object;
};

llvm::Expected<ModelConfig> readGpt2Config(const ConfigReader &config) {
  ModelConfig c;
  c.family = ModelFamily::Gpt2;
  c.tiedEmbeddings = true;
  if (auto err = config.positive("n_embd", c.dim))
    return err;
  if (auto err = config.positive("n_layer", c.numLayers))
    return err;
  if (auto err = config.positive("n_head", c.numHeads))
    return err;
  c.numKVHeads = c.numHeads;
  if (auto err = config.positive("vocab_size", c.vocabSize))
    return err;
  std::optional<int64_t> nCtx;
  if (config.json().get("n_ctx")) {
    int64_t value = 0;
    if (auto err = config.positive("n_ctx", value))
      return err;
    nCtx = value;
  }
  if (auto err = config.positive("n_positions", c.contextLength, nCtx))
    return err;
  if (auto err = config.positive("n_inner", c.hiddenDim, 4 * c.dim))
    return err;
  if (auto err = config.number("layer_norm_epsilon", c.normEps, 1e-5))
    return err;
  auto activation = config.string("activation_function", "gelu_new");
  if (!activation)
    return activation.takeError();
  if (*activation != "gelu_new" && *activation != "gelu_pytorch_tanh")
    return makeError("unsupported activation_function '" + *activation +
                     "' in '" + config.file() +
                     "' (supported: gelu_new, gelu_pytorch_tanh)");
  return c;
}

llvm::Expected<ModelConfig> readLlamaConfig(const ConfigReader &config) {
  ModelConfig c;
  c.family = ModelFamily::Llama;
  c.ropeLayout = RopeLayout::HalfSplit;
  if (auto err = config.positive("hidden_size", c.dim))
    return err;
  if (auto err = config.positive("intermediate_size", c.hiddenDim))
    return err;
  if (auto err = config.positive("num_hidden_layers", c.numLayers))
    return err;
  if (auto err = config.positive("num_attention_heads", c.numHeads))
    return err;
  if (auto err =
          config.positive("num_key_value_heads", c.numKVHeads, c.numHeads))
    return err;
  if (auto err = config.positive("vocab_size", c.vocabSize))
    return err;
  if (auto err = config.positive("max_position_embeddings", c.contextLength))
    return err;
  if (auto err = config.number("rms_norm_eps", c.normEps, 1e-6))
    return err;
  if (auto err = config.number("rope_theta", c.ropeTheta, 10000.0))
    return err;
  c.tiedEmbeddings = config.flag("tie_word_embeddings", false);
  auto activation = config.string("hidden_act", "silu");
  if (!activation)
    return activation.takeError();
  if (*activation != "silu")
    return makeError("unsupported hidden_act '" + *activation + "' in '" +
                     config.file() + "' (supported: silu)");
  for (const char *key : {"rope_scaling", "attention_bias", "mlp_bias"})
    if (config.isSet(key))
      return makeError(llvm::Twine(key) + " in '" + config.file() +
                       "' is not supported");
  if (c.numHeads && c.dim % c.numHeads == 0) {
    int64_t headDim = 0;
    if (auto err = config.positive("head_dim", headDim, c.dim / c.numHeads))
      return err;
    if (headDim != c.dim / c.numHeads)
      return makeError("head_dim " + llvm::Twine(headDim) + " in '" +
                       config.file() +
                       "' differs from hidden_size / num_attention_heads");
  }
  return c;
}

//===-- Weights ------------------------------------------------------------===//

/// The checkpoint's tensors, from one file or several shards, with a record
/// of which were consumed so that leftovers can be reported.
class WeightSource {
public:
  static llvm::Expected<WeightSource> open(const std::string &directory);

  bool contains(llvm::StringRef name) const { return owner(name) != nullptr; }

  llvm::Expected<WeightTensor> read(llvm::StringRef name,
                                    const std::vector<int64_t> &shape) {
    consumed.insert(name);
    const SafetensorsFile *file = owner(name);
    if (!file)
      return makeError("'" + description + "' lacks tensor '" + name +
                       "' (expected shape " + shapeString(shape) + ")");
    return file->read(name, shape);
  }

  void ignore(llvm::StringRef name) { consumed.insert(name); }

  /// The first tensor nobody read, or "".
  std::string leftover() const {
    for (const SafetensorsFile &file : files)
      for (const std::string &name : file.names())
        if (!consumed.count(name))
          return name;
    return "";
  }

  const std::string &name() const { return description; }

private:
  const SafetensorsFile *owner(llvm::StringRef name) const {
    for (const SafetensorsFile &file : files)
      if (file.contains(name))
        return &file;
    return nullptr;
  }

  std::vector<SafetensorsFile> files;
  std::string description;
  llvm::StringSet<> consumed;
};

/// Shard file names from model.safetensors.index.json's weight_map.
llvm::Expected<std::vector<std::string>>
readShardIndex(const std::string &indexPath) {
  auto buffer = openFile(indexPath, "safetensors index");
  if (!buffer)
    return buffer.takeError();
  auto json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return makeError("malformed JSON in '" + indexPath +
                     "': " + llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Object *map = root ? root->getObject("weight_map") : nullptr;
  if (!map)
    return makeError("'" + indexPath + "' lacks the object 'weight_map'");
  std::vector<std::string> shards;
  for (const auto &[tensor, file] : *map) {
    auto name = file.getAsString();
    if (!name || name->contains('/') || name->contains('\\'))
      return makeError("'" + indexPath + "' maps tensor '" +
                       llvm::StringRef(tensor) + "' to an invalid file name");
    if (std::find(shards.begin(), shards.end(), *name) == shards.end())
      shards.push_back(name->str());
  }
  std::sort(shards.begin(), shards.end());
  return shards;
}

llvm::Expected<WeightSource> WeightSource::open(const std::string &directory) {
  WeightSource source;
  std::string single = joinPath(directory, "model.safetensors");
  std::string index = joinPath(directory, "model.safetensors.index.json");
  std::vector<std::string> paths;
  if (llvm::sys::fs::exists(single)) {
    paths.push_back(single);
    source.description = single;
  } else if (llvm::sys::fs::exists(index)) {
    auto shards = readShardIndex(index);
    if (!shards)
      return shards.takeError();
    for (const std::string &shard : *shards)
      paths.push_back(joinPath(directory, shard));
    source.description = index;
  } else {
    return makeError("Hugging Face model directory '" + directory +
                     "' has no model.safetensors");
  }
  for (const std::string &path : paths) {
    auto file = SafetensorsFile::open(path);
    if (!file)
      return file.takeError();
    source.files.push_back(std::move(*file));
  }
  return source;
}

/// Reads `name` with `shape` into spec.weights[canonical].
llvm::Error take(WeightSource &source, ModelSpec &spec, llvm::StringRef name,
                 const std::string &canonical,
                 const std::vector<int64_t> &shape) {
  auto tensor = source.read(name, shape);
  if (!tensor)
    return tensor.takeError();
  spec.weights[canonical] = std::move(*tensor);
  return llvm::Error::success();
}

/// Reads a Conv1D weight [in, out] as its [out, in] transpose.
llvm::Expected<WeightTensor> readConv1D(WeightSource &source,
                                        llvm::StringRef name, int64_t in,
                                        int64_t out) {
  auto tensor = source.read(name, {in, out});
  if (!tensor)
    return tensor.takeError();
  WeightTensor result;
  result.shape = {out, in};
  result.data = transpose(tensor->data.data(), in, out);
  return result;
}

/// Rows [begin, begin + count) of a row-major matrix (or elements of a
/// vector when `cols` is 1).
WeightTensor sliceRows(const WeightTensor &tensor, int64_t begin,
                       int64_t count, int64_t cols,
                       std::vector<int64_t> shape) {
  WeightTensor slice;
  slice.shape = std::move(shape);
  slice.data.assign(tensor.data.begin() + begin * cols,
                    tensor.data.begin() + (begin + count) * cols);
  return slice;
}

llvm::Error readGpt2Layer(WeightSource &source, ModelSpec &spec,
                          const std::string &prefix, int64_t layer) {
  const ModelConfig &c = spec.config;
  int64_t d = c.dim, f = c.hiddenDim;
  std::string in = prefix + "h." + std::to_string(layer) + ".";
  auto out = [&](const char *suffix) { return layerTensorName(layer, suffix); };
  const std::pair<const char *, const char *> norms[] = {
      {"ln_1.weight", "attn_norm.weight"}, {"ln_1.bias", "attn_norm.bias"},
      {"ln_2.weight", "ffn_norm.weight"},  {"ln_2.bias", "ffn_norm.bias"}};
  for (const auto &[from, to] : norms)
    if (auto err = take(source, spec, in + from, out(to), {d}))
      return err;
  // c_attn packs Q, K and V along its output dimension.
  auto qkv = readConv1D(source, in + "attn.c_attn.weight", d, 3 * d);
  if (!qkv)
    return qkv.takeError();
  auto qkvBias = source.read(in + "attn.c_attn.bias", {3 * d});
  if (!qkvBias)
    return qkvBias.takeError();
  const char *weights[] = {"attn.wq", "attn.wk", "attn.wv"};
  const char *biases[] = {"attn.bq", "attn.bk", "attn.bv"};
  for (int part = 0; part < 3; ++part) {
    spec.weights[out(weights[part])] =
        sliceRows(*qkv, part * d, d, d, {d, d});
    spec.weights[out(biases[part])] = sliceRows(*qkvBias, part * d, d, 1, {d});
  }
  struct Projection {
    const char *weight, *bias, *canonicalWeight, *canonicalBias;
    int64_t in, out;
  };
  const Projection projections[] = {
      {"attn.c_proj.weight", "attn.c_proj.bias", "attn.wo", "attn.bo", d, d},
      {"mlp.c_fc.weight", "mlp.c_fc.bias", "ffn.w_up", "ffn.b_up", d, f},
      {"mlp.c_proj.weight", "mlp.c_proj.bias", "ffn.w_down", "ffn.b_down", f,
       d}};
  for (const Projection &p : projections) {
    auto weight = readConv1D(source, in + p.weight, p.in, p.out);
    if (!weight)
      return weight.takeError();
    spec.weights[out(p.canonicalWeight)] = std::move(*weight);
    if (auto err = take(source, spec, in + p.bias, out(p.canonicalBias),
                        {p.out}))
      return err;
  }
  // Causal-mask buffers that some exports keep; the compiler builds its own.
  source.ignore(in + "attn.bias");
  source.ignore(in + "attn.masked_bias");
  return llvm::Error::success();
}

llvm::Error readGpt2Weights(WeightSource &source, ModelSpec &spec) {
  const ModelConfig &c = spec.config;
  // GPT2LMHeadModel checkpoints prefix the body with "transformer.".
  std::string prefix = source.contains("transformer.wte.weight") ? "transformer."
                                                                  : "";
  if (auto err = take(source, spec, prefix + "wte.weight", "token_embedding",
                      {c.vocabSize, c.dim}))
    return err;
  if (auto err = take(source, spec, prefix + "wpe.weight",
                      "position_embedding", {c.contextLength, c.dim}))
    return err;
  for (int64_t layer = 0; layer < c.numLayers; ++layer)
    if (auto err = readGpt2Layer(source, spec, prefix, layer))
      return err;
  if (auto err = take(source, spec, prefix + "ln_f.weight",
                      "final_norm.weight", {c.dim}))
    return err;
  if (auto err =
          take(source, spec, prefix + "ln_f.bias", "final_norm.bias", {c.dim}))
    return err;
  // GPT-2's head is the embedding; a stored copy adds nothing.
  source.ignore("lm_head.weight");
  return llvm::Error::success();
}

llvm::Error readLlamaWeights(WeightSource &source, ModelSpec &spec) {
  ModelConfig &c = spec.config;
  int64_t hd = c.headDim();
  int64_t qDim = c.numHeads * hd, kvDim = c.numKVHeads * hd;
  if (auto err = take(source, spec, "model.embed_tokens.weight",
                      "token_embedding", {c.vocabSize, c.dim}))
    return err;
  struct Tensor {
    const char *from, *to;
    std::vector<int64_t> shape;
  };
  const Tensor layerTensors[] = {
      {"input_layernorm.weight", "attn_norm.weight", {c.dim}},
      {"self_attn.q_proj.weight", "attn.wq", {qDim, c.dim}},
      {"self_attn.k_proj.weight", "attn.wk", {kvDim, c.dim}},
      {"self_attn.v_proj.weight", "attn.wv", {kvDim, c.dim}},
      {"self_attn.o_proj.weight", "attn.wo", {c.dim, qDim}},
      {"post_attention_layernorm.weight", "ffn_norm.weight", {c.dim}},
      {"mlp.gate_proj.weight", "ffn.w_gate", {c.hiddenDim, c.dim}},
      {"mlp.up_proj.weight", "ffn.w_up", {c.hiddenDim, c.dim}},
      {"mlp.down_proj.weight", "ffn.w_down", {c.dim, c.hiddenDim}},
  };
  for (int64_t layer = 0; layer < c.numLayers; ++layer) {
    std::string in = "model.layers." + std::to_string(layer) + ".";
    for (const Tensor &t : layerTensors)
      if (auto err = take(source, spec, in + t.from,
                          layerTensorName(layer, t.to), t.shape))
        return err;
    // Older exports store RoPE frequencies; the compiler derives them.
    source.ignore(in + "self_attn.rotary_emb.inv_freq");
  }
  if (auto err = take(source, spec, "model.norm.weight", "final_norm.weight",
                      {c.dim}))
    return err;
  if (c.tiedEmbeddings || !source.contains("lm_head.weight")) {
    c.tiedEmbeddings = true;
    source.ignore("lm_head.weight");
    return llvm::Error::success();
  }
  return take(source, spec, "lm_head.weight", "lm_head", {c.vocabSize, c.dim});
}

llvm::Expected<llvm::json::Value> readJsonFile(const std::string &path) {
  auto buffer = openFile(path, "config");
  if (!buffer)
    return buffer.takeError();
  auto json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return makeError("malformed JSON in '" + path +
                     "': " + llvm::toString(json.takeError()));
  if (!json->getAsObject())
    return makeError("'" + path + "' must hold a JSON object");
  return std::move(*json);
}

/// Validates what the weight readers rely on to index safely.
llvm::Error checkDivisibility(const ModelConfig &c, const std::string &path) {
  if (c.dim % c.numHeads != 0)
    return makeError("'" + path + "': hidden size " + llvm::Twine(c.dim) +
                     " is not divisible by the head count " +
                     llvm::Twine(c.numHeads));
  if (c.numHeads % c.numKVHeads != 0)
    return makeError("'" + path + "': head count " + llvm::Twine(c.numHeads) +
                     " is not divisible by the key/value head count " +
                     llvm::Twine(c.numKVHeads));
  return llvm::Error::success();
}

} // namespace

llvm::Expected<ModelSpec>
tfmc::loadHuggingFace(const std::string &directory,
                     const std::string &tokenizerOverride) {
  std::string configPath = joinPath(directory, "config.json");
  if (!llvm::sys::fs::exists(configPath))
    return makeError("Hugging Face model directory '" + directory +
                     "' has no config.json");
  auto json = readJsonFile(configPath);
  if (!json)
    return json.takeError();
  ConfigReader config(configPath, *json->getAsObject());
  auto modelType = config.string("model_type", "");
  if (!modelType)
    return modelType.takeError();
  if (modelType->empty())
    return makeError("'" + configPath +
                     "' has no model_type (supported: gpt2, llama)");
  bool gpt2 = *modelType == "gpt2";
  if (!gpt2 && *modelType != "llama")
    return makeError("unsupported model_type '" + *modelType + "' in '" +
                     configPath + "' (supported: gpt2, llama)");
  auto modelConfig = gpt2 ? readGpt2Config(config) : readLlamaConfig(config);
  if (!modelConfig)
    return modelConfig.takeError();
  if (auto err = checkDivisibility(*modelConfig, configPath))
    return err;
  ModelSpec spec;
  spec.config = *modelConfig;
  spec.description = "Hugging Face " + *modelType + " model " +
                     fileName(directory);
  auto source = WeightSource::open(directory);
  if (!source)
    return source.takeError();
  if (auto err = gpt2 ? readGpt2Weights(*source, spec)
                      : readLlamaWeights(*source, spec))
    return err;
  std::string leftover = source->leftover();
  if (!leftover.empty())
    return makeError("'" + source->name() + "' has unexpected tensor '" +
                     leftover + "' for model_type " + *modelType);
  auto tokenizer = loadHfTokenizer(directory, tokenizerOverride,
                                   config.json(), spec.config);
  if (!tokenizer)
    return tokenizer.takeError();
  spec.tokenizer = std::move(*tokenizer);
  return spec;
}
