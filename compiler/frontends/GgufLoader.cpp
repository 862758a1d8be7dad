//===- GgufLoader.cpp - Read GGUF llama models into a ModelSpec -----------===//
//
// GGUF (v2/v3, little-endian): magic "GGUF", version, tensor and metadata
// counts, typed key/value metadata, tensor infos (name, dims innermost-first,
// ggml type, offset), then the aligned data section. Only the "llama"
// architecture with F32, F16 or BF16 tensors is accepted; the SentencePiece
// vocabulary embedded in the metadata becomes an "spm" tokenizer blob.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Frontends.h"
#include "compiler/frontends/LoaderSupport.h"
#include "runtime/Tokenizer.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Endian.h"

#include <cstring>
#include <optional>

using namespace tfmc;
using namespace tfmc::frontends;

namespace {

enum GgufValueType : uint32_t {
  kUInt8 = 0, kInt8 = 1, kUInt16 = 2, kInt16 = 3, kUInt32 = 4, kInt32 = 5,
  kFloat32 = 6, kBool = 7, kString = 8, kArray = 9, kUInt64 = 10,
  kInt64 = 11, kFloat64 = 12,
};

const char *valueTypeName(uint32_t type) {
  static const char *const kNames[] = {
      "uint8", "int8",   "uint16", "int16",  "uint32", "int32",  "float32",
      "bool",  "string", "array",  "uint64", "int64",  "float64"};
  return type <= kFloat64 ? kNames[type] : "unknown";
}

/// One metadata value; arrays hold their elements (possibly arrays again).
struct GgufValue {
  uint32_t type = kUInt8;
  uint64_t uint = 0;
  int64_t sint = 0;
  double real = 0;
  std::string string;
  uint32_t elementType = kUInt8;
  std::vector<GgufValue> elements;

  bool isInteger() const {
    return type <= kInt32 || type == kUInt64 || type == kInt64;
  }
  bool isSigned() const {
    return type == kInt8 || type == kInt16 || type == kInt32 || type == kInt64;
  }
  bool isReal() const { return type == kFloat32 || type == kFloat64; }
};

struct GgufTensorInfo {
  std::string name;
  std::vector<uint64_t> dims; ///< innermost first, as stored
  uint32_t type = 0;
  uint64_t offset = 0; ///< relative to the data section
};

const char *ggmlTypeName(uint32_t type) {
  static const char *const kNames[] = {
      "F32",     "F16",    "Q4_0",   "Q4_1",  "Q4_2",   "Q4_3",  "Q5_0",
      "Q5_1",    "Q8_0",   "Q8_1",   "Q2_K",  "Q3_K",   "Q4_K",  "Q5_K",
      "Q6_K",    "Q8_K",   "IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ4_NL",
      "IQ3_S",   "IQ2_S",  "IQ4_XS", "I8",    "I16",    "I32",   "I64",
      "F64",     "IQ1_M",  "BF16"};
  return type < sizeof(kNames) / sizeof(kNames[0]) ? kNames[type] : "unknown";
}

constexpr uint32_t kGgmlF32 = 0, kGgmlF16 = 1, kGgmlBF16 = 30;
/// Deep enough for any real file; stops hostile nesting from blowing the stack.
constexpr int kMaxArrayDepth = 8;

/// Bounds-checked little-endian reader. The first overrun latches `failed`
/// and later reads return zeros, so callers check once per item.
class ByteReader {
public:
  explicit ByteReader(llvm::StringRef bytes) : bytes(bytes) {}

  bool failed() const { return overrun; }
  uint64_t position() const { return pos; }
  uint64_t remaining() const { return overrun ? 0 : bytes.size() - pos; }

