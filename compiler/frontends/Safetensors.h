//===- Safetensors.h - Tensors of .safetensors files ------------*- C++ -*-===//
//
// A .safetensors file is an 8-byte little-endian header length, a JSON header
// mapping tensor names to {dtype, shape, data_offsets: [begin, end]} (offsets
// relative to the end of the header), and the raw little-endian data. A
// checkpoint is one model.safetensors or the shards that
// model.safetensors.index.json names.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_FRONTENDS_SAFETENSORS_H
#define TFMC_COMPILER_FRONTENDS_SAFETENSORS_H

#include "compiler/spec/TensorTable.h"

#include "llvm/Support/Error.h"

#include <string>

namespace tfmc::frontends {

/// Adds the tensors of the .safetensors file at `path` to `table`, sorted by
/// name, after validating its whole header: every entry's offsets lie inside
/// the file and match its dtype and shape. F32, F16 and BF16 tensors get
/// views; other dtypes are unreadable.
llvm::Error addSafetensorsFile(const std::string &path, TensorTable &table);

/// The tensors of the checkpoint in the Hugging Face directory `directory`:
/// model.safetensors, else the shards of model.safetensors.index.json.
llvm::Expected<TensorTable>
openSafetensorsCheckpoint(const std::string &directory);

} // namespace tfmc::frontends

#endif // TFMC_COMPILER_FRONTENDS_SAFETENSORS_H
