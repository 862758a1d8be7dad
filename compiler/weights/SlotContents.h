//===- SlotContents.h - The bytes of each weight slot of the blob ---------===//
//
// The blob layout (WeightLayout.h) says where each weight lies and in which
// element type and layout; this computes the bytes that go there, from the
// model's weights as the model file stores them: converted, stacked, packed
// into column panels, block-quantized or unpacked from k-quant super-blocks.
// The package writer writes them one slot at a time, so a compile holds one
// weight's scratch, never a copy of the model.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_WEIGHTS_SLOTCONTENTS_H
#define TFMC_COMPILER_WEIGHTS_SLOTCONTENTS_H

#include "compiler/weights/Weight.h"
#include "compiler/weights/WeightLayout.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace tfmc::weights {

struct UnpackedKQuants;

/// The model's weights by canonical name, and how errors name the model.
struct ModelWeights {
  const std::map<std::string, Weight> &byName;
  llvm::StringRef description;
  /// Where warnings about weights that compile but likely overflow go, one
  /// per weight (none: not checked).
  std::set<std::string> *warnings = nullptr;
  /// The k-quant tensors materializeSlot unpacked last: a weight's quants,
  /// scales and mins are three slots, one after the other, of one unpacking.
  mutable std::shared_ptr<UnpackedKQuants> lastUnpacked;
};

/// The bytes of one slot: a tensor (which may view the mapped model file)
/// or packed bytes of its own.
class SlotContents {
public:
  explicit SlotContents(TensorView tensor) : tensor(std::move(tensor)) {}
  explicit SlotContents(std::string bytes) : packed(std::move(bytes)) {}

  const char *data() const { return packed ? packed->data() : tensor.data(); }
  uint64_t size() const { return packed ? packed->size() : tensor.bytes(); }

private:
  TensorView tensor;
  std::optional<std::string> packed;
};

/// The bytes `slot` holds, computed from `model`'s weights. Fails, naming
/// the weight, when the model lacks a weight the network reads, when a
/// weight holds a NaN or an infinity, or when the bytes do not have the
/// slot's size.
llvm::Expected<SlotContents> materializeSlot(const mlir::tfm::WeightSlot &slot,
                                             const ModelWeights &model);

} // namespace tfmc::weights

#endif // TFMC_COMPILER_WEIGHTS_SLOTCONTENTS_H
