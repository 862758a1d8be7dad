//===- Gguf.h - GGUF files: typed metadata and a tensor table ---*- C++ -*-===//
//
// GGUF (v2/v3, little-endian): magic "GGUF", version, tensor and metadata
// counts, typed key/value metadata, tensor infos (name, dims innermost-first,
// ggml type, offset), then the aligned data section. The metadata are the
// config keys (`llama.embedding_length`, ...); the tensors keep their GGUF
// names (`blk.0.attn_q.weight`) with shapes outermost first. F32, F16,
// BF16, Q8_0, Q4_0, Q4_K, Q5_K and Q6_K tensors get views (rows of whole
// blocks, checked); the other ggml types are recognised and reported as
// unsupported when a family takes them.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_FRONTENDS_GGUF_H
#define TFMC_COMPILER_FRONTENDS_GGUF_H

#include "compiler/spec/ConfigSource.h"
#include "compiler/spec/TensorTable.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace tfmc::frontends {

enum GgufValueType : uint32_t {
  kGgufUInt8 = 0,
  kGgufInt8 = 1,
  kGgufUInt16 = 2,
  kGgufInt16 = 3,
  kGgufUInt32 = 4,
  kGgufInt32 = 5,
  kGgufFloat32 = 6,
  kGgufBool = 7,
  kGgufString = 8,
  kGgufArray = 9,
  kGgufUInt64 = 10,
  kGgufInt64 = 11,
  kGgufFloat64 = 12,
};

/// "uint8", ..., "float64"; "unknown" beyond.
const char *ggufValueTypeName(uint32_t type);

/// One metadata value. Strings and arrays point into the mapped file (which
/// the GgufFile keeps): an array is its element type, count and bytes,
/// parsed on demand, so a file of millions of one-byte elements does not
/// become millions of GgufValues.
struct GgufValue {
  uint32_t type = kGgufUInt8;
  uint64_t uint = 0;
  int64_t sint = 0;
  double real = 0;
  llvm::StringRef string;
  uint32_t elementType = kGgufUInt8;
  uint64_t count = 0;
  llvm::StringRef elementBytes;

  /// Calls `fn` with each element of this array, in order (the elements
  /// were validated when the file was read).
  void forEachElement(llvm::function_ref<void(const GgufValue &)> fn) const;

  bool isInteger() const {
    return type <= kGgufInt32 || type == kGgufUInt64 || type == kGgufInt64;
  }
  bool isSigned() const {
    return type == kGgufInt8 || type == kGgufInt16 || type == kGgufInt32 ||
           type == kGgufInt64;
  }
  bool isReal() const { return type == kGgufFloat32 || type == kGgufFloat64; }
};

class GgufFile final : public ConfigSource {
public:
  /// Maps and parses `path`: header, metadata, tensor infos, and every
  /// tensor of a supported type aligned and inside the file.
  static llvm::Expected<std::unique_ptr<GgufFile>>
  open(const std::string &path);

  const std::string &path() const { return path_; }
  TensorTable &tensors() { return table_; }
  const GgufValue *find(llvm::StringRef key) const;

  /// The integer under `key`; `fallback` when absent, else an error.
  llvm::Expected<int64_t>
  integer(llvm::StringRef key,
          std::optional<int64_t> fallback = std::nullopt) const;
  /// The array under `key`, whose elements must be `elementType`.
  llvm::Expected<const GgufValue *> array(llvm::StringRef key,
                                          uint32_t elementType) const;

  std::string describe() const override;
  bool isSet(llvm::StringRef key) const override { return find(key); }
  llvm::Expected<int64_t>
  positive(llvm::StringRef key, std::optional<int64_t> fallback) const override;
  llvm::Expected<int64_t>
  nonNegative(llvm::StringRef key,
              std::optional<int64_t> fallback) const override;
  llvm::Expected<double>
  positiveReal(llvm::StringRef key,
               std::optional<double> fallback) const override;
  llvm::Expected<std::string>
  string(llvm::StringRef key,
         std::optional<std::string> fallback) const override;
  llvm::Expected<bool> flag(llvm::StringRef key, bool fallback) const override;
  std::optional<uint64_t> arraySize(llvm::StringRef key) const override;

private:
  explicit GgufFile(std::string path);
  llvm::Error readMetadata(class GgufByteReader &reader, uint64_t count);
  llvm::Error readTensors(GgufByteReader &reader, uint64_t count);
  /// The value of `key`: null when absent and `optional`, an error naming
  /// the file when absent and required.
  llvm::Expected<const GgufValue *> lookup(llvm::StringRef key,
                                           bool optional) const;
  llvm::Error wrongType(llvm::StringRef key, const GgufValue &value,
                        llvm::StringRef expected) const;

  std::string path_;
  std::shared_ptr<llvm::MemoryBuffer> buffer_;
  llvm::StringMap<GgufValue> metadata_;
  TensorTable table_;
};

} // namespace tfmc::frontends

#endif // TFMC_COMPILER_FRONTENDS_GGUF_H
