//===- SlotContents.cpp - The bytes of each weight slot of the blob -------===//
#include "compiler/weights/SlotContents.h"

#include "compiler/weights/BlockPanels.h"
#include "compiler/weights/KQuantPanels.h"
#include "compiler/weights/Panels.h"
#include "compiler/weights/Transforms.h"

#include <cstdio>

using namespace tfmc;
using namespace tfmc::weights;

/// Model tensors unpacked from their k-quant super-blocks, stacked.
struct tfmc::weights::UnpackedKQuants {
  std::vector<std::string> names;
  /// Sub-blocks per row the rows were unpacked in.
  int64_t blocks = 0;
  KQuantRows rows;
};

/// The model weights a slot holds: those it stacks, or the one it names.
static std::vector<std::string> sourceNames(const mlir::tfm::WeightSlot &slot) {
  if (slot.stacked.empty())
    return {slot.name};
  return slot.stacked;
}

/// The model's weight `name`, or an error when the network reads a weight
/// the model does not provide.
static llvm::Expected<const Weight *> findModelWeight(const ModelWeights &model,
                                                      const std::string &name) {
  auto found = model.byName.find(name);
  if (found == model.byName.end())
    return llvm::createStringError("the network reads weight '" + name +
                                   "' that the model does not provide");
  return &found->second;
}

/// An error naming model weight `name` when `tensor` (its bytes as stored
/// or as converted) holds a NaN or an infinity, or a block scale that is
/// one: the network would carry it into every logit. Every path that
/// writes weight bytes out runs it, on the bytes it writes.
static llvm::Error checkFinite(const ModelWeights &model,
                               const std::string &name, const Weight &weight,
                               const TensorView &tensor) {
  std::optional<uint64_t> index = findNonFinite(tensor);
  if (!index)
    return llvm::Error::success();
  std::string what =
      isBlockQuantized(tensor.type())
          ? "a block scale of " +
                std::to_string(elementAsFloat(tensor, *index)) + " at element "
          : std::to_string(elementAsFloat(tensor, *index)) + " at element ";
  std::string tensorName = weight.origin().empty() || weight.origin() == name
                               ? ""
                               : " (tensor '" + weight.origin() + "')";
  return llvm::createStringError(
      model.description + ": weight '" + name + "'" + tensorName + " holds " +
      what + std::to_string(*index) + " of its " +
      elementTypeName(tensor.type()) + " " + shapeString(tensor.shape()));
}

/// Warns (in `model.warnings`) about model weight `name` when `tensor`,
/// its finite bytes, holds a value of magnitude 2^64 or more: the product
/// of two of them overflows f32, so the network's arithmetic likely does.
/// A warning, not an error: a norm may tame it (an embedding table of such
/// values normalised at once), and the binary stops with an error when its
/// logits are not finite.
static void checkMagnitude(const ModelWeights &model, const std::string &name,
                           const Weight &weight, const TensorView &tensor) {
  if (!model.warnings)
    return;
  std::optional<uint64_t> index = findBeyond2To64(tensor);
  if (!index)
    return;
  std::string tensorName = weight.origin().empty() || weight.origin() == name
                               ? ""
                               : " (tensor '" + weight.origin() + "')";
  char value[32];
  std::snprintf(value, sizeof(value), "%g", elementAsFloat(tensor, *index));
  model.warnings->insert(
      model.description.str() + ": weight '" + name + "'" + tensorName +
      " holds " + value + " at element " + std::to_string(*index) + " of its " +
      elementTypeName(tensor.type()).str() + " " + shapeString(tensor.shape()) +
      ": products of values beyond 2^64 overflow 32-bit floats, so the "
      "model's arithmetic likely does (the binary stops with an error when "
      "its logits are not finite)");
}

/// checkFinite and checkMagnitude in one pass over the bytes when nothing
/// is wrong: an infinity or a NaN is beyond 2^64 too, so an f32 or bf16
/// tensor with nothing beyond 2^64 is finite.
static llvm::Error checkValues(const ModelWeights &model,
                               const std::string &name, const Weight &weight,
                               const TensorView &tensor) {
  bool screens =
      tensor.type() == ElementType::F32 || tensor.type() == ElementType::BF16;
  if (screens && !findBeyond2To64(tensor))
    return llvm::Error::success();
  if (llvm::Error error = checkFinite(model, name, weight, tensor))
    return error;
  checkMagnitude(model, name, weight, tensor);
  return llvm::Error::success();
}

