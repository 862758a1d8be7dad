//===- Llama2cLoader.cpp - Read llama2.c checkpoints into a ModelSpec ------===//
//
// The legacy (v0) llama2.c format: a header of 7 int32 (dim, hidden_dim,
// n_layers, n_heads, n_kv_heads, vocab_size, seq_len) followed by raw f32
// tensors, each stacked over layers, in a fixed order. A negative vocab_size
// means a separate classifier follows the (unused) RoPE frequency tables.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Frontends.h"
#include "compiler/frontends/LoaderSupport.h"
#include "runtime/Tokenizer.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"

#include <array>
#include <cstdlib>

using namespace tfmc;
using namespace tfmc::frontends;

namespace {

constexpr uint64_t kHeaderBytes = 7 * sizeof(int32_t);

struct Llama2cHeader {
  int64_t dim, hiddenDim, numLayers, numHeads, numKVHeads, vocab, seqLen;
};

/// Walks the tensors of a checkpoint in file order, checking every range
/// against the file size before touching it. A dry run only checks, so that
/// a corrupt header is rejected before gigabytes are copied.
class TensorCursor {
public:
  TensorCursor(const std::string &path, const llvm::MemoryBuffer &file,
               bool dryRun)
      : path(path), file(file), dryRun(dryRun) {}

  /// Reads the next tensor as `name` with `shape`.
  llvm::Error take(ModelSpec &spec, const std::string &name,
                   std::vector<int64_t> shape) {
    uint64_t count = numElements(shape);
    auto begin = claim(name, count);
    if (!begin)
      return begin.takeError();
    if (dryRun)
      return llvm::Error::success();
    WeightTensor &tensor = spec.weights[name];
    tensor.data = readF32(file.getBufferStart() + *begin, count);
    tensor.shape = std::move(shape);
    return llvm::Error::success();
  }

  /// Skips a tensor of `count` floats the compiler does not need.
  llvm::Error skip(const std::string &name, uint64_t count) {
    return claim(name, count).takeError();
  }

  /// Rejects bytes left after the last tensor: they mean the header does not
  /// describe this file.
  llvm::Error finish() const {
    uint64_t size = file.getBufferSize();
    if (offset == size)
      return llvm::Error::success();
    return makeError("llama2.c checkpoint '" + path + "' has " +
                     llvm::Twine(size - offset) +
                     " trailing bytes after the last tensor (the header "
                     "describes " +
                     llvm::Twine(offset) + " bytes, the file has " +
                     llvm::Twine(size) + ")");
  }

private:
  llvm::Expected<uint64_t> claim(const std::string &name, uint64_t count) {
    uint64_t size = file.getBufferSize();
    uint64_t begin = offset;
    uint64_t bytes = count > (UINT64_MAX - begin) / 4 ? UINT64_MAX - begin
                                                       : count * 4;
    uint64_t end = begin + bytes;
    if (end > size)
      return makeError("llama2.c checkpoint '" + path +
                       "' is truncated: tensor '" + name + "' needs bytes [" +
                       llvm::Twine(begin) + ", " + llvm::Twine(end) +
                       ") but the file has " + llvm::Twine(size) + " bytes");
    offset = end;
    return begin;
  }

