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
#include "compiler/weights/PanelLayout.h"

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
  /// For one of the panel declarations of the `[rows, columns]` matrix that
  /// a backend laid out (tfm.global_weight's `layout`, e.g. the CPU's
  /// `#tfm_cpu.panels<...>`): its format and part. Value panels
  /// `[P, columns, W]` hold row p * W + j, column k at [p, k, j]
  /// (Panels.h); block formats hold the quants, scales or minimums of its
  /// blocks (BlockPanels.h, KQuantPanels.h). None for a tensor stored as it
  /// is.
  std::optional<tfmc::weights::PanelLayout> panels;
  /// For a matrix a backend keeps as GGUF stores it (the Halide code
  /// generator's `#tfm_halide.block_rows<...>`): the block type whose
  /// bytes hold it, row by row. None otherwise.
  std::optional<tfmc::weights::ElementType> blockRows;
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
