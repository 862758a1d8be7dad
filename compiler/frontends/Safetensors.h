//===- Safetensors.h - Read tensors from a .safetensors file ---------------===//
//
// A .safetensors file is an 8-byte little-endian header length, a JSON header
// mapping tensor names to {dtype, shape, data_offsets: [begin, end]} (offsets
// relative to the end of the header), and the raw little-endian data.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_FRONTENDS_SAFETENSORS_H
#define TFMC_COMPILER_FRONTENDS_SAFETENSORS_H

#include "compiler/frontends/ModelSpec.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace tfmc::frontends {

/// One tensor's header entry; offsets are absolute within the file.
struct SafetensorsEntry {
  std::string dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0;
  uint64_t end = 0;
};

class SafetensorsFile {
public:
  /// Maps `path` and validates the whole header: every entry's offsets lie
  /// inside the file and match its dtype and shape.
  static llvm::Expected<SafetensorsFile> open(const std::string &path);

  const std::string &path() const { return filePath; }
  /// Tensor names in sorted order.
  std::vector<std::string> names() const;
  bool contains(llvm::StringRef name) const { return entries.count(name); }
  const SafetensorsEntry *find(llvm::StringRef name) const;

  /// Reads `name` widened to f32 (F32, F16 and BF16 sources); errors on a
  /// missing tensor or another dtype.
  llvm::Expected<WeightTensor> read(llvm::StringRef name) const;
  /// As read(), and also requires the shape `shape`.
  llvm::Expected<WeightTensor> read(llvm::StringRef name,
                                    const std::vector<int64_t> &shape) const;

private:
  std::string filePath;
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  llvm::StringMap<SafetensorsEntry> entries;
};

} // namespace tfmc::frontends

#endif // TFMC_COMPILER_FRONTENDS_SAFETENSORS_H