  const char *take(uint64_t count) {
    if (overrun || count > bytes.size() - pos) {
      overrun = true;
      return nullptr;
    }
    const char *data = bytes.data() + pos;
    pos += count;
    return data;
  }
  uint8_t u8() {
    const char *p = take(1);
    return p ? static_cast<uint8_t>(*p) : 0;
  }
  uint16_t u16() {
    const char *p = take(2);
    return p ? llvm::support::endian::read16le(p) : 0;
  }
  uint32_t u32() {
    const char *p = take(4);
    return p ? llvm::support::endian::read32le(p) : 0;
  }
  uint64_t u64() {
    const char *p = take(8);
    return p ? llvm::support::endian::read64le(p) : 0;
  }
  std::string string() {
    uint64_t length = u64();
    const char *p = take(length);
    return p ? std::string(p, length) : std::string();
  }

private:
  llvm::StringRef bytes;
  uint64_t pos = 0;
  bool overrun = false;
};

/// The parsed file: metadata, tensor infos and where the data starts.
struct GgufFile {
  std::string path;
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  llvm::StringMap<GgufValue> metadata;
  std::vector<GgufTensorInfo> tensors;
  llvm::StringMap<size_t> tensorIndex;
  uint64_t alignment = 32;
  uint64_t dataStart = 0;

