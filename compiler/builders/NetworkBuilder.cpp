//===- NetworkBuilder.cpp - Emits the tfm ops of @forward -----------------===//
#include "compiler/builders/NetworkBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tfmc;

NetworkBuilder::NetworkBuilder(ModuleOp module, const DecoderConfig &config,
                               Type weightType, int64_t sequence,
                               int64_t contextLength)
    : config_(config), contextLength_(contextLength), weightType_(weightType),
      builder_(module.getContext()), declarations_(module.getContext()) {
  MLIRContext *context = module.getContext();
  auto tokensType = RankedTensorType::get({sequence}, builder_.getI32Type());
  auto logitsType = RankedTensorType::get({sequence, config.vocabSize},
                                          builder_.getF32Type());
  OpBuilder atEnd = OpBuilder::atBlockEnd(module.getBody());
  forward_ = func::FuncOp::create(
      atEnd, named("forward"), "forward",
      FunctionType::get(context, {tokensType}, {logitsType}));
  Block *entry = forward_.addEntryBlock();
  builder_.setInsertionPointToEnd(entry);
  // Declarations go before @forward, in first-use order (= blob order).
  declarations_.setInsertionPoint(forward_);
  tokens_ = entry->getArgument(0);
  offset_ = arith::ConstantIndexOp::create(builder_, named("positions"), 0);
}

Value NetworkBuilder::addTokensArgument() {
  Type tokensType = tokens_.getType();
  Value tokens =
      forward_.getBody().front().addArgument(tokensType, forward_.getLoc());
  SmallVector<Type> inputs(forward_.getArgumentTypes());
  inputs.push_back(tokensType);
  forward_.setType(FunctionType::get(builder_.getContext(), inputs,
                                     forward_.getResultTypes()));
  return tokens;
}

Location NetworkBuilder::named(llvm::StringRef name) {
  return NameLoc::get(builder_.getStringAttr(name));
}

Location NetworkBuilder::at(llvm::StringRef what) {
  if (layer_ < 0)
    return named(stackWeightName(stack_, what));
  return named(stackWeightName(stack_, "layers." + std::to_string(layer_) +
                                           "." + what.str()));
}

Location NetworkBuilder::at(WeightRole role) {
  return named(stackWeightName(
      stack_, weightName(role, isLayerRole(role) ? layer_ : -1)));
}

Value NetworkBuilder::weight(WeightRole role) {
  std::string name = stackWeightName(
      stack_, weightName(role, isLayerRole(role) ? layer_ : -1));
  auto found = weights_.find(name);
  if (found != weights_.end())
    return found->second;
  auto type = RankedTensorType::get(weightShape(config_, role), weightType_);
  Location loc = named(name);
  mlir::tfm::GlobalWeightOp::create(declarations_, loc, name, type,
                                    /*stacked=*/nullptr);
  Value value = mlir::tfm::WeightOp::create(builder_, loc, type, name);
  weights_[name] = value;
  declared_.insert(name);
  return value;
}

Value NetworkBuilder::expertWeights(WeightRole role) {
  std::string name = weightName(role, layer_);
  auto found = weights_.find(name);
  if (found != weights_.end())
    return found->second;
  int64_t experts = config_.moe.experts;
  weights::Shape shape = weightShape(config_, role);
  shape[0] *= experts;
  auto type = RankedTensorType::get(shape, weightType_);
  SmallVector<StringRef> partNames;
  std::vector<std::string> parts;
  for (int64_t expert = 0; expert < experts; ++expert)
    parts.push_back(expertWeightName(role, layer_, expert));
  for (const std::string &part : parts) {
    partNames.push_back(part);
    declared_.insert(part);
  }
  Location loc = named(name);
  mlir::tfm::GlobalWeightOp::create(declarations_, loc, name, type,
                                    builder_.getStrArrayAttr(partNames));
  Value value = mlir::tfm::WeightOp::create(builder_, loc, type, name);
  weights_[name] = value;
  return value;
}