  const std::string &path;
  const llvm::MemoryBuffer &file;
  bool dryRun;
  uint64_t offset = kHeaderBytes;
};

llvm::Expected<Llama2cHeader> readHeader(const std::string &path,
                                         const llvm::MemoryBuffer &file) {
  if (file.getBufferSize() < kHeaderBytes)
    return makeError("llama2.c checkpoint '" + path + "' has " +
                     llvm::Twine(file.getBufferSize()) +
                     " bytes, too few for its 28-byte header");
  std::array<int64_t, 7> fields;
  for (int i = 0; i < 7; ++i)
    fields[i] = static_cast<int32_t>(
        llvm::support::endian::read32le(file.getBufferStart() + 4 * i));
  static const char *const kNames[7] = {"dim",      "hidden_dim", "n_layers",
                                        "n_heads",  "n_kv_heads", "vocab_size",
                                        "seq_len"};
  for (int i = 0; i < 7; ++i) {
    bool valid = i == 5 ? fields[i] != 0 : fields[i] > 0;
    if (!valid)
      return makeError("llama2.c checkpoint '" + path +
                       "' has invalid header field " + kNames[i] + " = " +
                       llvm::Twine(fields[i]) + " (must be " +
                       (i == 5 ? "non-zero" : "positive") + ")");
  }
  Llama2cHeader header{fields[0], fields[1], fields[2], fields[3],
                       fields[4], fields[5], fields[6]};
  if (header.dim % header.numHeads != 0)
    return makeError("llama2.c checkpoint '" + path + "': dim " +
                     llvm::Twine(header.dim) + " is not divisible by n_heads " +
                     llvm::Twine(header.numHeads));
  if (header.numHeads % header.numKVHeads != 0)
    return makeError("llama2.c checkpoint '" + path + "': n_heads " +
                     llvm::Twine(header.numHeads) +
                     " is not divisible by n_kv_heads " +
                     llvm::Twine(header.numKVHeads));
  // RoPE rotates pairs of the head dimension.
  if ((header.dim / header.numHeads) % 2 != 0)
    return makeError("llama2.c checkpoint '" + path + "': head size " +
                     llvm::Twine(header.dim / header.numHeads) +
                     " must be even for rotary embeddings");
  return header;
}

ModelConfig configFor(const Llama2cHeader &header) {
  ModelConfig config;
  config.family = ModelFamily::Llama;
  config.dim = header.dim;
  config.hiddenDim = header.hiddenDim;
  config.numLayers = header.numLayers;
  config.numHeads = header.numHeads;
  config.numKVHeads = header.numKVHeads;
  config.vocabSize = std::llabs(header.vocab);
  config.contextLength = header.seqLen;
  config.normEps = 1e-5f;
  config.ropeTheta = 10000.0f;
  config.ropeLayout = RopeLayout::Interleaved;
  config.tiedEmbeddings = header.vocab > 0;
  return config;
}

/// Reads one per-layer block: llama2.c stores each tensor kind for all
/// layers back to back, so layer l's slice follows layer l-1's.
llvm::Error takeLayers(TensorCursor &cursor, ModelSpec &spec,
                       llvm::StringRef suffix,
                       const std::vector<int64_t> &shape) {
  for (int64_t layer = 0; layer < spec.config.numLayers; ++layer)
    if (llvm::Error err =
            cursor.take(spec, layerTensorName(layer, suffix), shape))
      return err;
  return llvm::Error::success();
}

llvm::Error readTensors(TensorCursor &cursor, ModelSpec &spec) {
  const ModelConfig &c = spec.config;
  int64_t hd = c.headDim();
  int64_t qDim = c.numHeads * hd, kvDim = c.numKVHeads * hd;
  if (auto err = cursor.take(spec, "token_embedding", {c.vocabSize, c.dim}))
    return err;
  struct Block {
    const char *suffix;
    std::vector<int64_t> shape;
  };
  const Block blocks[] = {
      {"attn_norm.weight", {c.dim}},   {"attn.wq", {qDim, c.dim}},
      {"attn.wk", {kvDim, c.dim}},     {"attn.wv", {kvDim, c.dim}},
      {"attn.wo", {c.dim, qDim}},      {"ffn_norm.weight", {c.dim}},
      {"ffn.w_gate", {c.hiddenDim, c.dim}},
      {"ffn.w_down", {c.dim, c.hiddenDim}},
      {"ffn.w_up", {c.hiddenDim, c.dim}},
  };
  for (const Block &block : blocks)
    if (auto err = takeLayers(cursor, spec, block.suffix, block.shape))
      return err;
  if (auto err = cursor.take(spec, "final_norm.weight", {c.dim}))
    return err;
  // The legacy RoPE tables: the compiler computes frequencies itself.
  uint64_t freqCount = numElements({c.contextLength, hd / 2});
  if (auto err = cursor.skip("freq_cis_real", freqCount))
    return err;
  if (auto err = cursor.skip("freq_cis_imag", freqCount))
    return err;
  if (!c.tiedEmbeddings)
    if (auto err = cursor.take(spec, "lm_head", {c.vocabSize, c.dim}))
      return err;
  return cursor.finish();
}

} // namespace

llvm::Expected<TokenizerSpec>
tfmc::frontends::loadLlama2cTokenizer(const std::string &path,
                                     int64_t vocabSize, int bos, int eos) {
  if (!llvm::sys::fs::exists(path))
    return makeError("tokenizer '" + path + "' does not exist");
  TokenizerSpec tokenizer;
  std::string error;
  if (!tfm::rt::spmBlobFromLlama2cFile(path, static_cast<int>(vocabSize),
                                  tokenizer.blob, error)) {
    if (error.find(path) == std::string::npos)
      error = "tokenizer '" + path + "': " + error;
    return makeError(error);
  }
  tokenizer.kind = "spm";
  tokenizer.bos = bos;
  tokenizer.eos = eos;
  return tokenizer;
}

llvm::Expected<ModelSpec> tfmc::loadLlama2c(const std::string &checkpointPath,
                                           const std::string &tokenizerPath) {
  auto file = openFile(checkpointPath, "llama2.c checkpoint");
  if (!file)
    return file.takeError();
  auto header = readHeader(checkpointPath, **file);
  if (!header)
    return header.takeError();
  ModelSpec spec;
  spec.config = configFor(*header);
  spec.description = "llama2.c checkpoint " + fileName(checkpointPath);
  TensorCursor check(checkpointPath, **file, /*dryRun=*/true);
  if (auto err = readTensors(check, spec))
    return err;
  TensorCursor cursor(checkpointPath, **file, /*dryRun=*/false);
  if (auto err = readTensors(cursor, spec))
    return err;
  if (tokenizerPath.empty())
    return spec;
  // llama2.c's run.c hard-codes BOS = 1 and EOS = 2.
  auto tokenizer = loadLlama2cTokenizer(tokenizerPath, spec.config.vocabSize,
                                        /*bos=*/1, /*eos=*/2);
  if (!tokenizer)
    return tokenizer.takeError();
  spec.tokenizer = std::move(*tokenizer);
  return spec;
}
