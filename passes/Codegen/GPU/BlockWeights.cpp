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
  return format == PanelFormat::q8_0 || format == PanelFormat::q4_0;
}

LogicalResult
GpuBlocksAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      PanelFormat format, PanelPart part) {
  if (!isGpuBlockFormat(format))
    return emitError() << "the GPU keeps q8_0 and q4_0 blocks, not "
                       << stringifyEnum(format);
  if (part != PanelPart::quants && part != PanelPart::scales)
    return emitError() << stringifyEnum(format)
                       << " blocks have quants and scales, not "
                       << stringifyEnum(part);
  return success();
}

std::optional<tfmc::weights::PanelLayout>
GpuBlocksAttr::getPanelLayout() const {
  // Panels of one row: the package writer's Q8_0 / Q4_0 panels.
  return tfmc::weights::PanelLayout{getFormat(), getPart()};
}

LogicalResult GpuBlocksAttr::verifyDeclaredType(
    RankedTensorType type, function_ref<InFlightDiagnostic()> emitError) const {
  StringRef format = stringifyEnum(getFormat());
  if (getPart() == PanelPart::scales) {
    if (type.getRank() != 3 || !type.getElementType().isF16() ||
        type.getDimSize(2) != 1)
      return emitError() << format
                         << " block scales are [rows, blocks, 1] f16 tensors, "
                            "got "
                         << type;
    return success();
  }
  int64_t quants =
      tfmc::weights::kQuantBlock / tfmc::weights::valuesPerQuant(getFormat());
  if (type.getRank() != 4 || !type.getElementType().isInteger(8) ||
      type.getDimSize(2) != quants || type.getDimSize(3) != 1)
    return emitError() << format << " block quants are [rows, blocks, "
                       << quants << ", 1] i8 tensors, got " << type;
  return success();
}

//===----------------------------------------------------------------------===//
// tfm_gpu.dequantize
//===----------------------------------------------------------------------===//

int64_t DequantizeOp::getValuesPerByte() {
  return tfmc::weights::valuesPerQuant(getFormat());
}

LogicalResult DequantizeOp::verify() {
  PanelFormat format = getFormat();
  if (!isGpuBlockFormat(format))
    return emitOpError("reads q8_0 or q4_0 blocks, not ")
           << stringifyEnum(format);
  auto quants = cast<RankedTensorType>(getQuants().getType());
  auto scales = cast<RankedTensorType>(getScales().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  auto layout = GpuBlocksAttr::get(getContext(), format, PanelPart::quants);
  auto emit = [&]() { return emitOpError(); };
  if (failed(layout.verifyDeclaredType(quants, emit)))
    return failure();
  auto scaleLayout =
      GpuBlocksAttr::get(getContext(), format, PanelPart::scales);
  if (failed(scaleLayout.verifyDeclaredType(scales, emit)))
    return failure();
  int64_t rows = result.getDimSize(0), blocks = quants.getDimSize(1);
  if (quants.getDimSize(0) != rows || scales.getDimSize(0) != rows ||
      scales.getDimSize(1) != blocks ||
      result.getDimSize(1) != blocks * tfmc::weights::kQuantBlock)
    return emitOpError("reads a ")
           << rows << "x" << result.getDimSize(1) << " matrix from " << quants
           << " quants and " << scales << " scales: each row is its blocks of "
           << tfmc::weights::kQuantBlock << " values";
  return success();
}
