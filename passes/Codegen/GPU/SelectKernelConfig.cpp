//===- SelectKernelConfig.cpp - How each kernel maps onto the GPU ---------===//
//
// Every choice of the GPU code generation is made here, once per kernel,
// and written as a #tfm_gpu.kernel attribute: the passes after it apply the
// config without looking at shapes again.
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmOps.h"
#include "passes/Codegen/GPU/Dequantize.h"
#include "passes/Codegen/GPU/KernelShapes.h"
#include "passes/Codegen/GPU/Passes.h"

#include "llvm/ADT/StringSwitch.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMGPUSELECTKERNELCONFIG
#include "passes/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The CPU backend's dialect (passes/Codegen/CPU/IR), named rather than
/// linked: the GPU passes do not depend on the CPU's.
constexpr llvm::StringLiteral kCpuDialectNamespace = "tfm_cpu";

/// What the configs need to know of the GPU.
struct GpuArch {
  int64_t multiprocessors;
};

std::optional<GpuArch> lookupArch(StringRef arch) {
  // The largest part of each generation (A100, RTX 3090, RTX 4090, H100):
  // only the number of warps that fills the machine depends on it.
  return llvm::StringSwitch<std::optional<GpuArch>>(arch)
      .Case("sm_80", GpuArch{108})
      .Case("sm_86", GpuArch{84})
      .Case("sm_89", GpuArch{128})
      .Case("sm_90", GpuArch{132})
      .Default(std::nullopt);
}

/// Bytes one lane loads at a time.
constexpr int64_t kLoadBytes = 16;
/// Threads of an elementwise block, at most.
constexpr int64_t kMaxElementwiseThreads = 256;

class ConfigBuilder {
public:
  ConfigBuilder(MLIRContext *context, const GpuArch &arch, bool tensorCores,
                int64_t attentionSplits, int64_t gemvMaxRows)
      : context(context), arch(arch), tensorCores(tensorCores),
        attentionSplits(attentionSplits), gemvMaxRows(gemvMaxRows) {}

  /// The config of `op`, or failure after a diagnostic.
  FailureOr<GpuKernelConfigAttr> select(Operation *op) {
    if (auto attention = dyn_cast<AttentionKernelOp>(op))
      return selectAttention(attention);
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (linalgOp.hasDynamicShape())
      return op->emitOpError("has dynamic shapes: no GPU kernel for it");
    if (linalgOp.getNumReductionLoops() == 0)
      return elementwise(linalgOp);
    if (std::optional<Projection> projection = matchProjection(linalgOp))
      if (projection->rows > gemvMaxRows)
        return gemm(linalgOp, *projection);
    if (std::optional<InnermostReduction> reduction =
            matchInnermostReduction(linalgOp))
      return warpReduction(linalgOp);
    return threadReduction(linalgOp);
  }

private:
  GpuKernelConfigAttr make(GpuKernelKind kind, ArrayRef<int64_t> workgroup,
                           ArrayRef<int64_t> subgroup, ArrayRef<int64_t> thread,
                           ArrayRef<int64_t> block, int64_t vectorWidth = 1,
                           int64_t chunk = 0, int64_t splits = 1) {
    return GpuKernelConfigAttr::get(context, kind, workgroup, subgroup, thread,
                                    block, vectorWidth, chunk, splits);
  }

  /// A config whose block is what its tiles distribute: the loops that the
  /// warp (or thread) tiles split, innermost first, on x, y, z
  /// (tfm-gpu-tile-and-distribute maps them in the same order).
  GpuKernelConfigAttr distributed(GpuKernelKind kind, ArrayRef<int64_t> ranges,
                                  ArrayRef<int64_t> workgroup,
                                  ArrayRef<int64_t> subgroup,
                                  ArrayRef<int64_t> thread,
                                  int64_t vectorWidth = 1, int64_t chunk = 0) {
    ArrayRef<int64_t> inner = subgroup.empty() ? thread : subgroup;
    SmallVector<int64_t> block = {1, 1, 1};
    unsigned dim = 0;
    for (int64_t i = static_cast<int64_t>(ranges.size()) - 1; i >= 0; --i) {
      int64_t blockTile = workgroup[i] == 0 ? ranges[i] : workgroup[i];
      if (inner[i] == 0 || inner[i] == blockTile)
        continue;
      assert(dim < 3 && "at most three distributed loops");
      block[dim++] = blockTile / inner[i];
    }
    if (!subgroup.empty())
      block[0] *= kWarpSize;
    return make(kind, workgroup, subgroup, thread, block, vectorWidth, chunk);
  }

