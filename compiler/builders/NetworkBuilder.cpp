//===- NetworkBuilder.cpp - Emits tfm ops for the family builders ----------===//
#include "compiler/builders/NetworkBuilder.h"
#include "compiler/builders/ModelBuilder.h"
#include "dialect/TfmContracts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tfmc;

NetworkBuilder::NetworkBuilder(ModuleOp module, const ModelSpec &spec,
                               int64_t sequence)
    : module_(module), spec_(spec), builder_(module.getContext()),
      declarations_(module.getContext()) {
  MLIRContext *context = module.getContext();
  declarations_.setInsertionPointToEnd(module.getBody());
  auto tokensType = RankedTensorType::get({sequence}, builder_.getI32Type());
  auto logitsType = RankedTensorType::get({sequence, spec.config.vocabSize},
                                          builder_.getF32Type());
  OpBuilder atEnd = OpBuilder::atBlockEnd(module.getBody());
  forward_ = func::FuncOp::create(
      atEnd, loc(), "forward",
      FunctionType::get(context, {tokensType}, {logitsType}));
  Block *entry = forward_.addEntryBlock();
  builder_.setInsertionPointToEnd(entry);
  // Declarations go before @forward, in first-use order (= blob order).
  declarations_.setInsertionPoint(forward_);
  tokens_ = entry->getArgument(0);
  offset_ = arith::ConstantIndexOp::create(builder_, loc(), 0);
}

Value NetworkBuilder::weight(const std::string &name) {
  auto found = weights_.find(name);
  if (found != weights_.end())
    return found->second;
  const WeightTensor &tensor = spec_.weights.at(name);
  auto type = RankedTensorType::get(tensor.shape, builder_.getF32Type());
  mlir::tfm::GlobalWeightOp::create(declarations_, loc(), name, type,
                                    /*stacked=*/nullptr);
  Value value = mlir::tfm::WeightOp::create(builder_, loc(), type, name);
  weights_[name] = value;
  return value;
}

Value NetworkBuilder::optionalWeight(const std::string &name) {
  return spec_.weights.count(name) ? weight(name) : Value();
}

Value NetworkBuilder::embedding(Value tokens, Value table) {
  return mlir::tfm::EmbeddingOp::create(builder_, loc(), tokens, table);
}

Value NetworkBuilder::positionEmbedding(Value x, Value table) {
  return mlir::tfm::PositionEmbeddingOp::create(builder_, loc(), x, table, offset_);
}

Value NetworkBuilder::rmsNorm(Value x, const std::string &prefix) {
  return mlir::tfm::RMSNormOp::create(builder_, loc(), x, weight(prefix + ".weight"),
                           builder_.getF32FloatAttr(spec_.config.normEps));
}

Value NetworkBuilder::layerNorm(Value x, const std::string &prefix) {
  return mlir::tfm::LayerNormOp::create(builder_, loc(), x, weight(prefix + ".weight"),
                             weight(prefix + ".bias"),
                             builder_.getF32FloatAttr(spec_.config.normEps));
}

Value NetworkBuilder::linear(Value x, const std::string &weightName,
                             const std::string &biasName) {
  Value bias = biasName.empty() ? Value() : optionalWeight(biasName);
  return mlir::tfm::LinearOp::create(builder_, loc(), x, weight(weightName), bias);
}

Value NetworkBuilder::rope(Value x) {
  mlir::tfm::RopeLayout layout = spec_.config.ropeLayout == tfmc::RopeLayout::Interleaved
                          ? mlir::tfm::RopeLayout::interleaved
                          : mlir::tfm::RopeLayout::half_split;
  return mlir::tfm::RopeOp::create(
      builder_, loc(), x, offset_,
      builder_.getI64IntegerAttr(spec_.config.headDim()),
      builder_.getF32FloatAttr(spec_.config.ropeTheta),
      mlir::tfm::RopeLayoutAttr::get(builder_.getContext(), layout));
}

Value NetworkBuilder::attention(Value q, Value k, Value v) {
  return mlir::tfm::AttentionOp::create(
      builder_, loc(), q, k, v, offset_,
      builder_.getI64IntegerAttr(spec_.config.numHeads),
      builder_.getI64IntegerAttr(spec_.config.numKVHeads),
      mlir::tfm::MaskKindAttr::get(builder_.getContext(),
                                   mlir::tfm::MaskKind::causal),
      /*window=*/nullptr,
      mlir::tfm::CacheRoleAttr::get(builder_.getContext(),
                                    mlir::tfm::CacheRole::self));
}

Value NetworkBuilder::add(Value lhs, Value rhs) {
  return mlir::tfm::AddOp::create(builder_, loc(), lhs, rhs);
}

Value NetworkBuilder::mul(Value lhs, Value rhs) {
  return mlir::tfm::MulOp::create(builder_, loc(), lhs, rhs);
}

Value NetworkBuilder::silu(Value x) {
  return mlir::tfm::SiluOp::create(builder_, loc(), x);
}

Value NetworkBuilder::gelu(Value x) {
  return mlir::tfm::GeluOp::create(builder_, loc(), x);
}

Value NetworkBuilder::lmHead(Value x, Value table) {
  return mlir::tfm::LMHeadOp::create(builder_, loc(), x, table);
}

void NetworkBuilder::finish(Value logits) {
  func::ReturnOp::create(builder_, loc(), logits);
}

OwningOpRef<ModuleOp> tfmc::buildModel(MLIRContext &context,
                                      const ModelSpec &spec, int64_t sequence,
                                      int64_t contextLength) {
  context.loadDialect<mlir::tfm::TfmDialect, func::FuncDialect, arith::ArithDialect>();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  NetworkBuilder net(*module, spec, sequence);
  mlir::tfm::setModel(*module,
                      mlir::tfm::ModelAttr::get(&context, contextLength,
                                                SymbolRefAttr::get(net.forward())));
  switch (spec.config.family) {
  case ModelFamily::Llama:
    buildLlamaNetwork(net, spec);
    break;
  case ModelFamily::Gpt2:
    buildGpt2Network(net, spec);
    break;
  }
  return module;
}
