//===- TfmOps.cpp - tfm op verifiers and result type inference ------------===//
//
// Result types are inferred (InferTypeOpAdaptor) so passes can re-specialise a
// network to another sequence length by re-inferring every op in order; the
// shape rules therefore live in the inference functions and the verifiers
// only check what inference does not need.
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmOps.h"
#include "dialect/RelativeBuckets.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfm;

/// [rows, cols] of a 2-D activation type.
static RankedTensorType activationType(MLIRContext *context, int64_t rows,
                                       int64_t cols) {
  return RankedTensorType::get({rows, cols}, Float32Type::get(context));
}

static int64_t dim(Value value, unsigned index) {
  return cast<RankedTensorType>(value.getType()).getDimSize(index);
}

/// Checks a per-feature vector (norm weight, bias) against the feature count.
static LogicalResult verifyFeatureVector(Operation *op, Value vector,
                                         StringRef name, int64_t features) {
  int64_t size = dim(vector, 0);
  if (size != features)
    return op->emitOpError()
           << name << " has " << size << " elements but the input has "
           << features << " features";
  return success();
}

//===----------------------------------------------------------------------===//
// Weights
//===----------------------------------------------------------------------===//

LogicalResult GlobalWeightOp::verify() {
  auto type = cast<RankedTensorType>(getType());
  if (getStacked() && getStacked()->empty())
    return emitOpError() << "stacks no tensors";
  if (StoredAttr stored = getStoredAttr()) {
    if (getLayoutAttr())
      return emitOpError() << "stored describes model tensors; a laid-out "
                              "weight is the compiler's";
    size_t tensors = getStacked() ? getStacked()->size() : 1;
    size_t types = stored.getTypes().size();
    if (types != 1 && types != tensors)
      return emitOpError() << "stored has " << types << " types for its "
                           << tensors << " tensors (one, or one per tensor)";
  }
  if (WeightLayoutAttrInterface layout = getLayoutAttr())
    return layout.verifyDeclaredType(type, [&] { return emitOpError(); });
  Type element = type.getElementType();
  if (!element.isF32() && !element.isF16() && !element.isBF16())
    return emitOpError() << "weights are f32, f16 or bf16 tensors, got "
                         << type;
  return success();
}

SmallVector<tfmc::weights::ElementType> GlobalWeightOp::getStoredTypes() {
  StoredAttr stored = getStoredAttr();
  if (!stored)
    return {};
  ArrayRef<tfmc::weights::ElementType> types = stored.getTypes();
  size_t tensors = getStacked() ? getStacked()->size() : 1;
  if (types.size() == 1)
    return SmallVector<tfmc::weights::ElementType>(tensors, types.front());
  return SmallVector<tfmc::weights::ElementType>(types);
}

LogicalResult StoredAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<tfmc::weights::ElementType> types) {
  if (types.empty())
    return emitError() << "stored names at least one element type";
  return success();
}

std::optional<tfmc::weights::ElementType> StoredAttr::getShared() const {
  ArrayRef<tfmc::weights::ElementType> types = getTypes();
  if (!llvm::all_equal(types))
    return std::nullopt;
  return types.front();
}

LogicalResult WeightOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto global = symbolTable.lookupNearestSymbolFrom<GlobalWeightOp>(
      getOperation(), getNameAttr());
  if (!global)
    return emitOpError() << "'" << getName()
                         << "' does not name a tfm.global_weight";
  if (global.getType() != getType())
    return emitOpError() << "type " << getType()
                         << " does not match the declared type "
                         << global.getType() << " of '" << getName() << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// Embeddings
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location>,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  inferred.push_back(activationType(context, dim(adaptor.getTokens(), 0),
                                    dim(adaptor.getTable(), 1)));
  return success();
}

LogicalResult
PositionEmbeddingOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult PositionEmbeddingOp::verify() {
  if (dim(getTable(), 1) != dim(getInput(), 1))
    return emitOpError() << "table has " << dim(getTable(), 1)
                         << " features but the input has "
                         << dim(getInput(), 1);
  if (dim(getTable(), 0) < dim(getInput(), 0))
    return emitOpError() << "table has " << dim(getTable(), 0)
                         << " positions, fewer than the " << dim(getInput(), 0)
                         << " tokens of the input";
  return success();
}