  /// The tensors whose rows the body of `op` gathers along its innermost
  /// loop: `tensor.extract %t[..., %i]` of a tensor from outside, %i the
  /// innermost loop's index (a mixture of experts' chosen rows).
  static SmallVector<Value> gatheredRows(linalg::LinalgOp op) {
    unsigned last = op.getNumLoops() - 1;
    SmallVector<Value> rows;
    op->walk([&](tensor::ExtractOp extract) {
      auto index = extract.getIndices().back().getDefiningOp<linalg::IndexOp>();
      if (index && index.getDim() == last &&
          !op->isAncestor(extract.getTensor().getParentBlock()->getParentOp()))
        rows.push_back(extract.getTensor());
    });
    return rows;
  }

  /// The widest vector that divides the innermost loop and that every
  /// operand varying along it, and every row gathered along it, can load
  /// aligned: 16 bytes of the widest element type, or with `narrowest` of
  /// the narrowest one varying along the loop (a reduction over 16-bit
  /// weights streams 16 bytes of them a lane; its f32 activations take two
  /// 16-byte loads).
  static int64_t vectorWidth(linalg::LinalgOp op, int64_t innermost,
                             bool narrowest = false) {
    unsigned last = op.getNumLoops() - 1;
    SmallVector<Value> gathered = gatheredRows(op);
    int64_t bits = 0;
    auto account = [&](Type type, bool varies) {
      int64_t width = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
      if (!narrowest)
        bits = std::max(bits, width);
      else if (varies)
        bits = bits == 0 ? width : std::min(bits, width);
    };
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<ShapedType>(operand.get().getType()))
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      account(operand.get().getType(),
              llvm::any_of(map.getResults(), [&](AffineExpr e) {
                return e.isFunctionOfDim(last);
              }));
    }
    for (Value rows : gathered)
      account(rows.getType(), /*varies=*/true);
    if (bits == 0)
      return 1;
    for (int64_t width = kLoadBytes * 8 / bits; width > 1; width /= 2) {
      if (innermost % width != 0)
        continue;
      if (!llvm::all_of(gathered, [&](Value rows) {
            return hasAlignedRows(rows, width);
          }))
        continue;
      bool aligned = llvm::all_of(op->getOpOperands(), [&](OpOperand &use) {
        return readsAlignedAlongInnermost(op, use, width);
      });
      if (aligned)
        return width;
    }
    return 1;
  }

  /// Whether `use` of `op` can be read `width` elements at a time along the
  /// innermost loop: it does not vary along it, or reads along it as its
  /// own innermost dimension, in aligned rows.
  static bool readsAlignedAlongInnermost(linalg::LinalgOp op, OpOperand &use,
                                         int64_t width) {
    unsigned last = op.getNumLoops() - 1;
    AffineMap map = op.getMatchingIndexingMap(&use);
    bool varies = llvm::any_of(map.getResults(), [&](AffineExpr e) {
      return e.isFunctionOfDim(last);
    });
    if (!varies)
      return true;
    return map.getResults().back() == getAffineDimExpr(last, op.getContext()) &&
           hasAlignedRows(use.get(), width);
  }

  /// Block and thread tiles over the non-unit loops among `ranges` (a loop
  /// of range 1 needs no forall dimension): the innermost gets
  /// `threadsX * width` a block and `width` a thread, the next
  /// `threadsY` a block and one a thread, the third one and one; loops
  /// beyond three stay whole in every tile.
  struct ThreadTiles {
    SmallVector<int64_t> workgroup, thread;
    int64_t threadsX = 1, threadsY = 1;
  };
  static ThreadTiles threadTiles(ArrayRef<int64_t> ranges, int64_t width) {
    ThreadTiles tiles;
    tiles.workgroup.assign(ranges.size(), 0);
    tiles.thread.assign(ranges.size(), 0);
    int64_t mapped = 0;
    for (int64_t i = static_cast<int64_t>(ranges.size()) - 1;
         i >= 0 && mapped < 3; --i) {
      if (ranges[i] == 1)
        continue;
      if (mapped == 0) {
        tiles.threadsX =
            largestDivisorAtMost(ranges[i] / width, kMaxElementwiseThreads);
        tiles.workgroup[i] = tiles.threadsX * width;
        tiles.thread[i] = width;
      } else if (mapped == 1) {
        // Short rows: several rows a block.
        tiles.threadsY = largestDivisorAtMost(
            ranges[i],
            std::max<int64_t>(1, kMaxElementwiseThreads / 4 / tiles.threadsX));
        tiles.workgroup[i] = tiles.threadsY;
        tiles.thread[i] = 1;
      } else {
        tiles.workgroup[i] = tiles.thread[i] = 1;
      }
      ++mapped;
    }
    return tiles;
  }

  GpuKernelConfigAttr elementwise(linalg::LinalgOp op) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    // Vector loads only along the innermost loop, the contiguous one.
    int64_t width = ranges.back() > 1 ? vectorWidth(op, ranges.back()) : 1;
    ThreadTiles tiles = threadTiles(ranges, width);
    return distributed(GpuKernelKind::elementwise, ranges, tiles.workgroup, {},
                       tiles.thread, width);
  }

  /// The vector width of a warp reduction over a tfm_gpu.dequantize's
  /// matrix, when `op` reads one along its reduced loop and its other
  /// operands can be read that wide: a lane's 16 bytes of quants
  /// (dequantizedLaneWidth).
  static std::optional<int64_t> blockWidth(linalg::LinalgOp op) {
    unsigned last = op.getNumLoops() - 1;
    std::optional<int64_t> width;
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto dequantize = input->get().getDefiningOp<DequantizeOp>();
      if (!dequantize)
        continue;
      AffineMap map = op.getMatchingIndexingMap(input);
      if (map.getNumResults() != 2 ||
          map.getResults().back() != getAffineDimExpr(last, op.getContext()))
        return std::nullopt;
      int64_t lanes = dequantizedLaneWidth(dequantize);
      if (width && *width != lanes)
        return std::nullopt;
      width = lanes;
    }
    if (!width)
      return std::nullopt;
    for (OpOperand &use : op->getOpOperands())
      if (!use.get().getDefiningOp<DequantizeOp>() &&
          !readsAlignedAlongInnermost(op, use, *width))
        return std::nullopt;
    return width;
  }

  GpuKernelConfigAttr warpReduction(linalg::LinalgOp op) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    unsigned loops = ranges.size();
    int64_t reduced = ranges.back();
    std::optional<int64_t> blocks = blockWidth(op);
    int64_t width = blocks ? *blocks
                           : vectorWidth(op, reduced,
                                         /*narrowest=*/true);
    // Lanes past the reduced size would idle: narrower loads for short rows
    // (a lane reads whole blocks, or halves of Q8_0's, whatever the rows).
    while (!blocks && width > 1 && width * kWarpSize > reduced)
      width /= 2;
    int64_t unroll = std::clamp<int64_t>(reduced / (width * kWarpSize), 1, 4);
    int64_t chunk = width * kWarpSize * unroll;

    // Outputs per warp along the innermost parallel loop (a GEMV's output
    // features): more where the grid has warps to spare, so that the
    // activations loaded for one output serve several.
    SmallVector<int64_t> subgroup(loops, 0), workgroup(loops, 0);
    int64_t outputs = 1;
    for (unsigned i = 0; i + 1 < loops; ++i) {
      subgroup[i] = 1;
      outputs *= ranges[i];
    }
    int64_t lastParallel = -1;
    for (int64_t i = static_cast<int64_t>(loops) - 2; i >= 0; --i)
      if (ranges[i] > 1) {
        lastParallel = i;
        break;
      }
    // A projection's few rows all go to each warp (the decode rows).
    if (std::optional<Projection> projection = matchProjection(op)) {
      for (unsigned i = 0; i + 1 < loops; ++i)
        if (ranges[i] == projection->rows &&
            static_cast<int64_t>(i) != lastParallel)
          subgroup[i] = ranges[i];
    }
    int64_t perWarp = 1;
    if (lastParallel >= 0) {
      int64_t minWarps = 8 * arch.multiprocessors;
      for (int64_t candidate : {4, 2}) {
        if (ranges[lastParallel] % candidate == 0 &&
            outputs / candidate >= minWarps) {
          perWarp = candidate;
          break;
        }
      }
      subgroup[lastParallel] = perWarp;
    }
    // Four warps a block where the outputs divide evenly.
    int64_t warps = 1;
    if (lastParallel >= 0)
      warps = largestDividing(ranges[lastParallel] / perWarp, {4, 2});
    for (unsigned i = 0; i + 1 < loops; ++i)
      workgroup[i] = subgroup[i];
    if (lastParallel >= 0)
      workgroup[lastParallel] = perWarp * warps;
    // Unit loops need no forall dimension.
    for (unsigned i = 0; i + 1 < loops; ++i)
      if (ranges[i] == 1)
        workgroup[i] = subgroup[i] = 0;
    return distributed(GpuKernelKind::warp_reduction, ranges, workgroup,
                       subgroup, {}, width, chunk);
  }

  GpuKernelConfigAttr threadReduction(linalg::LinalgOp op) {
    // The parallel loops over threads, one output each; reductions stay
    // whole, a sequential loop in each thread.
    SmallVector<int64_t> ranges;
    for (auto [range, iterator] :
         llvm::zip(op.getStaticLoopRanges(), op.getIteratorTypesArray()))
      ranges.push_back(iterator == utils::IteratorType::parallel ? range : 1);
    ThreadTiles tiles = threadTiles(ranges, 1);
    return distributed(GpuKernelKind::thread_reduction, ranges, tiles.workgroup,
                       {}, tiles.thread);
  }

  GpuKernelConfigAttr gemm(linalg::LinalgOp op, const Projection &p) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    unsigned m = dims->m[0], n = dims->n[0];
    SmallVector<int64_t> workgroup(3, 0), subgroup(3, 0), thread(3, 0);
    bool halfWeights = p.weightType.isF16() || p.weightType.isBF16();
    if (tensorCores && halfWeights && p.rows % 16 == 0 && p.outputs % 8 == 0 &&
        p.features % 16 == 0) {
      // Warp tiles of up to 32x16 (2x2 mma.sync tiles), a 2x2 grid of
      // warps where the shape divides.
      int64_t warpRows = largestDividing(p.rows, {32, 16});
      int64_t warpCols = largestDividing(p.outputs, {16, 8});
      int64_t warpsM = largestDividing(p.rows / warpRows, {2});
      int64_t warpsN = largestDividing(p.outputs / warpCols, {2});
      subgroup[m] = warpRows;
      subgroup[n] = warpCols;
      workgroup[m] = warpRows * warpsM;
      workgroup[n] = warpCols * warpsN;
      return distributed(GpuKernelKind::gemm_mma, ranges, workgroup, subgroup,
                         {}, 1, 16);
    }
    int64_t tileRows = largestDividing(p.rows, {4, 2});
    int64_t tileCols = largestDividing(p.outputs, {4, 2});
    int64_t threadsY = largestDivisorAtMost(p.rows / tileRows, 16);
    int64_t threadsX = largestDivisorAtMost(p.outputs / tileCols, 16);
    thread[m] = tileRows;
    thread[n] = tileCols;
    workgroup[m] = tileRows * threadsY;
    workgroup[n] = tileCols * threadsX;
    int64_t chunk = largestDividing(p.features, {8, 4, 2});
    return distributed(GpuKernelKind::gemm_simt, ranges, workgroup, {}, thread,
                       1, chunk);
  }

  FailureOr<GpuKernelConfigAttr> selectAttention(AttentionKernelOp op) {
    auto queryType = cast<RankedTensorType>(op.getQuery().getType());
    if (!queryType.hasStaticShape())
      return op.emitOpError("has a dynamic number of query rows: no GPU "
                            "kernel for it");
    int64_t rows = queryType.getShape()[0];
    int64_t heads = op.getNumHeads();
    if (rows == 1) {
      int64_t splits = attentionSplits;
      if (splits == 0)
        splits =
            std::clamp<int64_t>(llvm::divideCeil(keyCapacity(op), 256), 1, 32);
      // Tiles: one query row and one head per block.
      return make(GpuKernelKind::attention_decode, {1, 1}, {}, {},
                  {4 * kWarpSize, 1, 1}, 1, 1, splits);
    }
    int64_t rowsPerBlock = largestDividing(rows, {4, 2});
    (void)heads;
    return make(GpuKernelKind::attention_prefill, {rowsPerBlock, 1}, {}, {},
                {rowsPerBlock * kWarpSize, 1, 1}, 1, 1, 1);
  }

  /// The most keys the attention can read: its keys' static size, or that
  /// of the cache they are a slice of.
  static int64_t keyCapacity(AttentionKernelOp op) {
    Value keys = op.getKey();
    int64_t dim = op.getKeysDim();
    auto type = cast<RankedTensorType>(keys.getType());
    if (!type.isDynamicDim(dim))
      return type.getDimSize(dim);
    if (auto slice = keys.getDefiningOp<tensor::ExtractSliceOp>()) {
      // The source dimension that the sliced keys dimension comes from.
      llvm::SmallBitVector dropped = slice.getDroppedDims();
      int64_t resultDim = 0;
      for (int64_t i = 0; i < slice.getSourceType().getRank(); ++i) {
        if (dropped.test(i))
          continue;
        if (resultDim++ == dim) {
          int64_t size = slice.getSourceType().getDimSize(i);
          if (!ShapedType::isDynamic(size))
            return size;
        }
      }
    }
    return 4096;
  }

  MLIRContext *context;
  GpuArch arch;
  bool tensorCores;
  int64_t attentionSplits;
  int64_t gemvMaxRows;
};

