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

/// The type the model file stores the tensors of `global` in, when they
/// share one and the network can keep it: any scalar type (transposes and
/// row slices of a scalar tensor are exact in its type), a block-quantized
/// type only for a tensor used as stored (a transpose would cut its blocks).
static std::optional<weights::ElementType>
storedType(mlir::tfm::GlobalWeightOp global, const ModelSpec &spec) {
  SmallVector<StringRef> names{global.getSymName()};
  if (ArrayAttr stacked = global.getStackedAttr())
    names = llvm::to_vector(stacked.getAsValueRange<StringAttr>());
  std::optional<weights::ElementType> shared;
  for (StringRef name : names) {
    auto found = spec.weights.find(name.str());
    if (found == spec.weights.end())
      return std::nullopt;
    const weights::Weight &weight = found->second;
    weights::ElementType type = weight.source().type();
    if (weights::isBlockQuantized(type) && !weight.steps().empty())
      return std::nullopt;
    if (shared && *shared != type)
      return std::nullopt;
    shared = type;
  }
  return shared;
}

/// Marks each declaration whose tensors the file stores in another type than
/// the network declares with that type (`stored`), so that the backends can
/// keep the file's bytes (tfm-cpu-pack-weights' default).
static void recordStoredTypes(ModuleOp module, const ModelSpec &spec) {
  MLIRContext &context = *module.getContext();
  module.walk([&](mlir::tfm::GlobalWeightOp global) {
    std::optional<weights::ElementType> stored = storedType(global, spec);
    if (!stored)
      return;
    Type declared = cast<RankedTensorType>(global.getType()).getElementType();
    if (!weights::isBlockQuantized(*stored) &&
        elementType(context, *stored) == declared)
      return;
    global.setStoredAttr(mlir::tfm::StoredAttr::get(&context, *stored));
  });
}

/// The IR's name for the kind the model's configuration declares: the one
/// place the kind crosses from the configuration into the module.
static mlir::tfm::ModelKind modelKind(ModelKind kind) {
  switch (kind) {
  case ModelKind::DecoderOnly:
    return mlir::tfm::ModelKind::decoder;
  case ModelKind::EncoderOnly:
    return mlir::tfm::ModelKind::encoder;
  case ModelKind::EncoderDecoder:
    return mlir::tfm::ModelKind::encoder_decoder;
  }
  llvm_unreachable("unknown model kind");
}

llvm::Expected<OwningOpRef<ModuleOp>>
tfmc::buildModel(MLIRContext &context, const ModelSpec &spec, int64_t sequence,
                 int64_t contextLength, GraphBuilder graph) {
  context.loadDialect<mlir::tfm::TfmDialect, func::FuncDialect,
                      arith::ArithDialect>();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  NetworkBuilder net(*module, spec.config,
                     elementType(context, spec.weightType), sequence,
                     contextLength);
  mlir::tfm::setModel(
      *module, mlir::tfm::ModelAttr::get(&context, contextLength,
                                         modelKind(spec.config.kind),
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
  recordStoredTypes(*module, spec);
  return std::move(module);
}