Value NetworkBuilder::moe(Location loc, Value x, Value router, Value gate,
                          Value up, Value down, const ExpertSettings &experts) {
  auto routing = experts.routing == ExpertRouting::TopKSoftmax
                     ? mlir::tfm::Routing::top_k_softmax
                     : mlir::tfm::Routing::softmax_top_k;
  auto route = mlir::tfm::MoERouteOp::create(
      builder_, loc, x, router, builder_.getI64IntegerAttr(experts.topK),
      mlir::tfm::RoutingAttr::get(builder_.getContext(), routing));
  return mlir::tfm::MoEExpertsOp::create(builder_, loc, x, route.getWeights(),
                                         route.getExperts(), gate, up, down);
}

Value NetworkBuilder::embedding(Location loc, Value tokens, Value table,
                                float scale) {
  mlir::FloatAttr scaleAttr =
      scale == 1.0f ? mlir::FloatAttr() : builder_.getF32FloatAttr(scale);
  return mlir::tfm::EmbeddingOp::create(builder_, loc, tokens, table,
                                        scaleAttr);
}

Value NetworkBuilder::positionEmbedding(Location loc, Value x, Value table) {
  return mlir::tfm::PositionEmbeddingOp::create(builder_, loc, x, table,
                                                offset_);
}

Value NetworkBuilder::sinusoidalPosition(Location loc, Value x, float base) {
  return mlir::tfm::SinusoidalPositionOp::create(
      builder_, loc, x, offset_, builder_.getF32FloatAttr(base));
}

Value NetworkBuilder::rmsNorm(Location loc, Value x, Value weight, float eps,
                              bool unitOffset, int64_t groupSize) {
  return mlir::tfm::RMSNormOp::create(
      builder_, loc, x, weight, builder_.getF32FloatAttr(eps),
      unitOffset ? builder_.getUnitAttr() : mlir::UnitAttr(),
      groupSize > 0 ? builder_.getI64IntegerAttr(groupSize)
                    : mlir::IntegerAttr());
}

Value NetworkBuilder::layerNorm(Location loc, Value x, Value weight, Value bias,
                                float eps, int64_t groupSize) {
  return mlir::tfm::LayerNormOp::create(
      builder_, loc, x, weight, bias, builder_.getF32FloatAttr(eps),
      groupSize > 0 ? builder_.getI64IntegerAttr(groupSize)
                    : mlir::IntegerAttr());
}

Value NetworkBuilder::linear(Location loc, Value x, Value weight, Value bias) {
  return mlir::tfm::LinearOp::create(builder_, loc, x, weight, bias);
}

Value NetworkBuilder::rope(Location loc, Value x, int64_t headDim,
                           int64_t rotaryDim, float theta, RopeLayout layout,
                           const RopeFrequencies *scaled) {
  mlir::tfm::RopeLayout attr = layout == RopeLayout::Interleaved
                                   ? mlir::tfm::RopeLayout::interleaved
                                   : mlir::tfm::RopeLayout::half_split;
  mlir::DenseF32ArrayAttr frequencies;
  mlir::FloatAttr attentionFactor;
  if (scaled) {
    frequencies = builder_.getDenseF32ArrayAttr(scaled->inverse);
    if (scaled->attentionFactor != 1.0f)
      attentionFactor = builder_.getF32FloatAttr(scaled->attentionFactor);
  }
  return mlir::tfm::RopeOp::create(
      builder_, loc, x, offset_, builder_.getI64IntegerAttr(headDim),
      builder_.getF32FloatAttr(theta),
      mlir::tfm::RopeLayoutAttr::get(builder_.getContext(), attr), frequencies,
      attentionFactor,
      rotaryDim > 0 && rotaryDim < headDim
          ? builder_.getI64IntegerAttr(rotaryDim)
          : mlir::IntegerAttr());
}

