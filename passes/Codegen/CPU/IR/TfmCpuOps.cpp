//===- TfmCpuOps.cpp - tfm_cpu projection verifiers and type inference ----===//
#include "passes/Codegen/CPU/IR/TfmCpuOps.h"

#include "compiler/weights/KQuants.h"

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

/// Checks the super-block `factors` of a `format` matrix of `features`
/// columns in `panels` panels of `width`: present, `[panels, features /
/// 256, 2 or 1, width]` f32 (d and dmin with `mins`, d alone without), for
/// the layouts with super-block factors; absent for the others.
static LogicalResult verifyFactors(Operation *op, PanelFormat format,
                                   int64_t panels, int64_t width,
                                   int64_t features, Value mins,
                                   Value factors) {
  StringRef name = tfmc::weights::stringifyPanelFormat(format);
  if (!tfmc::weights::hasSuperBlockFactors(format)) {
    if (factors)
      return op->emitOpError()
             << name << " has no super-block factors, only kquantx4 and "
             << "kquant4x4 have";
    return success();
  }
  if (!factors)
    return op->emitOpError() << name << " needs its super-block factors";
  const int64_t superBlock = tfmc::weights::kSuperBlockElements;
  if (features % superBlock != 0)
    return op->emitOpError() << name << " rows of " << features
                             << " values are not whole super-blocks of 256";
  SmallVector<int64_t> expected = {panels, features / superBlock, mins ? 2 : 1,
                                   width};
  auto type = cast<RankedTensorType>(factors.getType());
  if (type.getShape() != ArrayRef<int64_t>(expected))
    return op->emitOpError()
           << "factors must be [" << expected[0] << ", " << expected[1] << ", "
           << expected[2] << ", " << expected[3]
           << "] (per panel row and super-block: d" << (mins ? " and dmin" : "")
           << "), got " << type;
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

/// The features of a row of `panels` in `format`: value panels' dim 1, or
/// blocks times the values of each (quants per block times values per
/// quant).
static int64_t rowFeatures(PanelFormat format, Value panels) {
  if (!tfmc::weights::isBlockFormat(format))
    return dim(panels, 1);
  return dim(panels, 1) * dim(panels, 2) *
         tfmc::weights::valuesPerQuant(format);
}

LogicalResult PanelEmbeddingOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto panels = cast<RankedTensorType>(adaptor.getPanels().getType());
  bool block = tfmc::weights::isBlockFormat(adaptor.getLayout().getFormat());
  if (panels.getRank() != (block ? 4 : 3))
    return emitOptionalError(location, "panels of ",
                             stringifyEnum(adaptor.getLayout().getFormat()),
                             " have rank ", block ? 4 : 3, ", got ", panels);
  inferred.push_back(RankedTensorType::get(
      {dim(adaptor.getTokens(), 0),
       rowFeatures(adaptor.getLayout().getFormat(), adaptor.getPanels())},
      Float32Type::get(context)));
  return success();
}

int64_t PanelEmbeddingOp::getBlockValues() {
  PanelFormat format = getLayout().getFormat();
  if (!tfmc::weights::isBlockFormat(format))
    return 1;
  return dim(getPanels(), 2) * tfmc::weights::valuesPerQuant(format);
}

