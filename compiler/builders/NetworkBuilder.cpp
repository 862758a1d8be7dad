//===- NetworkBuilder.cpp - Emits the tfm ops of @forward -----------------===//
#include "compiler/builders/NetworkBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tfmc;

NetworkBuilder::NetworkBuilder(ModuleOp module, const DecoderConfig &config,
                               Type weightType, int64_t sequence)
    : config_(config), weightType_(weightType), builder_(module.getContext()),
      declarations_(module.getContext()) {
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

Location NetworkBuilder::named(llvm::StringRef name) {
  return NameLoc::get(builder_.getStringAttr(name));
}

Location NetworkBuilder::at(llvm::StringRef what) {
  if (layer_ < 0)
    return named(what);
  return named("layers." + std::to_string(layer_) + "." + what.str());
}

Location NetworkBuilder::at(WeightRole role) {
  return named(weightName(role, isLayerRole(role) ? layer_ : -1));
}

Value NetworkBuilder::weight(WeightRole role) {
  std::string name = weightName(role, isLayerRole(role) ? layer_ : -1);
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

Value NetworkBuilder::embedding(Location loc, Value tokens, Value table) {
  return mlir::tfm::EmbeddingOp::create(builder_, loc, tokens, table);
}

Value NetworkBuilder::positionEmbedding(Location loc, Value x, Value table) {
  return mlir::tfm::PositionEmbeddingOp::create(builder_, loc, x, table,
                                                offset_);
}

Value NetworkBuilder::rmsNorm(Location loc, Value x, Value weight, float eps) {
  return mlir::tfm::RMSNormOp::create(builder_, loc, x, weight,
                                      builder_.getF32FloatAttr(eps));
}

Value NetworkBuilder::layerNorm(Location loc, Value x, Value weight, Value bias,
                                float eps) {
  return mlir::tfm::LayerNormOp::create(builder_, loc, x, weight, bias,
                                        builder_.getF32FloatAttr(eps));
}

Value NetworkBuilder::linear(Location loc, Value x, Value weight, Value bias) {
  return mlir::tfm::LinearOp::create(builder_, loc, x, weight, bias);
}

Value NetworkBuilder::rope(Location loc, Value x, int64_t headDim, float theta,
                           RopeLayout layout) {
  mlir::tfm::RopeLayout attr = layout == RopeLayout::Interleaved
                                   ? mlir::tfm::RopeLayout::interleaved
                                   : mlir::tfm::RopeLayout::half_split;
  return mlir::tfm::RopeOp::create(
      builder_, loc, x, offset_, builder_.getI64IntegerAttr(headDim),
      builder_.getF32FloatAttr(theta),
      mlir::tfm::RopeLayoutAttr::get(builder_.getContext(), attr));
}

Value NetworkBuilder::attention(Location loc, Value q, Value k, Value v,
                                int64_t numHeads, int64_t numKVHeads) {
  return mlir::tfm::AttentionOp::create(
      builder_, loc, q, k, v, offset_, builder_.getI64IntegerAttr(numHeads),
      builder_.getI64IntegerAttr(numKVHeads),
      mlir::tfm::MaskKindAttr::get(builder_.getContext(),
                                   mlir::tfm::MaskKind::causal),
      /*window=*/nullptr,
      mlir::tfm::CacheRoleAttr::get(builder_.getContext(),
                                    mlir::tfm::CacheRole::self));
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

Value NetworkBuilder::gelu(Location loc, Value x) {
  return mlir::tfm::GeluOp::create(builder_, loc, x);
}

Value NetworkBuilder::lmHead(Location loc, Value x, Value table) {
  return mlir::tfm::LMHeadOp::create(builder_, loc, x, table);
}

void NetworkBuilder::finish(Location loc, Value logits) {
  func::ReturnOp::create(builder_, loc, logits);
}