Value NetworkBuilder::attention(Location loc, Value q, Value k, Value v,
                                int64_t numHeads, int64_t numKVHeads,
                                int64_t window, Value slopes) {
  AttentionKind kind;
  kind.window = window;
  kind.slopes = slopes;
  kind.scale = config_.attention.scoreScale;
  kind.softcap = config_.attention.softcap;
  kind.mask = window > 0 ? mlir::tfm::MaskKind::sliding_window
                         : mlir::tfm::MaskKind::causal;
  if (config_.kind == ModelKind::EncoderOnly) {
    kind.mask = mlir::tfm::MaskKind::bidirectional;
    kind.cache = mlir::tfm::CacheRole::none;
  }
  return attention(loc, q, k, v, numHeads, numKVHeads, kind);
}

Value NetworkBuilder::attention(Location loc, Value q, Value k, Value v,
                                int64_t numHeads, int64_t numKVHeads,
                                const AttentionKind &kind) {
  mlir::MLIRContext *context = builder_.getContext();
  auto optional = [&](int64_t value) {
    return value > 0 ? builder_.getI64IntegerAttr(value) : mlir::IntegerAttr();
  };
  return mlir::tfm::AttentionOp::create(
      builder_, loc, q, k, v, offset_, kind.slopes, kind.relativeBias,
      builder_.getI64IntegerAttr(numHeads),
      builder_.getI64IntegerAttr(numKVHeads),
      mlir::tfm::MaskKindAttr::get(context, kind.mask), optional(kind.window),
      mlir::tfm::CacheRoleAttr::get(context, kind.cache),
      /*ring=*/mlir::IntegerAttr(), optional(kind.maxDistance),
      kind.scale > 0 ? builder_.getF32FloatAttr(kind.scale) : mlir::FloatAttr(),
      kind.softcap > 0 ? builder_.getF32FloatAttr(kind.softcap)
                       : mlir::FloatAttr());
}

Value NetworkBuilder::constantVector(Location loc,
                                     llvm::ArrayRef<float> values) {
  auto type = mlir::RankedTensorType::get({int64_t(values.size())},
                                          builder_.getF32Type());
  return mlir::arith::ConstantOp::create(
      builder_, loc, mlir::DenseElementsAttr::get(type, values));
}

Value NetworkBuilder::add(Location loc, Value lhs, Value rhs) {
  return mlir::tfm::AddOp::create(builder_, loc, lhs, rhs);
}

Value NetworkBuilder::mul(Location loc, Value lhs, Value rhs) {
  return mlir::tfm::MulOp::create(builder_, loc, lhs, rhs);
}

Value NetworkBuilder::silu(Location loc, Value x) {
  return mlir::tfm::SiluOp::create(builder_, loc, x);
}

Value NetworkBuilder::relu(Location loc, Value x) {
  return mlir::tfm::ReluOp::create(builder_, loc, x);
}

Value NetworkBuilder::gelu(Location loc, Value x, bool exact) {
  auto form = exact ? mlir::tfm::GeluApproximation::erf
                    : mlir::tfm::GeluApproximation::tanh;
  return mlir::tfm::GeluOp::create(
      builder_, loc, x,
      mlir::tfm::GeluApproximationAttr::get(builder_.getContext(), form));
}

Value NetworkBuilder::softCap(Location loc, Value x, float cap) {
  return mlir::tfm::SoftCapOp::create(builder_, loc, x,
                                      builder_.getF32FloatAttr(cap));
}

Value NetworkBuilder::lmHead(Location loc, Value x, Value table, Value bias) {
  return mlir::tfm::LMHeadOp::create(builder_, loc, x, table, bias);
}

void NetworkBuilder::finish(Location loc, ValueRange results) {
  func::ReturnOp::create(builder_, loc, results);
  forward_.setType(FunctionType::get(
      builder_.getContext(), forward_.getArgumentTypes(), results.getTypes()));
}
