//===- ModelBuilder.cpp - ModelSpec -> the tfm module ---------------------===//
#include "compiler/builders/ModelBuilder.h"

#include "dialect/TfmContracts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tfmc;

static Type elementType(MLIRContext &context, weights::ElementType type) {
  switch (type) {
  case weights::ElementType::F32:
    return Float32Type::get(&context);
  case weights::ElementType::F16:
    return Float16Type::get(&context);
  case weights::ElementType::BF16:
    return BFloat16Type::get(&context);
  case weights::ElementType::Q8_0:
  case weights::ElementType::Q4_0:
  case weights::ElementType::Q4_K:
  case weights::ElementType::Q5_K:
  case weights::ElementType::Q6_K:
    break; // the network's weights are scalar (f32, f16, bf16)
  }
  llvm_unreachable("unknown element type");
}

llvm::Expected<OwningOpRef<ModuleOp>>
tfmc::buildModel(MLIRContext &context, const ModelSpec &spec, int64_t sequence,
                 int64_t contextLength, GraphBuilder graph) {
  context.loadDialect<mlir::tfm::TfmDialect, func::FuncDialect,
                      arith::ArithDialect>();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  NetworkBuilder net(*module, spec.config,
                     elementType(context, spec.weightType), sequence);
  mlir::tfm::setModel(*module, mlir::tfm::ModelAttr::get(
                                   &context, contextLength,
                                   SymbolRefAttr::get(net.forward())));
  graph(net);
  for (const auto &entry : net.declaredWeights())
    if (!spec.weights.count(entry.getKey().str()))
      return llvm::createStringError(
          spec.description + ": the network reads weight '" + entry.getKey() +
          "' that the model does not provide");
  for (const auto &[name, weight] : spec.weights)
    if (!net.declaredWeights().contains(name))
      return llvm::createStringError(spec.description +
                                     ": the model's weight '" + name +
                                     "' is read by nothing");
  return std::move(module);
}
