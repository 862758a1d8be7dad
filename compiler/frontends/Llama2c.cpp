//===- Llama2c.cpp - llama2.c checkpoints ---------------------------------===//
//
// Every tensor's byte range is checked against the file size when the file
// is opened, so that views handed out later always lie inside the mapping.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Llama2c.h"

#include "compiler/frontends/FrontendSupport.h"

#include "llvm/Support/Endian.h"

#include <cstdlib>

using namespace tfmc;
using namespace tfmc::frontends;
using tfmc::weights::ElementType;
using tfmc::weights::Shape;

namespace {

constexpr uint64_t kHeaderBytes = 7 * sizeof(int32_t);
constexpr const char *kFieldNames[7] = {"dim",     "hidden_dim", "n_layers",
                                        "n_heads", "n_kv_heads", "vocab_size",
                                        "seq_len"};
enum Field { kDim, kHidden, kLayers, kHeads, kKVHeads, kVocab, kSeqLen };

/// The tensors after the header, in file order.
std::vector<std::pair<const char *, Shape>>
tensorLayout(const std::array<int64_t, 7> &h) {
  int64_t dim = h[kDim], layers = h[kLayers], hidden = h[kHidden];
  int64_t headSize = dim / h[kHeads];
  int64_t qDim = h[kHeads] * headSize, kvDim = h[kKVHeads] * headSize;
  int64_t vocab = std::llabs(h[kVocab]);
  std::vector<std::pair<const char *, Shape>> layout = {
      {"token_embedding_table", {vocab, dim}},
      {"rms_att_weight", {layers, dim}},
      {"wq", {layers, qDim, dim}},
      {"wk", {layers, kvDim, dim}},
      {"wv", {layers, kvDim, dim}},
      {"wo", {layers, dim, qDim}},
      {"rms_ffn_weight", {layers, dim}},
      {"w1", {layers, hidden, dim}},
      {"w2", {layers, dim, hidden}},
      {"w3", {layers, hidden, dim}},
      {"rms_final_weight", {dim}},
      // The legacy RoPE tables [seq_len, head_size / 2].
      {"freq_cis_real", {h[kSeqLen], headSize / 2}},
      {"freq_cis_imag", {h[kSeqLen], headSize / 2}},
  };
  if (h[kVocab] < 0)
    layout.push_back({"wcls", {vocab, dim}});
  return layout;
}

} // namespace

Llama2cCheckpoint::Llama2cCheckpoint(std::string path)
    : path_(std::move(path)), table_("llama2.c checkpoint '" + path_ + "'") {}

llvm::Expected<std::unique_ptr<Llama2cCheckpoint>>
Llama2cCheckpoint::open(const std::string &path) {
  auto file = mapFile(path, "llama2.c checkpoint");
  if (!file)
    return file.takeError();
  std::shared_ptr<llvm::MemoryBuffer> buffer = std::move(*file);
  std::string name = "llama2.c checkpoint '" + path + "'";
  uint64_t size = buffer->getBufferSize();
  if (size < kHeaderBytes)
    return llvm::createStringError(name + " has " + llvm::Twine(size) +
                                   " bytes, too few for its 28-byte header");
  std::unique_ptr<Llama2cCheckpoint> checkpoint(new Llama2cCheckpoint(path));
  std::array<int64_t, 7> &h = checkpoint->header_;
  for (int i = 0; i < 7; ++i)
    h[i] = static_cast<int32_t>(
        llvm::support::endian::read32le(buffer->getBufferStart() + 4 * i));
  for (int i = 0; i < 7; ++i) {
    bool valid = i == kVocab ? h[i] != 0 : h[i] > 0;
    if (!valid)
      return llvm::createStringError(
          name + " has invalid header field " + kFieldNames[i] + " = " +
          llvm::Twine(h[i]) + " (must be " +
          (i == kVocab ? "non-zero" : "positive") + ")");
  }
  // The tensor sizes are multiples of the head size.
  if (h[kDim] % h[kHeads] != 0)
    return llvm::createStringError(name + ": dim " + llvm::Twine(h[kDim]) +
                                   " is not divisible by n_heads " +
                                   llvm::Twine(h[kHeads]));
  if (h[kHeads] % h[kKVHeads] != 0)
    return llvm::createStringError(
        name + ": n_heads " + llvm::Twine(h[kHeads]) +
        " is not divisible by n_kv_heads " + llvm::Twine(h[kKVHeads]));
  // The format stores RoPE tables of head_size / 2 columns.
  if ((h[kDim] / h[kHeads]) % 2 != 0)
    return llvm::createStringError(name + ": head size " +
                                   llvm::Twine(h[kDim] / h[kHeads]) +
                                   " must be even for rotary embeddings");

  uint64_t offset = kHeaderBytes;
  for (auto &[tensor, shape] : tensorLayout(h)) {
    uint64_t count = weights::numElements(shape);
    uint64_t bytes = weights::storageBytes(ElementType::F32, count);
    uint64_t end = bytes > UINT64_MAX - offset ? UINT64_MAX : offset + bytes;
    if (end > size)
      return llvm::createStringError(
          name + " is truncated: tensor '" + tensor + "' needs bytes [" +
          llvm::Twine(offset) + ", " + llvm::Twine(end) +
          ") but the file has " + llvm::Twine(size) + " bytes");
    weights::TensorView view(ElementType::F32, shape,
                             buffer->getBufferStart() + offset, buffer);
    checkpoint->table_.add({tensor, shape, name, std::move(view), ""});
    offset = end;
  }
  if (offset != size)
    return llvm::createStringError(
        name + " has " + llvm::Twine(size - offset) +
        " trailing bytes after the last tensor (the header describes " +
        llvm::Twine(offset) + " bytes, the file has " + llvm::Twine(size) +
        ")");
  return checkpoint;
}

std::string Llama2cCheckpoint::describe() const {
  return "llama2.c checkpoint '" + path_ + "'";
}

llvm::Error Llama2cCheckpoint::missingField(llvm::StringRef key) const {
  return llvm::createStringError(describe() + " has no header field '" + key +
                                 "'");
}

bool Llama2cCheckpoint::isSet(llvm::StringRef key) const {
  return key == "shared_classifier" || llvm::is_contained(kFieldNames, key);
}

llvm::Expected<int64_t>
Llama2cCheckpoint::positive(llvm::StringRef key,
                            std::optional<int64_t> fallback) const {
  for (int i = 0; i < 7; ++i)
    if (key == kFieldNames[i])
      return std::llabs(header_[i]); // vocab_size's sign is a flag
  if (fallback)
    return *fallback;
  return missingField(key);
}

llvm::Expected<int64_t>
Llama2cCheckpoint::nonNegative(llvm::StringRef key,
                               std::optional<int64_t> fallback) const {
  return positive(key, fallback); // the header's fields are sizes
}

llvm::Expected<double>
Llama2cCheckpoint::positiveReal(llvm::StringRef key,
                                std::optional<double> fallback) const {
  if (fallback)
    return *fallback;
  return missingField(key);
}

llvm::Expected<std::string>
Llama2cCheckpoint::string(llvm::StringRef key,
                          std::optional<std::string> fallback) const {
  if (fallback)
    return *fallback;
  return missingField(key);
}

llvm::Expected<bool> Llama2cCheckpoint::flag(llvm::StringRef key,
                                             bool fallback) const {
  if (key == "shared_classifier")
    return header_[kVocab] > 0;
  return fallback;
}