  const GgufValue *find(llvm::StringRef key) const {
    auto it = metadata.find(key);
    return it == metadata.end() ? nullptr : &it->second;
  }
};

llvm::Error truncated(const std::string &path, const llvm::Twine &what) {
  return makeError("GGUF file '" + path + "' is truncated: " + what +
                   " runs past the end of the file");
}

llvm::Error readValue(ByteReader &reader, uint32_t type, GgufValue &value,
                      int depth, const std::string &path,
                      llvm::StringRef key) {
  value.type = type;
  switch (type) {
  case kUInt8: value.uint = reader.u8(); break;
  case kInt8: value.sint = static_cast<int8_t>(reader.u8()); break;
  case kUInt16: value.uint = reader.u16(); break;
  case kInt16: value.sint = static_cast<int16_t>(reader.u16()); break;
  case kUInt32: value.uint = reader.u32(); break;
  case kInt32: value.sint = static_cast<int32_t>(reader.u32()); break;
  case kUInt64: value.uint = reader.u64(); break;
  case kInt64: value.sint = static_cast<int64_t>(reader.u64()); break;
  case kBool: value.uint = reader.u8() != 0; break;
  case kString: value.string = reader.string(); break;
  case kFloat32: {
    uint32_t raw = reader.u32();
    float f;
    std::memcpy(&f, &raw, sizeof(f));
    value.real = f;
    break;
  }
  case kFloat64: {
    uint64_t raw = reader.u64();
    std::memcpy(&value.real, &raw, sizeof(double));
    break;
  }
  case kArray: {
    if (depth >= kMaxArrayDepth)
      return makeError("GGUF metadata key '" + key + "' in '" + path +
                       "' nests arrays deeper than " +
                       llvm::Twine(kMaxArrayDepth) + " levels");
    value.elementType = reader.u32();
    uint64_t count = reader.u64();
    // Every element takes at least one byte: a larger count is corrupt, and
    // checking first avoids allocating for it.
    if (count > reader.remaining())
      return truncated(path, "metadata key '" + key + "'");
    value.elements.resize(count);
    for (GgufValue &element : value.elements) {
      if (auto err = readValue(reader, value.elementType, element, depth + 1,
                               path, key))
        return err;
      if (reader.failed())
        break;
    }
    break;
  }
  default:
    return makeError("GGUF metadata key '" + key + "' in '" + path +
                     "' has unknown value type " + llvm::Twine(type));
  }
  if (reader.failed())
    return truncated(path, "metadata key '" + key + "'");
  return llvm::Error::success();
}

llvm::Error readMetadata(ByteReader &reader, uint64_t count, GgufFile &file) {
  for (uint64_t i = 0; i < count; ++i) {
    std::string key = reader.string();
    uint32_t type = reader.u32();
    if (reader.failed())
      return truncated(file.path, "metadata entry " + llvm::Twine(i));
    GgufValue value;
    if (auto err = readValue(reader, type, value, 0, file.path, key))
      return err;
    file.metadata[key] = std::move(value);
  }
  return llvm::Error::success();
}

llvm::Error readTensorInfos(ByteReader &reader, uint64_t count,
                            GgufFile &file) {
  for (uint64_t i = 0; i < count; ++i) {
    GgufTensorInfo info;
    info.name = reader.string();
    uint32_t rank = reader.u32();
    if (rank > 4 && !reader.failed())
      return makeError("GGUF tensor '" + info.name + "' in '" + file.path +
                       "' has " + llvm::Twine(rank) +
                       " dimensions (at most 4 allowed)");
    for (uint32_t d = 0; d < rank; ++d)
      info.dims.push_back(reader.u64());
    info.type = reader.u32();
    info.offset = reader.u64();
    if (reader.failed())
      return truncated(file.path, "tensor info " + llvm::Twine(i));
    if (file.tensorIndex.count(info.name))
      return makeError("GGUF file '" + file.path + "' lists tensor '" +
                       info.name + "' twice");
    file.tensorIndex[info.name] = file.tensors.size();
    file.tensors.push_back(std::move(info));
  }
  return llvm::Error::success();
}

llvm::Expected<uint64_t> alignment(const GgufFile &file) {
  const GgufValue *value = file.find("general.alignment");
  if (!value)
    return 32;
  uint64_t align = value->isSigned() ? static_cast<uint64_t>(value->sint)
                                     : value->uint;
  if (!value->isInteger() || align == 0 || (align & (align - 1)) != 0)
    return makeError("GGUF file '" + file.path +
                     "' has invalid general.alignment (must be a power of two)");
  return align;
}

llvm::Expected<GgufFile> parseGguf(const std::string &path) {
  auto buffer = openFile(path, "GGUF file");
  if (!buffer)
    return buffer.takeError();
  GgufFile file;
  file.path = path;
  file.buffer = std::move(*buffer);
  ByteReader reader(file.buffer->getBuffer());
  const char *magic = reader.take(4);
  if (!magic || std::memcmp(magic, "GGUF", 4) != 0)
    return makeError("'" + path + "' is not a GGUF file (bad magic)");
  uint32_t version = reader.u32();
  uint64_t tensorCount = reader.u64();
  uint64_t metadataCount = reader.u64();
  if (reader.failed())
    return truncated(path, "the header");
  // v1 used 32-bit counts and lengths; v2 and v3 share this layout.
  if (version != 2 && version != 3)
    return makeError("GGUF file '" + path + "' has unsupported version " +
                     llvm::Twine(version) + " (supported: 2, 3)");
  if (auto err = readMetadata(reader, metadataCount, file))
    return err;
  if (auto err = readTensorInfos(reader, tensorCount, file))
    return err;
  auto align = alignment(file);
  if (!align)
    return align.takeError();
  file.alignment = *align;
  uint64_t pos = reader.position();
  file.dataStart = (pos + *align - 1) / *align * *align;
  return file;
}

//===-- Typed metadata access --------------------------------------------===//

/// The value of `key`: null when it is absent and `optional`, an error
/// naming the file when it is absent and required.
llvm::Expected<const GgufValue *> lookupKey(const GgufFile &file,
                                            llvm::StringRef key,
                                            bool optional) {
  const GgufValue *value = file.find(key);
  if (!value && !optional)
    return makeError("GGUF file '" + file.path + "' lacks metadata key '" +
                     key + "'");
  return value;
}

llvm::Error wrongType(const GgufFile &file, llvm::StringRef key,
                      const GgufValue &value, llvm::StringRef expected) {
  return makeError("GGUF metadata key '" + key + "' in '" + file.path +
                   "' has type " + valueTypeName(value.type) + ", expected " +
                   expected);
}

llvm::Expected<int64_t> getInt(const GgufFile &file, llvm::StringRef key,
                               std::optional<int64_t> fallback = {}) {
  auto value = lookupKey(file, key, fallback.has_value());
  if (!value)
    return value.takeError();
  if (!*value)
    return *fallback;
  if (!(*value)->isInteger())
    return wrongType(file, key, **value, "an integer");
  if ((*value)->isSigned())
    return (*value)->sint;
  if ((*value)->uint > static_cast<uint64_t>(INT64_MAX))
    return makeError("GGUF metadata key '" + key + "' in '" + file.path +
                     "' is out of range");
  return static_cast<int64_t>((*value)->uint);
}

llvm::Expected<double> getReal(const GgufFile &file, llvm::StringRef key,
                               std::optional<double> fallback = {}) {
  auto value = lookupKey(file, key, fallback.has_value());
  if (!value)
    return value.takeError();
  if (!*value)
    return *fallback;
  if (!(*value)->isReal())
    return wrongType(file, key, **value, "a float");
  return (*value)->real;
}

llvm::Expected<const GgufValue *> getArray(const GgufFile &file,
                                           llvm::StringRef key,
                                           uint32_t elementType) {
  auto value = lookupKey(file, key, /*optional=*/false);
  if (!value)
    return value.takeError();
  if ((*value)->type != kArray || (*value)->elementType != elementType)
    return makeError("GGUF metadata key '" + key + "' in '" + file.path +
                     "' must be an array of " + valueTypeName(elementType));
  return *value;
}

llvm::Expected<std::string> getString(const GgufFile &file,
                                      llvm::StringRef key) {
  auto value = lookupKey(file, key, /*optional=*/false);
  if (!value)
    return value.takeError();
  if ((*value)->type != kString)
    return wrongType(file, key, **value, "a string");
  return (*value)->string;
}

//===-- Hyperparameters ----------------------------------------------------===//

/// Reads one positive integer hyperparameter into `out`.
llvm::Error readPositive(const GgufFile &file, llvm::StringRef key,
                         int64_t &out, std::optional<int64_t> fallback = {}) {
  auto value = getInt(file, key, fallback);
  if (!value)
    return value.takeError();
  if (*value <= 0)
    return makeError("GGUF metadata key '" + key + "' in '" + file.path +
                     "' must be positive, got " + llvm::Twine(*value));
  out = *value;
  return llvm::Error::success();
}

llvm::Expected<ModelConfig> readConfig(const GgufFile &file) {
  auto arch = getString(file, "general.architecture");
  if (!arch)
    return arch.takeError();
  if (*arch != "llama")
    return makeError("GGUF file '" + file.path + "' has architecture '" +
                     *arch + "' (supported: llama)");
  ModelConfig c;
  c.family = ModelFamily::Llama;
  c.ropeLayout = RopeLayout::Interleaved;
  if (auto err = readPositive(file, "llama.embedding_length", c.dim))
    return err;
  if (auto err = readPositive(file, "llama.feed_forward_length", c.hiddenDim))
    return err;
  if (auto err = readPositive(file, "llama.block_count", c.numLayers))
    return err;
  if (auto err = readPositive(file, "llama.attention.head_count", c.numHeads))
    return err;
  if (auto err = readPositive(file, "llama.attention.head_count_kv",
                              c.numKVHeads, c.numHeads))
    return err;
  if (auto err = readPositive(file, "llama.context_length", c.contextLength))
    return err;
  auto eps = getReal(file, "llama.attention.layer_norm_rms_epsilon");
  if (!eps)
    return eps.takeError();
  c.normEps = static_cast<float>(*eps);
  auto theta = getReal(file, "llama.rope.freq_base", 10000.0);
  if (!theta)
    return theta.takeError();
  c.ropeTheta = static_cast<float>(*theta);
  if (c.dim % c.numHeads != 0 || c.numHeads % c.numKVHeads != 0)
    return makeError("GGUF file '" + file.path + "': embedding_length " +
                     llvm::Twine(c.dim) + ", head_count " +
                     llvm::Twine(c.numHeads) + " and head_count_kv " +
                     llvm::Twine(c.numKVHeads) + " are inconsistent");
  int64_t ropeDim = 0;
  if (auto err = readPositive(file, "llama.rope.dimension_count", ropeDim,
                              c.headDim()))
    return err;
  if (ropeDim != c.headDim())
    return makeError("GGUF file '" + file.path + "': rope.dimension_count " +
                     llvm::Twine(ropeDim) + " differs from the head size " +
                     llvm::Twine(c.headDim()) +
                     "; partial rotary embeddings are not supported");
  return c;
}

//===-- Tensors ------------------------------------------------------------===//

/// The canonical name of a GGUF llama tensor, or "" when it is not one.
std::string canonicalName(llvm::StringRef name) {
  if (name == "token_embd.weight")
    return "token_embedding";
  if (name == "output_norm.weight")
    return "final_norm.weight";
  if (name == "output.weight")
    return "lm_head";
  if (!name.consume_front("blk."))
    return "";
  auto [layer, rest] = name.split('.');
  unsigned index;
  if (layer.getAsInteger(10, index))
    return "";
  static const std::pair<const char *, const char *> kLayerNames[] = {
      {"attn_norm.weight", "attn_norm.weight"},
      {"attn_q.weight", "attn.wq"},
      {"attn_k.weight", "attn.wk"},
      {"attn_v.weight", "attn.wv"},
      {"attn_output.weight", "attn.wo"},
      {"ffn_norm.weight", "ffn_norm.weight"},
      {"ffn_gate.weight", "ffn.w_gate"},
      {"ffn_down.weight", "ffn.w_down"},
      {"ffn_up.weight", "ffn.w_up"},
  };
  for (const auto &[gguf, canonical] : kLayerNames)
    if (rest == gguf)
      return layerTensorName(index, canonical);
  return "";
}

llvm::Expected<WeightTensor> readTensor(const GgufFile &file,
                                        const GgufTensorInfo &info) {
  uint64_t elementBytes;
  switch (info.type) {
  case kGgmlF32: elementBytes = 4; break;
  case kGgmlF16: case kGgmlBF16: elementBytes = 2; break;
  default:
    return makeError("GGUF tensor '" + info.name + "' in '" + file.path +
                     "' has ggml type " + ggmlTypeName(info.type) + " (" +
                     llvm::Twine(info.type) +
                     "); only F32, F16 and BF16 are supported");
  }
  if (info.offset % file.alignment != 0)
    return makeError("GGUF tensor '" + info.name + "' in '" + file.path +
                     "' has offset " + llvm::Twine(info.offset) +
                     ", not a multiple of the alignment " +
                     llvm::Twine(file.alignment));
  WeightTensor tensor;
  // GGUF lists dims innermost first; ModelSpec shapes are outermost first.
  for (auto it = info.dims.rbegin(); it != info.dims.rend(); ++it) {
    if (*it > static_cast<uint64_t>(INT64_MAX))
      return makeError("GGUF tensor '" + info.name + "' in '" + file.path +
                       "' has an invalid dimension");
    tensor.shape.push_back(static_cast<int64_t>(*it));
  }
  uint64_t count = numElements(tensor.shape);
  uint64_t size = file.buffer->getBufferSize();
  uint64_t begin = file.dataStart + info.offset;
  bool overflow = info.offset > UINT64_MAX - file.dataStart ||
                  count > (UINT64_MAX - begin) / elementBytes;
  uint64_t end = overflow ? UINT64_MAX : begin + count * elementBytes;
  if (end > size)
    return makeError("GGUF file '" + file.path + "' is truncated: tensor '" +
                     info.name + "' needs bytes [" + llvm::Twine(begin) +
                     ", " + llvm::Twine(end) + ") but the file has " +
                     llvm::Twine(size) + " bytes");
  const char *data = file.buffer->getBufferStart() + begin;
  if (info.type == kGgmlF32)
    tensor.data = readF32(data, count);
  else if (info.type == kGgmlF16)
    tensor.data = readF16(data, count);
  else
    tensor.data = readBF16(data, count);
  return tensor;
}

/// Names the GGUF tensor a llama model cannot do without, before the
/// canonical-name check in verifyModelSpec would report it less directly.
llvm::Error checkRequiredTensors(const GgufFile &file, int64_t numLayers) {
  std::vector<std::string> required = {"token_embd.weight",
                                       "output_norm.weight"};
  static const char *const kLayerTensors[] = {
      "attn_norm", "attn_q",   "attn_k",   "attn_v", "attn_output",
      "ffn_norm",  "ffn_gate", "ffn_down", "ffn_up"};
  for (int64_t layer = 0; layer < numLayers; ++layer)
    for (const char *name : kLayerTensors)
      required.push_back("blk." + std::to_string(layer) + "." + name +
                         ".weight");
  for (const std::string &name : required)
    if (!file.tensorIndex.count(name))
      return makeError("GGUF file '" + file.path + "' lacks tensor '" + name +
                       "'");
  return llvm::Error::success();
}

llvm::Error readWeights(const GgufFile &file, ModelSpec &spec) {
  if (auto err = checkRequiredTensors(file, spec.config.numLayers))
    return err;
  for (const GgufTensorInfo &info : file.tensors) {
    std::string canonical = canonicalName(info.name);
    if (canonical.empty())
      return makeError("GGUF file '" + file.path +
                       "' has unsupported tensor '" + info.name + "'");
    auto tensor = readTensor(file, info);
    if (!tensor)
      return tensor.takeError();
    spec.weights[canonical] = std::move(*tensor);
  }
  spec.config.tiedEmbeddings = !spec.weights.count("lm_head");
  return llvm::Error::success();
}

//===-- Tokenizer ----------------------------------------------------------===//

llvm::Expected<int> specialId(const GgufFile &file, llvm::StringRef key,
                              int fallback) {
  auto id = getInt(file, key, fallback);
  if (!id)
    return id.takeError();
  return static_cast<int>(*id);
}

/// Converts the embedded SentencePiece vocabulary; leaves the tokenizer empty
/// when the file has none.
llvm::Error readTokenizer(const GgufFile &file, ModelSpec &spec) {
  if (!file.find("tokenizer.ggml.model"))
    return llvm::Error::success();
  auto model = getString(file, "tokenizer.ggml.model");
  if (!model)
    return model.takeError();
  if (*model != "llama")
    return makeError("GGUF file '" + file.path + "' has tokenizer model '" +
                     *model + "' (supported: llama)");
  auto tokens = getArray(file, "tokenizer.ggml.tokens", kString);
  if (!tokens)
    return tokens.takeError();
  auto scores = getArray(file, "tokenizer.ggml.scores", kFloat32);
  if (!scores)
    return scores.takeError();
  size_t count = (*tokens)->elements.size();
  if ((*scores)->elements.size() != count)
    return makeError("GGUF file '" + file.path + "' has " +
                     llvm::Twine(count) + " tokens but " +
                     llvm::Twine((*scores)->elements.size()) + " scores");
  std::vector<std::string> pieces;
  std::vector<float> pieceScores;
  pieces.reserve(count);
  pieceScores.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    pieces.push_back(metaspaceToSpace((*tokens)->elements[i].string));
    pieceScores.push_back(static_cast<float>((*scores)->elements[i].real));
  }
  auto bos = specialId(file, "tokenizer.ggml.bos_token_id", 1);
  if (!bos)
    return bos.takeError();
  auto eos = specialId(file, "tokenizer.ggml.eos_token_id", 2);
  if (!eos)
    return eos.takeError();
  spec.tokenizer.kind = "spm";
  spec.tokenizer.blob = tfm::rt::spmBlobFromPieces(pieces, pieceScores);
  spec.tokenizer.bos = *bos;
  spec.tokenizer.eos = *eos;
  return llvm::Error::success();
}

