//===- WeightLayout.cpp - Where each weight lives in the weights blob -----===//
#include "compiler/weights/WeightLayout.h"

#include "dialect/TfmOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tfm;
using tfmc::weights::ElementType;

namespace {
/// 64-bit FNV-1a, fed field by field.
class Fnv1a {
public:
  void add(const void *data, size_t size) {
    const auto *bytes = static_cast<const uint8_t *>(data);
    for (size_t i = 0; i < size; ++i) {
      hash ^= bytes[i];
      hash *= 0x100000001b3ULL;
    }
  }
  void add(uint64_t value) { add(&value, sizeof(value)); }
  uint64_t value() const { return hash; }

private:
  uint64_t hash = 0xcbf29ce484222325ULL;
};

std::optional<ElementType> blobElementType(Type type) {
  if (type.isF32())
    return ElementType::F32;
  if (type.isF16())
    return ElementType::F16;
  if (type.isBF16())
    return ElementType::BF16;
  return std::nullopt;
}
} // namespace

WeightLayout mlir::tfm::computeWeightLayout(ModuleOp module) {
  WeightLayout layout;
  Fnv1a hash;
  uint64_t offset = 0;
  for (auto global : module.getOps<GlobalWeightOp>()) {
    auto type = cast<RankedTensorType>(global.getType());
    WeightSlot slot;
    slot.name = global.getSymName().str();
    slot.shape.assign(type.getShape().begin(), type.getShape().end());
    slot.elementType = blobElementType(type.getElementType());
    slot.offset = llvm::alignTo(offset, WeightLayout::kAlignment);
    uint64_t count = type.getNumElements();
    slot.bytes =
        slot.elementType
            ? tfmc::weights::storageBytes(*slot.elementType, count)
            : llvm::divideCeil(count * type.getElementTypeBitWidth(), 8);
    offset = slot.offset + slot.bytes;
    if (auto stacked = global.getStacked())
      for (llvm::StringRef part : stacked->getAsValueRange<StringAttr>())
        slot.stacked.push_back(part.str());
    if (WeightLayoutAttrInterface layout = global.getLayoutAttr()) {
      slot.panels = layout.getPanelLayout();
      slot.blockRows = layout.getBlockRows();
    }

    hash.add(slot.name.data(), slot.name.size());
    for (int64_t extent : slot.shape)
      hash.add(static_cast<uint64_t>(extent));
    hash.add(slot.offset);
    for (const std::string &part : slot.stacked)
      hash.add(part.data(), part.size());
    hash.add(static_cast<uint64_t>(slot.panels.has_value()));
    // f32, the only type before element types were recorded, adds nothing,
    // so the layouts (and packages) of f32 models keep their hashes.
    if (slot.elementType != ElementType::F32)
      hash.add(slot.elementType ? 1 + static_cast<uint64_t>(*slot.elementType)
                                : 0xff);

    // A block format's name and part; the value panels add nothing (their
    // element type is the slot's), so that layouts keep their hashes.
    if (slot.panels && tfmc::weights::isBlockFormat(slot.panels->format)) {
      StringRef format = stringifyPanelFormat(slot.panels->format);
      hash.add(format.data(), format.size());
      hash.add(static_cast<uint64_t>(slot.panels->part ==
                                     tfmc::weights::PanelPart::scales));
      // Added only when set, so that Q8_0 / Q4_0 layouts keep their hashes.
      if (slot.panels->part == tfmc::weights::PanelPart::mins)
        hash.add(uint64_t(2));
      if (slot.panels->part == tfmc::weights::PanelPart::factors)
        hash.add(uint64_t(3));
    }

    // Added only when set, so that the other layouts keep their hashes.
    if (slot.blockRows) {
      StringRef rows = tfmc::weights::elementTypeName(*slot.blockRows);
      hash.add("block_rows", 10);
      hash.add(rows.data(), rows.size());
    }

    layout.index[slot.name] = layout.slots.size();
    layout.slots.push_back(std::move(slot));
  }
  layout.totalBytes = llvm::alignTo(offset, WeightLayout::kAlignment);
  hash.add(layout.totalBytes);
  layout.hash = hash.value();
  return layout;
}