/// A tensor-core projection reads its activations in the weights' type:
/// `op` becomes the rounding of its activations (an elementwise kernel)
/// and the projection over them, which is returned.
linalg::GenericOp roundActivations(RewriterBase &b, linalg::GenericOp op,
                                   Type weightType) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value input = op.getDpsInputOperand(0)->get();
  auto inputType = cast<RankedTensorType>(input.getType());
  Value empty =
      tensor::EmptyOp::create(b, loc, inputType.getShape(), weightType);
  AffineMap identity = b.getMultiDimIdentityMap(inputType.getRank());
  auto rounded = linalg::GenericOp::create(
      b, loc, empty.getType(), input, empty,
      SmallVector<AffineMap>{identity, identity},
      SmallVector<utils::IteratorType>(inputType.getRank(),
                                       utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(
            nb, nloc,
            ValueRange{arith::TruncFOp::create(nb, nloc, weightType, args[0])});
      });
  Value weights = op.getDpsInputOperand(1)->get();
  Value init = op.getDpsInitOperand(0)->get();
  auto projection = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{rounded.getResult(0), weights}, init,
      op.getIndexingMapsArray(), op.getIteratorTypesArray(),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Type f32 = nb.getF32Type();
        Value x = arith::ExtFOp::create(nb, nloc, f32, args[0]);
        Value w = args[1].getType() == f32
                      ? args[1]
                      : arith::ExtFOp::create(nb, nloc, f32, args[1]);
        Value product = arith::MulFOp::create(nb, nloc, x, w);
        linalg::YieldOp::create(
            nb, nloc,
            ValueRange{arith::AddFOp::create(nb, nloc, args[2], product)});
      });
  b.replaceOp(op, projection.getResults());
  return projection;
}

