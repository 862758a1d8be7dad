//===- WeightLayout.h - Where each weight lives in the weights blob -------===//
//
// The one definition of the blob layout: the lowering turns `tfm.weight` into
// views at these offsets and the package writer writes the tensors at the
// same ones. Reads the module's `tfm.global_weight` declarations, so unlike
// the rest of compiler/weights it links MLIR (library TfmWeightLayout).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_WEIGHTS_WEIGHTLAYOUT_H
#define TFMC_COMPILER_WEIGHTS_WEIGHTLAYOUT_H

#include "compiler/weights/ElementType.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tfm {

struct WeightSlot {
  std::string name;
  std::vector<int64_t> shape;
  /// The declared element type; empty for a type the blob cannot hold.
  std::optional<tfmc::weights::ElementType> elementType;
  uint64_t offset = 0; ///< bytes from the start of the blob
  uint64_t bytes = 0;
  /// Model tensors stacked along dimension 0 to form this weight; empty when
  /// the weight is the model tensor `name` itself.
  std::vector<std::string> stacked;
  /// Stored as column panels `[P, columns, W]` of the `[rows, columns]`
  /// matrix (see tfm.global_weight and compiler/weights/Panels.h): element
  /// [p, k, j] is row p * W + j.
  bool panels = false;
  /// "q8_0" / "q4_0" / "kquant" / "kquant4" for block-quantized panels
  /// (tfm.global_weight's `block_quant`, compiler/weights/BlockPanels.h and
  /// KQuantPanels.h): the i8 quants of the matrix, or with `blockScales`
  /// its scales, with `blockMins` its block minimums. Empty otherwise.
  std::string blockQuant;
  bool blockScales = false;
  bool blockMins = false;
};

struct WeightLayout {
  /// Every tensor starts at a multiple of this, so vector loads stay aligned.
  static constexpr uint64_t kAlignment = 64;

  std::vector<WeightSlot> slots; ///< in declaration order
  llvm::StringMap<size_t> index; ///< name -> position in `slots`
  uint64_t totalBytes = 0;
  /// FNV-1a over names, shapes and offsets: the executable refuses a blob
  /// written for another layout.
  uint64_t hash = 0;

  const WeightSlot *lookup(llvm::StringRef name) const {
    auto it = index.find(name);
    return it == index.end() ? nullptr : &slots[it->second];
  }
};

/// Lays out the module's `tfm.global_weight` declarations in order.
WeightLayout computeWeightLayout(ModuleOp module);

} // namespace mlir::tfm

#endif // TFMC_COMPILER_WEIGHTS_WEIGHTLAYOUT_H