/// The bytes of `slot`: its model weights (several when stacked) in the
/// slot's element type, stacked, and packed into panels when it is value
/// panels.
static llvm::Expected<TensorView>
materializeTensorSlot(const mlir::tfm::WeightSlot &slot,
                      const ModelWeights &model) {
  auto fail = [&](const llvm::Twine &what) {
    return llvm::createStringError("weight '" + slot.name + "' " + what);
  };
  auto because = [&](llvm::Error error) {
    return llvm::createStringError("weight '" + slot.name +
                                   "': " + llvm::toString(std::move(error)));
  };
  if (!slot.elementType)
    return fail("has an element type the weights blob cannot hold");
  std::vector<TensorView> parts;
  for (const std::string &name : sourceNames(slot)) {
    auto weight = findModelWeight(model, name);
    if (!weight)
      return weight.takeError();
    auto part = (*weight)->materialize(*slot.elementType);
    if (!part)
      return because(part.takeError());
    // The scans ride on the pass that writes these bytes out anyway.
    if (llvm::Error error = checkValues(model, name, **weight, *part))
      return std::move(error);
    parts.push_back(std::move(*part));
  }
  auto tensor = stack(parts);
  if (!tensor)
    return because(tensor.takeError());
  if (slot.panels) {
    if (tensor->rank() != 2 || tensor->shape()[1] != slot.shape[1])
      return fail("is a " + shapeString(tensor->shape()) +
                  " tensor, not a matrix of " + llvm::Twine(slot.shape[1]) +
                  " columns");
    tensor = packPanels(*tensor, slot.shape[0], slot.shape[2]);
    if (!tensor)
      return because(tensor.takeError());
  }
  if (tensor->numElements() != numElements(slot.shape))
    return fail("has " + llvm::Twine(tensor->numElements()) +
                " elements but the network expects " +
                llvm::Twine(numElements(slot.shape)));
  return tensor;
}

/// The packed `bytes` of `slot`, when there are as many as its layout
/// gives it.
static llvm::Expected<std::string>
slotSized(const mlir::tfm::WeightSlot &slot,
          llvm::Expected<std::string> bytes) {
  if (!bytes)
    return llvm::createStringError("weight '" + slot.name +
                                   "': " + llvm::toString(bytes.takeError()));
  if (bytes->size() != slot.bytes)
    return llvm::createStringError(
        "weight '" + slot.name + "' has " + llvm::Twine(bytes->size()) +
        " bytes but the network expects " + llvm::Twine(slot.bytes));
  return std::move(*bytes);
}

/// The model tensors `slot` stacks as one matrix of `format`'s blocks
/// (Q8_0, Q4_0, or a k-quant that must be stored so): each kept as stored
/// when the file holds it in `format`, else quantized from f32
/// (compiler/weights/BlockPanels.h).
static llvm::Expected<TensorView>
stackedBlocks(const mlir::tfm::WeightSlot &slot, const ModelWeights &model,
              ElementType format) {
  auto because = [&](llvm::Error error) {
    return llvm::createStringError("weight '" + slot.name +
                                   "': " + llvm::toString(std::move(error)));
  };
  std::vector<TensorView> parts;
  for (const std::string &name : sourceNames(slot)) {
    auto found = findModelWeight(model, name);
    if (!found)
      return found.takeError();
    const Weight &weight = **found;
    if (weight.source().type() == format && weight.steps().empty()) {
      if (llvm::Error error = checkFinite(model, name, weight, weight.source()))
        return std::move(error);
      parts.push_back(weight.source());
      continue;
    }
    if (format != ElementType::Q8_0 && format != ElementType::Q4_0)
      return because(llvm::createStringError(
          "tensor '" + name + "' is not stored as " + elementTypeName(format) +
          ", which tfmc keeps but cannot make"));
    auto wide = weight.materialize(ElementType::F32);
    if (!wide)
      return because(wide.takeError());
    if (llvm::Error error = checkValues(model, name, weight, *wide))
      return std::move(error);
    auto blocks = quantizeRows(*wide, format);
    if (!blocks)
      return llvm::createStringError(
          "weight '" + name + "': " + llvm::toString(blocks.takeError()));
    parts.push_back(std::move(*blocks));
  }
  auto matrix = stack(parts);
  if (!matrix)
    return because(matrix.takeError());
  return matrix;
}

/// The bytes of a block-quantized panel slot (quants or scales) of the
/// model tensors it stacks (stackedBlocks).
static llvm::Expected<std::string>
materializeBlockSlot(const mlir::tfm::WeightSlot &slot,
                     const ModelWeights &model) {
  PanelLayout layout = *slot.panels;
  // The GGUF blocks the panels hold (Q8_0 for q8_0 and q8_0x4, Q4_0 for
  // q4_0 and q4_0x4).
  ElementType format = *panelElementType(layout.format);
  auto matrix = stackedBlocks(slot, model, format);
  if (!matrix)
    return matrix.takeError();
  // q8_0x4 and q4_0x4 quants hold four bytes of a row in each i32 lane.
  bool scales = layout.part == PanelPart::scales;
  int64_t bytesPerLane = scales ? 1 : quantBits(layout.format) / 8;
  return slotSized(slot,
                   packBlockPanels(*matrix, slot.shape.front(),
                                   slot.shape.back(), scales, bytesPerLane));
}