LogicalResult PanelEmbeddingOp::verify() {
  PanelFormat format = getLayout().getFormat();
  if (getLayout().getPart() != tfmc::weights::PanelPart::quants)
    return emitOpError() << "looks rows up in a matrix's panels, not in its "
                         << stringifyEnum(getLayout().getPart());
  int64_t rank = tfmc::weights::isBlockFormat(format) ? 4 : 3;
  if (getPanels().getType().getRank() != rank)
    return emitOpError() << "panels of " << stringifyEnum(format)
                         << " have rank " << rank << ", got "
                         << getPanels().getType();
  Type element = getPanels().getType().getElementType();
  int64_t width = dim(getPanels(), rank - 1);
  int64_t rows = dim(getPanels(), 0) * width;
  if (!tfmc::weights::isBlockFormat(format)) {
    PanelFormat held = element.isF16()    ? PanelFormat::f16
                       : element.isBF16() ? PanelFormat::bf16
                       : element.isF32()  ? PanelFormat::f32
                                          : format;
    if (held != format || !isa<FloatType>(element))
      return emitOpError() << stringifyEnum(format) << " panels do not hold "
                           << getPanels().getType();
    if (getScales() || getMins() || getFactors())
      return emitOpError() << "value panels have no scales or minimums";
  } else {
    if (!element.isInteger(tfmc::weights::quantBits(format)))
      return emitOpError() << stringifyEnum(format) << " quants are i"
                           << tfmc::weights::quantBits(format) << ", not "
                           << element;
    Value scales = getScales(), mins = getMins();
    if (!scales)
      return emitOpError() << stringifyEnum(format) << " panels need scales";
    SmallVector<int64_t> blockShape = {dim(getPanels(), 0), dim(getPanels(), 1),
                                       width};
    for (Value part : {scales, mins})
      if (part && cast<RankedTensorType>(part.getType()).getShape() !=
                      ArrayRef<int64_t>(blockShape))
        return emitOpError()
               << "scales and minimums are [panels, blocks, width] = ["
               << blockShape[0] << ", " << blockShape[1] << ", "
               << blockShape[2] << "], got " << part.getType();
    Type scaleType = blockScaleType(getContext(), format);
    if (cast<RankedTensorType>(scales.getType()).getElementType() != scaleType)
      return emitOpError() << stringifyEnum(format) << " scales are "
                           << scaleType;
    if (mins && !tfmc::weights::hasMins(format))
      return emitOpError() << stringifyEnum(format) << " has no minimums";
    if (mins &&
        cast<RankedTensorType>(mins.getType()).getElementType() != scaleType)
      return emitOpError() << stringifyEnum(format) << " minimums are "
                           << scaleType;
    if (failed(verifyFactors(*this, format, blockShape[0], width,
                             blockShape[1] * getBlockValues(), mins,
                             getFactors())))
      return failure();
  }
  int64_t vocab = getVocab();
  if (vocab < 1 || vocab > rows)
    return emitOpError() << "vocab " << vocab << " is not in [1, " << rows
                         << "], the rows of " << dim(getPanels(), 0)
                         << " panels of " << width;
  return success();
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
  // kquant and kquantx4 have 16 or 32 values a block.
  bool kquantBytes = tfmc::weights::holdsKQuantBytes(format);
  int64_t perQuant = tfmc::weights::valuesPerQuant(format);
  int64_t quants = kquantBytes ? 0 : 32 / perQuant;
  if (quants && perBlock != quants)
    return emitOpError() << name << " quants hold " << quants
                         << " elements per block and row, got " << perBlock;
  Type quantType =
      IntegerType::get(getContext(), tfmc::weights::quantBits(format));
  if (getQuants().getType().getElementType() != quantType)
    return emitOpError() << name << " quants are " << quantType << ", got "
                         << getQuants().getType();
  if (kquantBytes && perBlock * perQuant != 16 && perBlock * perQuant != 32)
    return emitOpError() << name << " blocks are 16 or 32 values, got "
                         << perBlock * perQuant;
  int64_t blockValues = perQuant * perBlock;
  Type scaleType = blockScaleType(getContext(), format);
  if (getScales().getType().getElementType() != scaleType)
    return emitOpError() << name << " scales are " << scaleType << ", got "
                         << getScales().getType();
  // kquant's and kquantx4's mins may be left out when they are all zero
  // (Q6_K); Q4_K's never are.
  if (tfmc::weights::hasMins(format) && !kquantBytes && !getMins())
    return emitOpError() << name << " blocks need their mins";
  if (!tfmc::weights::hasMins(format) && getMins())
    return emitOpError() << "only the k-quant layouts have mins";
  if (getMins() && getMins().getType().getElementType() != scaleType)
    return emitOpError() << name << " mins are " << scaleType << ", got "
                         << getMins().getType();
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
  if (failed(verifyFactors(*this, format, panels, width, features, getMins(),
                           getFactors())))
    return failure();
  return verifyOutputs(*this, panels, width, getOutFeatures(), getBias());
}

#define GET_OP_CLASSES
#include "passes/Codegen/CPU/IR/TfmCpuOps.cpp.inc"