LogicalResult
SinusoidalPositionOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult SinusoidalPositionOp::verify() {
  int64_t features = dim(getInput(), 1);
  if (features % 2 != 0)
    return emitOpError() << "needs an even feature count for its sin/cos "
                            "pairs, got "
                         << features;
  double base = getBase().convertToDouble();
  // The frequencies take its logarithm.
  if (!(base > 0.0) || !std::isfinite(base))
    return emitOpError() << "base must be positive and finite, got " << base;
  return success();
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult LayerNormOp::verify() {
  int64_t features = dim(getInput(), 1);
  int64_t group = getNormalizedFeatures();
  if (features % group != 0)
    return emitOpError() << "input features (" << features
                         << ") are not a multiple of group_size (" << group
                         << ")";
  int64_t weights = dim(getWeight(), 0);
  if (group == features) {
    if (failed(verifyFeatureVector(*this, getWeight(), "weight", features)))
      return failure();
  } else if (weights != group && weights != features) {
    // Grouped: a weight per feature of a group, shared, or one per feature.
    return emitOpError() << "weight has " << weights
                         << " elements but neither a group's features ("
                         << group << ") nor the input's (" << features << ")";
  }
  Value bias = getBias();
  if (bias && dim(bias, 0) != weights)
    return emitOpError() << "bias has " << dim(bias, 0)
                         << " elements but weight has " << weights;
  return success();
}

LogicalResult RMSNormOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location>,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult RMSNormOp::verify() {
  int64_t features = dim(getInput(), 1);
  if (std::optional<uint64_t> group = getGroupSize();
      group && features % int64_t(*group) != 0)
    return emitOpError() << "input features (" << features
                         << ") are not a multiple of group_size (" << *group
                         << ")";
  return verifyFeatureVector(*this, getWeight(), "weight",
                             getNormalizedFeatures());
}

//===----------------------------------------------------------------------===//
// Linear layers
//===----------------------------------------------------------------------===//

/// `input [S, in] x weight [out, in]^T -> [S, out]`. Inference only needs the
/// outer dimensions; verifyProjection reports mismatched input features.
static LogicalResult inferProjection(MLIRContext *context, Value input,
                                     Value weight,
                                     SmallVectorImpl<Type> &inferred) {
  inferred.push_back(activationType(context, dim(input, 0), dim(weight, 0)));
  return success();
}

static LogicalResult verifyProjection(Operation *op, Value input,
                                      Value weight) {
  if (dim(input, 1) != dim(weight, 1))
    return op->emitOpError()
           << "weight has " << dim(weight, 1)
           << " input features but the input has " << dim(input, 1);
  return success();
}

LogicalResult LinearOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location>,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferProjection(context, adaptor.getInput(), adaptor.getWeight(),
                         inferred);
}

/// A projection's optional bias holds one number per output.
static LogicalResult verifyProjectionBias(Operation *op, Value weight,
                                          Value bias) {
  if (!bias)
    return success();
  int64_t outputs = dim(weight, 0);
  if (dim(bias, 0) != outputs)
    return op->emitOpError()
           << "bias has " << dim(bias, 0) << " elements but the layer has "
           << outputs << " outputs";
  return success();
}

LogicalResult LinearOp::verify() {
  if (failed(verifyProjection(*this, getInput(), getWeight())))
    return failure();
  return verifyProjectionBias(*this, getWeight(), getBias());
}

LogicalResult LMHeadOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location>,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferProjection(context, adaptor.getInput(), adaptor.getWeight(),
                         inferred);
}

LogicalResult LMHeadOp::verify() {
  if (failed(verifyProjection(*this, getInput(), getWeight())))
    return failure();
  return verifyProjectionBias(*this, getWeight(), getBias());
}

//===----------------------------------------------------------------------===//
// Mixture of experts
//===----------------------------------------------------------------------===//

LogicalResult MoERouteOp::inferReturnTypes(MLIRContext *context,
                                           std::optional<Location>,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  int64_t rows =
      cast<RankedTensorType>(adaptor.getInput().getType()).getDimSize(0);
  int64_t topK = adaptor.getTopK();
  inferred.push_back(
      RankedTensorType::get({rows, topK}, Float32Type::get(context)));
  inferred.push_back(
      RankedTensorType::get({rows, topK}, IntegerType::get(context, 32)));
  return success();
}

LogicalResult MoERouteOp::verify() {
  int64_t features = dim(getInput(), 1);
  if (dim(getRouter(), 1) != features)
    return emitOpError() << "router has " << dim(getRouter(), 1)
                         << " columns but the input has " << features
                         << " features";
  if (int64_t(getTopK()) > getNumExperts())
    return emitOpError() << "chooses " << getTopK() << " of " << getNumExperts()
                         << " experts";
  return success();
}