/// The vocabulary size: the tokenizer's when present, else the embedding's.
llvm::Error setVocabSize(const GgufFile &file, ModelSpec &spec) {
  const GgufValue *tokens = file.find("tokenizer.ggml.tokens");
  if (tokens && tokens->type == kArray) {
    spec.config.vocabSize = static_cast<int64_t>(tokens->elements.size());
    return llvm::Error::success();
  }
  const WeightTensor &embedding = spec.weights.at("token_embedding");
  if (embedding.shape.size() != 2)
    return makeError("GGUF tensor 'token_embd.weight' in '" + file.path +
                     "' must have 2 dimensions");
  spec.config.vocabSize = embedding.shape[0];
  return llvm::Error::success();
}

} // namespace

llvm::Expected<ModelSpec> tfmc::loadGguf(const std::string &path) {
  auto file = parseGguf(path);
  if (!file)
    return file.takeError();
  ModelSpec spec;
  spec.description = "GGUF model " + fileName(path);
  auto config = readConfig(*file);
  if (!config)
    return config.takeError();
  spec.config = *config;
  if (auto err = readWeights(*file, spec))
    return err;
  if (auto err = setVocabSize(*file, spec))
    return err;
  if (auto err = readTokenizer(*file, spec))
    return err;
  return spec;
}