/// The bytes of a k-quant panel slot (quants, scales, mins or factors):
/// each model tensor it stacks unpacked from its Q4_K, Q5_K or Q6_K
/// super-blocks (compiler/weights/KQuantPanels.h). The second dimension of
/// a quants, scales or mins slot is the blocks per row; a factors slot's
/// counts super-blocks, whose factors do not depend on the blocks: it takes
/// the rows its matrix's other slots unpacked, or unpacks them in blocks
/// of 16, which every k-quant's sub-blocks are made of.
static llvm::Expected<std::string>
materializeKQuantSlot(const mlir::tfm::WeightSlot &slot,
                      const ModelWeights &model) {
  auto because = [&](llvm::Error error) {
    return llvm::createStringError("weight '" + slot.name +
                                   "': " + llvm::toString(std::move(error)));
  };
  PanelLayout layout = *slot.panels;
  bool factors = layout.part == PanelPart::factors;
  std::vector<std::string> names = sourceNames(slot);
  int64_t blocks = slot.shape[1];
  const std::shared_ptr<UnpackedKQuants> &last = model.lastUnpacked;
  if (!last || last->names != names || (!factors && last->blocks != blocks)) {
    auto unpacked = std::make_shared<UnpackedKQuants>();
    unpacked->names = names;
    KQuantRows &rows = unpacked->rows;
    for (const std::string &name : names) {
      auto found = findModelWeight(model, name);
      if (!found)
        return found.takeError();
      const Weight &weight = **found;
      const TensorView &source = weight.source();
      if (!weight.steps().empty() || source.rank() != 2)
        return because(llvm::createStringError("tensor '" + name +
                                               "' is not used as stored"));
      if (llvm::Error error = checkFinite(model, name, weight, source))
        return std::move(error);
      if (rows.columns == 0) {
        rows.columns = source.shape()[1];
        rows.subBlock =
            factors ? 16 : rows.columns / std::max<int64_t>(1, blocks);
      }
      if (llvm::Error error = appendKQuantRows(source, rows))
        return because(llvm::createStringError(
            "tensor '" + name + "': " + llvm::toString(std::move(error))));
    }
    unpacked->blocks = rows.columns / std::max<int64_t>(1, rows.subBlock);
    model.lastUnpacked = std::move(unpacked);
  }
  const KQuantRows &rows = model.lastUnpacked->rows;
  // kquantx4 and kquant4x4 keep GGUF's integer scales and minimums.
  bool integers = hasSuperBlockFactors(layout.format);
  KQuantPart part = KQuantPart::Quants;
  switch (layout.part) {
  case PanelPart::quants:
    part = holdsKQuantBytes(layout.format) ? KQuantPart::Quants
                                           : KQuantPart::Nibbles;
    break;
  case PanelPart::scales:
    part = integers ? KQuantPart::SubScales : KQuantPart::Scales;
    break;
  case PanelPart::mins:
    part = integers ? KQuantPart::SubMins : KQuantPart::Mins;
    break;
  case PanelPart::factors:
    part = slot.shape.size() == 4 && slot.shape[2] == 2
               ? KQuantPart::ScaleAndMinFactors
               : KQuantPart::ScaleFactors;
    break;
  }
  // kquantx4 and kquant4x4 quants hold four bytes of a row in each i32 lane.
  return slotSized(slot,
                   packKQuantPanels(rows, slot.shape.front(), slot.shape.back(),
                                    part, quantBits(layout.format) / 8,
                                    quantBias(layout.format)));
}

/// The bytes of a block-rows slot: the model tensors it stacks as GGUF
/// stores them in the slot's block type, row by row.
static llvm::Expected<SlotContents>
materializeBlockRowsSlot(const mlir::tfm::WeightSlot &slot,
                         const ModelWeights &model) {
  auto matrix = stackedBlocks(slot, model, *slot.blockRows);
  if (!matrix)
    return matrix.takeError();
  if (matrix->bytes() != slot.bytes)
    return llvm::createStringError(
        "weight '" + slot.name + "' has " + llvm::Twine(matrix->bytes()) +
        " bytes but the network expects " + llvm::Twine(slot.bytes));
  return SlotContents(std::move(*matrix));
}

llvm::Expected<SlotContents>
weights::materializeSlot(const mlir::tfm::WeightSlot &slot,
                         const ModelWeights &model) {
  if (slot.blockRows)
    return materializeBlockRowsSlot(slot, model);
  if (!slot.panels || !isBlockFormat(slot.panels->format)) {
    auto tensor = materializeTensorSlot(slot, model);
    if (!tensor)
      return tensor.takeError();
    return SlotContents(std::move(*tensor));
  }
  // The k-quant layouts unpack several block types; the others hold one
  // GGUF block type's bytes.
  auto bytes = panelElementType(slot.panels->format)
                   ? materializeBlockSlot(slot, model)
                   : materializeKQuantSlot(slot, model);
  if (!bytes)
    return bytes.takeError();
  return SlotContents(std::move(*bytes));
}