LogicalResult MoEExpertsOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location>,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult MoEExpertsOp::verify() {
  int64_t features = dim(getInput(), 1);
  // The stacked `down` is cut into experts of `features` rows.
  if (features <= 0)
    return emitOpError() << "input must have a static, positive number of "
                            "features";
  if (getWeights().getType().getShape() != getExperts().getType().getShape())
    return emitOpError() << "weights and experts must have one shape, [rows, "
                            "top_k]";
  int64_t rows = dim(getInput(), 0), choiceRows = dim(getExperts(), 0);
  if (!ShapedType::isDynamic(rows) && !ShapedType::isDynamic(choiceRows) &&
      rows != choiceRows)
    return emitOpError() << "chooses experts for " << choiceRows
                         << " rows but the input has " << rows;
  if (dim(getDown(), 0) % features != 0)
    return emitOpError() << "down must be [experts * dim, hidden] with dim = "
                         << features << ", but has " << dim(getDown(), 0)
                         << " rows";
  int64_t experts = getNumExperts(), hidden = getExpertHidden();
  for (auto [name, weight] :
       {std::pair<const char *, Value>{"gate", getGate()}, {"up", getUp()}})
    if (dim(weight, 0) != experts * hidden || dim(weight, 1) != features)
      return emitOpError() << name << " must be [experts * hidden = "
                           << experts * hidden << ", dim = " << features << "]";
  return success();
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

LogicalResult RopeOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult RopeOp::verify() {
  int64_t headDim = getHeadDim();
  if (headDim % 2 != 0)
    return emitOpError() << "head_dim must be even to form rotation pairs, got "
                         << headDim;
  if (dim(getInput(), 1) % headDim != 0)
    return emitOpError() << "input features (" << dim(getInput(), 1)
                         << ") are not a multiple of head_dim (" << headDim
                         << ")";
  int64_t rotated = getRotatedFeatures();
  if (rotated % 2 != 0 || rotated > headDim)
    return emitOpError() << "rotary_dim (" << rotated
                         << ") must be even and at most head_dim (" << headDim
                         << ")";
  if (std::optional<ArrayRef<float>> frequencies = getFrequencies()) {
    if (static_cast<int64_t>(frequencies->size()) != rotated / 2)
      return emitOpError() << "has " << frequencies->size()
                           << " frequencies but rotates " << rotated
                           << " features, " << rotated / 2 << " pairs";
    for (float frequency : *frequencies)
      if (!std::isfinite(frequency) || frequency < 0)
        return emitOpError()
               << "frequency " << frequency << " is not a finite number >= 0";
  }
  if (std::optional<APFloat> factor = getAttentionFactor()) {
    double value = factor->convertToDouble();
    if (!std::isfinite(value) || value <= 0)
      return emitOpError() << "attention_factor " << value
                           << " is not a finite number > 0";
  }
  return success();
}

/// T5's relative position bias: a [num_buckets, num_heads] table, a
/// max_distance, and buckets that the mask kind makes bidirectional or
/// causal.
template <typename AttentionLike>
static LogicalResult verifyRelativeBias(AttentionLike op) {
  Value table = op.getRelativeBias();
  std::optional<uint64_t> maxDistance = op.getMaxDistance();
  if (!table)
    return maxDistance
               ? op.emitOpError("max_distance is only read by a relative_bias")
               : success();
  if (!maxDistance)
    return op.emitOpError("a relative_bias needs a max_distance");
  if (op.getSlopes())
    return op.emitOpError("takes ALiBi slopes or a relative_bias, not both");
  if (dim(table, 1) != static_cast<int64_t>(op.getNumHeads()))
    return op.emitOpError()
           << "relative_bias must be [num_buckets, num_heads = "
           << op.getNumHeads() << "], got " << table.getType();
  MaskKind mask = op.getMask();
  if (mask != MaskKind::causal && mask != MaskKind::bidirectional)
    return op.emitOpError("a relative_bias takes a causal or bidirectional "
                          "mask");
  if (std::optional<std::string> error =
          checkRelativeBuckets(dim(table, 0), int64_t(*maxDistance),
                               mask == MaskKind::bidirectional))
    return op.emitOpError() << *error;
  return success();
}

/// The checks shared by tfm.attention and tfm.attention_kernel.
template <typename AttentionLike>
static LogicalResult verifyAttention(AttentionLike op) {
  int64_t heads = op.getNumHeads(), kvHeads = op.getNumKvHeads();
  int64_t queryFeatures = dim(op.getQuery(), 1);
  if (queryFeatures % heads != 0)
    return op.emitOpError()
           << "query features (" << queryFeatures
           << ") are not a multiple of num_heads (" << heads << ")";
  if (heads % kvHeads != 0)
    return op.emitOpError()
           << "num_heads (" << heads << ") is not a multiple of num_kv_heads ("
           << kvHeads << ")";
  auto keyType = cast<RankedTensorType>(op.getKey().getType());
  auto valueType = cast<RankedTensorType>(op.getValue().getType());
  if (keyType.getRank() != valueType.getRank())
    return op.emitOpError() << "key has rank " << keyType.getRank()
                            << " but value has rank " << valueType.getRank();
  if (keyType.getElementType() != valueType.getElementType())
    return op.emitOpError()
           << "key has element type " << keyType.getElementType()
           << " but value has element type " << valueType.getElementType();
  int64_t headDim = op.getHeadDim();
  if (op.isHeadMajor()) {
    for (RankedTensorType type : {keyType, valueType})
      if (type.getDimSize(0) != kvHeads || type.getDimSize(2) != headDim)
        return op.emitOpError()
               << "head-major key and value must be [num_kv_heads = " << kvHeads
               << ", keys, head_dim = " << headDim << "]";
  } else {
    int64_t kvFeatures = kvHeads * headDim;
    if (keyType.getDimSize(1) != kvFeatures ||
        valueType.getDimSize(1) != kvFeatures)
      return op.emitOpError()
             << "key and value must have num_kv_heads * head_dim = "
             << kvFeatures << " features";
  }
  unsigned keysDim = op.getKeysDim();
  if (keyType.getDimSize(keysDim) != valueType.getDimSize(keysDim))
    return op.emitOpError()
           << "key has " << keyType.getDimSize(keysDim)
           << " rows but value has " << valueType.getDimSize(keysDim);
  bool window = op.getMask() == MaskKind::sliding_window;
  if (window != op.getWindow().has_value())
    return op.emitOpError()
           << (window ? "a sliding_window mask needs a window"
                      : "only a sliding_window mask takes a window");
  if (Value slopes = op.getSlopes())
    if (dim(slopes, 0) != heads)
      return op.emitOpError() << "has " << dim(slopes, 0)
                              << " ALiBi slopes for " << heads << " heads";
  if (failed(verifyRelativeBias(op)))
    return failure();
  if (std::optional<llvm::APFloat> scale = op.getScale())
    if (!scale->isFiniteNonZero() || scale->isNegative())
      return op.emitOpError("scale must be a positive finite number");
  if (std::optional<llvm::APFloat> cap = op.getSoftcap())
    if (!cap->isFiniteNonZero() || cap->isNegative())
      return op.emitOpError("softcap must be a positive finite number");
  if (std::optional<uint64_t> ring = op.getRing()) {
    if (!window)
      return op.emitOpError("only a sliding_window mask reads a ring of keys");
    if (!op.isHeadMajor())
      return op.emitOpError("a ring of keys must be head-major");
    // A query row sees the W positions up to its own; the rows of the
    // sequence were all written into the ring before any of them reads it.
    int64_t rows = dim(op.getQuery(), 0);
    int64_t needed = int64_t(*op.getWindow()) + rows - 1;
    if (int64_t(*ring) < needed)
      return op.emitOpError()
             << "ring of " << *ring << " keys cannot hold the window of "
             << *op.getWindow() << " positions for " << rows
             << " query rows (needs " << needed << ")";
  }
  return success();
}

LogicalResult SoftCapOp::verify() {
  llvm::APFloat cap = getCap();
  if (!cap.isFiniteNonZero() || cap.isNegative())
    return emitOpError("cap must be a positive finite number");
  return success();
}

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getQuery().getType());
  return success();
}

LogicalResult AttentionOp::verify() { return verifyAttention(*this); }

LogicalResult AttentionKernelOp::verify() {
  if (failed(verifyAttention(*this)))
    return failure();
  if (getInit().getType() != getQuery().getType())
    return emitOpError() << "init has type " << getInit().getType()
                         << " but the query has type " << getQuery().getType();
  return success();
}

#define GET_OP_CLASSES
#include "dialect/TfmOps.cpp.inc"
