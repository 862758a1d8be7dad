//===- KVCacheType.h - The element type of the KV cache ---------*- C++ -*-===//
//
// `kv-cache=f32|f16` is one option under one name in tfmc's command line,
// tfm-transform-pipeline and tfm-kv-cache. Its values are this enum, parsed
// once by llvm::cl (an unknown name is rejected there), so no stage checks
// a string.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_TRANSFORMS_KVCACHETYPE_H
#define TFMC_PASSES_TRANSFORMS_KVCACHETYPE_H

#include "mlir/IR/BuiltinTypes.h"

#include "llvm/Support/CommandLine.h"

namespace mlir::tfm {

/// What the KV cache stores keys and values in.
enum class KVCacheType {
  f32,
  /// Rounded to nearest even as they are written, widened to f32 as
  /// attention reads them.
  f16,
};

/// The option's values, for every option that takes a KVCacheType.
inline llvm::cl::ValuesClass kvCacheTypeValues() {
  return llvm::cl::values(
      clEnumValN(KVCacheType::f32, "f32", "32-bit floats"),
      clEnumValN(KVCacheType::f16, "f16",
                 "16-bit floats (half the bytes; keys and values rounded)"));
}

/// The option value that names `type`.
inline StringRef kvCacheTypeName(KVCacheType type) {
  return type == KVCacheType::f16 ? "f16" : "f32";
}

/// Bytes per cached element.
inline int64_t kvCacheElementBytes(KVCacheType type) {
  return type == KVCacheType::f16 ? 2 : 4;
}

/// The cache tensor's element type.
inline Type kvCacheElementType(MLIRContext *context, KVCacheType type) {
  if (type == KVCacheType::f16)
    return Float16Type::get(context);
  return Float32Type::get(context);
}

} // namespace mlir::tfm

#endif // TFMC_PASSES_TRANSFORMS_KVCACHETYPE_H
