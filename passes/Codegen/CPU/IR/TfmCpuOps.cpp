//===- TfmCpuOps.cpp - tfm_cpu projection verifiers and type inference ----===//
#include "passes/Codegen/CPU/IR/TfmCpuOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tfm::cpu;
using tfmc::weights::PanelFormat;

static int64_t dim(Value value, unsigned index) {
  return cast<RankedTensorType>(value.getType()).getDimSize(index);
}

/// `[rows, outputs]` f32: a projection's result.
static RankedTensorType resultType(MLIRContext *context, Value input,
                                   int64_t outputs) {
  return RankedTensorType::get({dim(input, 0), outputs},
                               Float32Type::get(context));
}

/// The checks of the outputs that panels of `panels` rows of `width` cover
/// and of the optional bias.
static LogicalResult verifyOutputs(Operation *op, int64_t panels, int64_t width,
                                   int64_t outputs, Value bias) {
  // Panels past the last output are zero padding (see tfm-cpu-pack-weights).
  if (outputs > panels * width)
    return op->emitOpError()
           << "out_features " << outputs << " exceeds the " << panels * width
           << " rows of " << panels << " panels of " << width;
  if (bias && dim(bias, 0) != outputs)
    return op->emitOpError()
           << "bias has " << dim(bias, 0) << " elements but the layer has "
           << outputs << " outputs";
  return success();
}

LogicalResult
PackedLinearOp::inferReturnTypes(MLIRContext *context, std::optional<Location>,
                                 Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  inferred.push_back(
      resultType(context, adaptor.getInput(), adaptor.getOutFeatures()));
  return success();
}

LogicalResult PackedLinearOp::verify() {
  PanelFormat format = getConfig().getPanels();
  Type element = getWeight().getType().getElementType();
  PanelFormat held = element.isF16()    ? PanelFormat::f16
                     : element.isBF16() ? PanelFormat::bf16
                                        : PanelFormat::f32;
  if (format != held)
    return emitOpError() << "config's panels " << stringifyEnum(format)
                         << " do not describe " << getWeight().getType();
  if (dim(getWeight(), 1) != dim(getInput(), 1))
    return emitOpError() << "weight has " << dim(getWeight(), 1)
                         << " input features but the input has "
                         << dim(getInput(), 1);
  if (getConfig().getInputs() == InputScheme::bf16 &&
      dim(getWeight(), 1) % 2 != 0)
    return emitOpError() << "bf16 inputs are read in pairs: "
                         << dim(getWeight(), 1) << " input features";
  return verifyOutputs(*this, dim(getWeight(), 0), dim(getWeight(), 2),
                       getOutFeatures(), getBias());
}

LogicalResult
QuantizedLinearOp::inferReturnTypes(MLIRContext *context,
                                    std::optional<Location>, Adaptor adaptor,
                                    SmallVectorImpl<Type> &inferred) {
  inferred.push_back(
      resultType(context, adaptor.getInput(), adaptor.getOutFeatures()));
  return success();
}

LogicalResult QuantizedLinearOp::verify() {
  PanelFormat format = getFormat();
  StringRef name = stringifyEnum(format);
  if (!tfmc::weights::isBlockFormat(format))
    return emitOpError() << "reads block panels, not " << name << " panels";
  int64_t panels = dim(getQuants(), 0), blocks = dim(getQuants(), 1),
          perBlock = dim(getQuants(), 2), width = dim(getQuants(), 3);
  // kquant has 16 or 32 values a block, a byte each.
  int64_t quants = format == PanelFormat::kquant
                       ? 0
                       : 32 / tfmc::weights::valuesPerQuant(format);
  if (quants && perBlock != quants)
    return emitOpError() << name << " quants hold " << quants
                         << " elements per block and row, got " << perBlock;
  Type quantType =
      IntegerType::get(getContext(), tfmc::weights::quantBits(format));
  if (getQuants().getType().getElementType() != quantType)
    return emitOpError() << name << " quants are " << quantType << ", got "
                         << getQuants().getType();
  if (format == PanelFormat::kquant && perBlock != 16 && perBlock != 32)
    return emitOpError() << "kquant blocks are 16 or 32 values, got "
                         << perBlock;
  int64_t blockValues = tfmc::weights::valuesPerQuant(format) * perBlock;
  Type scaleType = tfmc::weights::hasMins(format)
                       ? Type(Float32Type::get(getContext()))
                       : Float16Type::get(getContext());
  if (getScales().getType().getElementType() != scaleType)
    return emitOpError() << name << " scales are " << scaleType << ", got "
                         << getScales().getType();
  // kquant's mins may be left out when they are all zero (Q6_K).
  if (format == PanelFormat::kquant4 && !getMins())
    return emitOpError() << name << " blocks need their mins";
  if (!tfmc::weights::hasMins(format) && getMins())
    return emitOpError() << "only kquant and kquant4 blocks have mins";
  int64_t features = dim(getInput(), 1);
  if (features != blocks * blockValues)
    return emitOpError() << "input has " << features << " features but the "
                         << "weight has " << blocks << " blocks of "
                         << blockValues << " per row";
  for (auto [partName, perRow] :
       {std::pair<const char *, Value>{"scales", getScales()},
        {"mins", getMins()}}) {
    if (!perRow)
      continue;
    auto type = cast<RankedTensorType>(perRow.getType());
    if (type.getShape() != ArrayRef<int64_t>{panels, blocks, width})
      return emitOpError() << partName << " must be [" << panels << ", "
                           << blocks << ", " << width
                           << "] (one per panel row and block), got " << type;
  }
  return verifyOutputs(*this, panels, width, getOutFeatures(), getBias());
}

#define GET_OP_CLASSES
#include "passes/Codegen/CPU/IR/TfmCpuOps.cpp.inc"
