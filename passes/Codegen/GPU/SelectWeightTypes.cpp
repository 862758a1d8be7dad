//===- SelectWeightTypes.cpp - f16/bf16 matrices on the GPU ---------------===//
//
// A decode step streams every projection matrix once: in 16 bits it reads
// half the bytes. The matrices are redeclared here, before linalg, and the
// lowerings of projections and embeddings widen each element as they read
// it.
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmOps.h"
#include "passes/Codegen/GPU/Passes.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMGPUSELECTWEIGHTTYPES
#include "passes/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;
using tfmc::weights::ElementType;

namespace {

/// Whether every use of `read` is a matrix its reader widens from 16 bits:
/// a projection's weight, an embedding's table (a tied LM head's), a
/// mixture of experts' router or stacked experts.
bool onlyWideningReaders(WeightOp read) {
  return llvm::all_of(read->getUses(), [](OpOperand &use) {
    Operation *user = use.getOwner();
    if (auto linear = dyn_cast<LinearOp>(user))
      return &use == &linear.getWeightMutable();
    if (auto head = dyn_cast<LMHeadOp>(user))
      return &use == &head.getWeightMutable();
    if (auto lookup = dyn_cast<EmbeddingOp>(user))
      return &use == &lookup.getTableMutable();
    if (auto route = dyn_cast<MoERouteOp>(user))
      return &use == &route.getRouterMutable();
    if (auto experts = dyn_cast<MoEExpertsOp>(user))
      return &use == &experts.getGateMutable() ||
             &use == &experts.getUpMutable() ||
             &use == &experts.getDownMutable();
    return false;
  });
}

struct TfmGpuSelectWeightTypes
    : mlir::tfm::impl::TfmGpuSelectWeightTypesBase<TfmGpuSelectWeightTypes> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    DenseMap<StringAttr, SmallVector<WeightOp>> readsOf;
    module.walk([&](WeightOp read) {
      readsOf[read.getNameAttr().getAttr()].push_back(read);
    });
    for (GlobalWeightOp global :
         llvm::to_vector(module.getOps<GlobalWeightOp>())) {
      auto type = cast<RankedTensorType>(global.getType());
      if (type.getRank() != 2 || !type.getElementType().isF32() ||
          global.getLayoutAttr())
        continue;
      SmallVector<WeightOp> &reads = readsOf[global.getSymNameAttr()];
      if (reads.empty() || !llvm::all_of(reads, onlyWideningReaders))
        continue;
      Type element = chosenType(global);
      if (element.isF32())
        continue;
      redeclare(global, reads, element);
    }
  }

private:
  /// The element type `global`'s matrix is stored in on the GPU.
  Type chosenType(GlobalWeightOp global) {
    MLIRContext *context = &getContext();
    switch (weights) {
    case GpuWeightType::f32:
      return Float32Type::get(context);
    case GpuWeightType::f16:
      return Float16Type::get(context);
    case GpuWeightType::bf16:
      return BFloat16Type::get(context);
    case GpuWeightType::stored:
      break;
    }
    SmallVector<ElementType> stored = global.getStoredTypes();
    if (!stored.empty() && llvm::all_equal(stored)) {
      if (stored.front() == ElementType::F16)
        return Float16Type::get(context);
      if (stored.front() == ElementType::BF16)
        return BFloat16Type::get(context);
    }
    return Float32Type::get(context);
  }

  /// Replaces `global` by a declaration of the same model tensors in
  /// `element`, and its `reads` by reads of that.
  void redeclare(GlobalWeightOp global, ArrayRef<WeightOp> reads,
                 Type element) {
    auto type = cast<RankedTensorType>(global.getType()).clone(element);
    std::string suffix = element.isF16() ? ".f16" : ".bf16";
    OpBuilder b(global);
    ArrayAttr stacked = global.getStackedAttr();
    if (!stacked)
      stacked = b.getStrArrayAttr({global.getSymName()});
    auto declared = GlobalWeightOp::create(b, global.getLoc(),
                                           (global.getSymName() + suffix).str(),
                                           type, stacked);
    for (WeightOp read : reads) {
      b.setInsertionPoint(read);
      Value narrow =
          WeightOp::create(b, read.getLoc(), type,
                           FlatSymbolRefAttr::get(declared.getSymNameAttr()));
      read.replaceAllUsesWith(narrow);
      read.erase();
    }
    global.erase();
  }
};

} // namespace