/// Whether `fill` only initialises the outputs of reductions, whose tiles
/// fill their own slices.
bool initialisesReductions(linalg::FillOp fill) {
  Value result = fill.getResult(0);
  return !result.use_empty() &&
         llvm::all_of(result.getUses(), [](OpOperand &use) {
           auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
           return user && user.isDpsInit(&use) &&
                  user.getNumReductionLoops() > 0;
         });
}

struct TfmGpuSelectKernelConfig
    : mlir::tfm::impl::TfmGpuSelectKernelConfigBase<TfmGpuSelectKernelConfig> {
  using Base::Base;

  /// Where each tfm_gpu.dequantize is computed: in the warp reductions that
  /// read its matrix a lane's blocks at a time (tfm-gpu-vectorize), where a
  /// kernel's body extracts an element (an embedding's gather: that
  /// element, from its block), and for every other reader (a prefill GEMM,
  /// a reduction that reads it another way) once, as an elementwise kernel
  /// that writes it out in f32.
  LogicalResult placeDequantization(ConfigBuilder &builder) {
    SmallVector<DequantizeOp> ops;
    getOperation().walk([&](DequantizeOp op) { ops.push_back(op); });
    for (DequantizeOp op : ops) {
      Value materialized;
      for (OpOperand &use : llvm::make_early_inc_range(op->getUses())) {
        if (auto extract = dyn_cast<tensor::ExtractOp>(use.getOwner())) {
          OpBuilder b(extract);
          ValueRange at = extract.getIndices();
          extract.replaceAllUsesWith(
              extractDequantized(b, extract.getLoc(), op, at[0], at[1]));
          extract.erase();
          continue;
        }
        auto reader = dyn_cast<linalg::LinalgOp>(use.getOwner());
        if (reader && reader.hasPureTensorSemantics() &&
            !reader.hasDynamicShape()) {
          FailureOr<GpuKernelConfigAttr> config = builder.select(reader);
          if (failed(config))
            return failure();
          if (config->getKind() == GpuKernelKind::warp_reduction &&
              config->getVectorWidth() == dequantizedLaneWidth(op))
            continue;
        }
        if (!materialized) {
          OpBuilder b(op);
          b.setInsertionPointAfter(op);
          materialized = materializeDequantize(b, op);
        }
        use.set(materialized);
      }
      if (op->use_empty())
        op->erase();
    }
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<GpuArch> target = lookupArch(arch);
    if (!target) {
      module.emitError() << "unsupported GPU arch '" << arch
                         << "' (expected sm_80, sm_86, sm_89 or sm_90)";
      return signalPassFailure();
    }
    ConfigBuilder builder(&getContext(), *target, tensorCores, attentionSplits,
                          gemvMaxRows);
    if (failed(placeDequantization(builder)))
      return signalPassFailure();
    SmallVector<Operation *> tensorCoreOps;
    WalkResult result = module.walk([&](Operation *op) -> WalkResult {
      // The CPU backend's configured ops (packed and quantized panels)
      // come after its configuration, never before the GPU's.
      if (op->getDialect() &&
          op->getDialect()->getNamespace() == kCpuDialectNamespace)
        return op->emitOpError("is the CPU backend's (tfm_cpu): the GPU "
                               "pipeline takes target-neutral linalg");
      if (isa<TfmDialect>(op->getDialect()) &&
          !isa<AttentionKernelOp, WeightOp, GlobalWeightOp>(op))
        return op->emitOpError("has no GPU kernel: the GPU pipeline takes "
                               "linalg (run convert-tfm-to-linalg first)");
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      if (!isa<AttentionKernelOp>(op) &&
          (!linalgOp || !linalgOp.hasPureTensorSemantics()))
        return WalkResult::advance();
      if (auto fill = dyn_cast<linalg::FillOp>(op))
        if (initialisesReductions(fill))
          return WalkResult::advance();
      FailureOr<GpuKernelConfigAttr> config = builder.select(op);
      if (failed(config))
        return WalkResult::interrupt();
      setKernelConfig(op, *config);
      if (config->getKind() == GpuKernelKind::gemm_mma)
        tensorCoreOps.push_back(op);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    for (Operation *op : tensorCoreOps) {
      auto generic = cast<linalg::GenericOp>(op);
      std::optional<Projection> projection = matchProjection(generic);
      Type inputType =
          getElementTypeOrSelf(generic.getDpsInputOperand(0)->get().getType());
      if (inputType == projection->weightType)
        continue;
      GpuKernelConfigAttr config = getKernelConfig(op);
      linalg::GenericOp rounded =
          roundActivations(rewriter, generic, projection->weightType);
      setKernelConfig(rounded, config);
      auto rounding = cast<linalg::LinalgOp>(
          rounded.getDpsInputOperand(0)->get().getDefiningOp());
      FailureOr<GpuKernelConfigAttr> roundingConfig = builder.select(rounding);
      if (failed(roundingConfig))
        return signalPassFailure();
      setKernelConfig(rounding, *roundingConfig);
    }
  }
};

} // namespace
