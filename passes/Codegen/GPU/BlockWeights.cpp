//===- BlockWeights.cpp - #tfm_gpu.blocks and tfm_gpu.dequantize ----------===//
//
// A matrix the model file stores in GGUF's Q8_0 or Q4_0 blocks stays in
// them on the GPU: its declarations and the op that reads them.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/GPU/KernelConfig.h"

#include "compiler/weights/BlockPanels.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::tfm;
using tfmc::weights::PanelFormat;
using tfmc::weights::PanelPart;

#define GET_OP_CLASSES
#include "passes/Codegen/GPU/TfmGpuOps.cpp.inc"

//===----------------------------------------------------------------------===//
// #tfm_gpu.blocks
//===----------------------------------------------------------------------===//

/// Whether the GPU keeps matrices of `format` in their blocks.
static bool isGpuBlockFormat(PanelFormat format) {
  return format == PanelFormat::q8_0 || format == PanelFormat::q4_0 ||
         format == PanelFormat::kquant || format == PanelFormat::kquant4;
}

Type GpuBlocksAttr::getScaleType(MLIRContext *context, PanelFormat format) {
  if (tfmc::weights::hasMins(format))
    return Float32Type::get(context);
  return Float16Type::get(context);
}

/// The quant bytes a block of `format` may have: Q8_0's 32, Q4_0's and
/// kquant4's 16 (nibbles), kquant's 16 or 32.
static SmallVector<int64_t> quantsPerBlock(PanelFormat format) {
  if (format == PanelFormat::kquant)
    return {16, 32};
  return {tfmc::weights::kQuantBlock / tfmc::weights::valuesPerQuant(format)};
}

LogicalResult
GpuBlocksAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      PanelFormat format, PanelPart part) {
  if (!isGpuBlockFormat(format))
    return emitError() << "the GPU keeps q8_0, q4_0, kquant and kquant4 "
                          "blocks, not "
                       << stringifyEnum(format);
  bool mins = part == PanelPart::mins && tfmc::weights::hasMins(format);
  if (part != PanelPart::quants && part != PanelPart::scales && !mins)
    return emitError() << stringifyEnum(format) << " blocks have "
                       << (tfmc::weights::hasMins(format)
                               ? "quants, scales and mins"
                               : "quants and scales")
                       << ", not " << stringifyEnum(part);
  return success();
}

std::optional<tfmc::weights::PanelLayout>
GpuBlocksAttr::getPanelLayout() const {
  // Panels of one row: the package writer's block panels.
  return tfmc::weights::PanelLayout{getFormat(), getPart()};
}

LogicalResult GpuBlocksAttr::verifyDeclaredType(
    RankedTensorType type, function_ref<InFlightDiagnostic()> emitError) const {
  StringRef format = stringifyEnum(getFormat());
  if (getPart() != PanelPart::quants) {
    Type element = getScaleType(getContext(), getFormat());
    if (type.getRank() != 3 || type.getElementType() != element ||
        type.getDimSize(2) != 1)
      return emitError() << format << " block " << stringifyEnum(getPart())
                         << " are [rows, blocks, 1] "
                         << (element.isF32() ? "f32" : "f16")
                         << " tensors, got " << type;
    return success();
  }
  SmallVector<int64_t> quants = quantsPerBlock(getFormat());
  if (type.getRank() != 4 || !type.getElementType().isInteger(8) ||
      !llvm::is_contained(quants, type.getDimSize(2)) ||
      type.getDimSize(3) != 1) {
    InFlightDiagnostic diagnostic = emitError();
    diagnostic << format << " block quants are [rows, blocks, ";
    llvm::interleave(quants, diagnostic, " or ");
    return diagnostic << ", 1] i8 tensors, got " << type;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// tfm_gpu.dequantize
//===----------------------------------------------------------------------===//

int64_t DequantizeOp::getValuesPerByte() {
  return tfmc::weights::valuesPerQuant(getFormat());
}

int64_t DequantizeOp::getBlockValues() {
  auto quants = cast<RankedTensorType>(getQuants().getType());
  return quants.getDimSize(2) * getValuesPerByte();
}

LogicalResult DequantizeOp::verify() {
  PanelFormat format = getFormat();
  if (!isGpuBlockFormat(format))
    return emitOpError("reads q8_0, q4_0, kquant or kquant4 blocks, not ")
           << stringifyEnum(format);
  auto emit = [&]() { return emitOpError(); };
  auto declared = [&](Value value, PanelPart part) {
    return GpuBlocksAttr::get(getContext(), format, part)
        .verifyDeclaredType(cast<RankedTensorType>(value.getType()), emit);
  };
  if (failed(declared(getQuants(), PanelPart::quants)) ||
      failed(declared(getScales(), PanelPart::scales)))
    return failure();
  if (getMins()) {
    if (!tfmc::weights::hasMins(format))
      return emitOpError("reads ")
             << stringifyEnum(format) << " blocks, which have no minimums";
    if (failed(declared(getMins(), PanelPart::mins)))
      return failure();
    if (getMins().getType() != getScales().getType())
      return emitOpError("has ") << getMins().getType() << " minimums for "
                                 << getScales().getType() << " scales";
  }
  auto quants = cast<RankedTensorType>(getQuants().getType());
  auto scales = cast<RankedTensorType>(getScales().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  int64_t rows = result.getDimSize(0), blocks = quants.getDimSize(1);
  if (quants.getDimSize(0) != rows || scales.getDimSize(0) != rows ||
      scales.getDimSize(1) != blocks ||
      result.getDimSize(1) != blocks * getBlockValues())
    return emitOpError("reads a ")
           << rows << "x" << result.getDimSize(1) << " matrix from " << quants
           << " quants and " << scales << " scales: each row is its blocks of "
           << getBlockValues() << " values";
  return success();
}
