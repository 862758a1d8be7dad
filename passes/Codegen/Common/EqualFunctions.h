//===- EqualFunctions.h - The functions a dedup pass keeps ------*- C++ -*-===//
//
// tfm-gpu-dedup-kernels and tfm-cpu-dedup-kernels both keep the first of
// each set of equal functions. Most functions differ in signature or size,
// so the kept ones are bucketed by both, and only a function's own bucket
// is compared op by op.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_CODEGEN_COMMON_EQUALFUNCTIONS_H
#define TFMC_PASSES_CODEGEN_COMMON_EQUALFUNCTIONS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::tfm {

template <typename FunctionT> class EqualFunctions {
public:
  /// The kept function that `equal` says is equal to `candidate`, or null
  /// after keeping `candidate`.
  FunctionT findOrKeep(FunctionT candidate,
                       llvm::function_ref<bool(FunctionT, FunctionT)> equal) {
    size_t size = 0;
    candidate->walk([&](Operation *) { ++size; });
    auto &bucket = kept[{candidate.getFunctionType(), size}];
    for (FunctionT function : bucket)
      if (equal(function, candidate))
        return function;
    bucket.push_back(candidate);
    return {};
  }

private:
  llvm::DenseMap<std::pair<Type, size_t>, llvm::SmallVector<FunctionT>> kept;
};

} // namespace mlir::tfm

#endif // TFMC_PASSES_CODEGEN_COMMON_EQUALFUNCTIONS_H
