//===- SelectWeightTypes.cpp - f16/bf16 or block matrices on the GPU ------===//
//
// A decode step streams every projection matrix once: in 16 bits it reads
// half the bytes, in GGUF's Q8_0 / Q4_0 blocks a quarter or an eighth. The
// matrices are redeclared here, before linalg; the lowerings of
// projections and embeddings widen each element as they read it, and the
// GPU's warp reductions dequantize the blocks where they multiply them.
//
//===----------------------------------------------------------------------===//
#include "compiler/weights/BlockPanels.h"
#include "dialect/TfmOps.h"
#include "passes/Codegen/GPU/Passes.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMGPUSELECTWEIGHTTYPES
#include "passes/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;
using tfmc::weights::ElementType;
using tfmc::weights::PanelFormat;
using tfmc::weights::PanelPart;

namespace {

/// Whether `use` is a projection's weight (a tfm.linear's or
/// tfm.lm_head's) or an embedding's table (a tied LM head's): the readers
/// that take GGUF blocks (a GEMV reads its rows' blocks, an embedding the
/// elements it gathers).
bool isBlockRead(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto linear = dyn_cast<LinearOp>(user))
    return &use == &linear.getWeightMutable();
  if (auto head = dyn_cast<LMHeadOp>(user))
    return &use == &head.getWeightMutable();
  if (auto lookup = dyn_cast<EmbeddingOp>(user))
    return &use == &lookup.getTableMutable();
  return false;
}

/// Whether `use` is a matrix its reader widens from 16 bits: a projection's
/// weight, an embedding's table, a mixture of experts' router or stacked
/// experts.
bool isWideningRead(OpOperand &use) {
  if (isBlockRead(use))
    return true;
  Operation *user = use.getOwner();
  if (auto route = dyn_cast<MoERouteOp>(user))
    return &use == &route.getRouterMutable();
  if (auto experts = dyn_cast<MoEExpertsOp>(user))
    return &use == &experts.getGateMutable() ||
           &use == &experts.getUpMutable() || &use == &experts.getDownMutable();
  return false;
}

/// Whether every use of each of `reads` satisfies `reader`.
bool onlyReadBy(ArrayRef<WeightOp> reads, bool (*reader)(OpOperand &)) {
  return llvm::all_of(reads, [&](WeightOp read) {
    return llvm::all_of(read->getUses(), reader);
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
      if (reads.empty())
        continue;
      if (std::optional<PanelFormat> blocks = blockFormat(global);
          blocks && onlyReadBy(reads, isBlockRead)) {
        keepBlocks(global, reads, *blocks);
        continue;
      }
      if (!onlyReadBy(reads, isWideningRead))
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
    case GpuWeightType::q8_0:
    case GpuWeightType::q4_0:
      // What takes no blocks (a mixture of experts) stays f32.
      return Float32Type::get(context);
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

  /// The GGUF block format `global`'s matrix is kept in on the GPU, in
  /// whole blocks: the one `weights` asks for (q8_0, q4_0), or, with
  /// `weights=stored`, the one that holds the file's blocks as they are
  /// (compiler/weights' storedBlockFormat, as the CPU's panels do): Q8_0,
  /// Q4_0, Q4_K (kquant4), or the k-quants of any kind (kquant).
  std::optional<PanelFormat> blockFormat(GlobalWeightOp global) {
    auto type = cast<RankedTensorType>(global.getType());
    if (type.getDimSize(1) % tfmc::weights::kQuantBlock != 0)
      return std::nullopt;
    if (weights == GpuWeightType::q8_0)
      return PanelFormat::q8_0;
    if (weights == GpuWeightType::q4_0)
      return PanelFormat::q4_0;
    if (weights != GpuWeightType::stored)
      return std::nullopt;
    return tfmc::weights::storedBlockFormat(global.getStoredTypes());
  }

  /// Replaces `global` by the quants, scales and (k-quants with minimums)
  /// minimums of its `format` blocks, and its `reads` by a
  /// tfm_gpu.dequantize of them.
  void keepBlocks(GlobalWeightOp global, ArrayRef<WeightOp> reads,
                  PanelFormat format) {
    MLIRContext *context = &getContext();
    auto type = cast<RankedTensorType>(global.getType());
    SmallVector<ElementType> stored = global.getStoredTypes();
    int64_t values = tfmc::weights::blockValues(format, stored);
    int64_t rows = type.getDimSize(0);
    int64_t blocks = type.getDimSize(1) / values;
    int64_t perBlock = values / tfmc::weights::valuesPerQuant(format);
    bool mins = tfmc::weights::hasMins(format) &&
                !tfmc::weights::hasZeroMins(format, stored);
    auto quantsType = RankedTensorType::get({rows, blocks, perBlock, 1},
                                            IntegerType::get(context, 8));
    auto scalesType = RankedTensorType::get(
        {rows, blocks, 1}, GpuBlocksAttr::getScaleType(context, format));
    std::string name =
        (global.getSymName() + "." + stringifyEnum(format)).str();
    OpBuilder b(global);
    ArrayAttr stacked = global.getStackedAttr();
    if (!stacked)
      stacked = b.getStrArrayAttr({global.getSymName()});
    auto declare = [&](StringRef part, RankedTensorType partType,
                       PanelPart panelPart) {
      return GlobalWeightOp::create(
          b, global.getLoc(), name + part.str(), partType, stacked,
          StoredAttr(), GpuBlocksAttr::get(context, format, panelPart));
    };
    GlobalWeightOp quants = declare("", quantsType, PanelPart::quants);
    GlobalWeightOp scales = declare(".scales", scalesType, PanelPart::scales);
    GlobalWeightOp minimums;
    if (mins)
      minimums = declare(".mins", scalesType, PanelPart::mins);
    auto readOf = [&](WeightOp read, GlobalWeightOp part) -> Value {
      return WeightOp::create(b, read.getLoc(), part.getType(),
                              FlatSymbolRefAttr::get(part.getSymNameAttr()));
    };
    for (WeightOp read : reads) {
      b.setInsertionPoint(read);
      Value quantsRead = readOf(read, quants);
      Value scalesRead = readOf(read, scales);
      Value minsRead = minimums ? readOf(read, minimums) : Value();
      Value dequantized = DequantizeOp::create(
          b, read.getLoc(), type, quantsRead, scalesRead, minsRead, format);
      read.replaceAllUsesWith(dequantized);
      read.erase();
    }
    global.erase();
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
