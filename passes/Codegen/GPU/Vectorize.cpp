//===- Vectorize.cpp - Vector code for the thread, warp and mma tiles -----===//
//
// The innermost tiles tfm-gpu-tile-and-distribute leaves keep their
// #tfm_gpu.kernel config; each kind gets its vector form here, still on
// tensors and still runnable on a CPU:
//
// - elementwise: linalg vectorisation of the thread's tile;
// - warp_reduction: a loop over the reduced dimension in warp-wide vectors
//   (WarpReduction below);
// - gemm_simt / gemm_mma: a loop over the reduction whose accumulator tiles
//   are loop-carried vectors, each step one vector.contract per tile (per
//   m16n8k16 tile for tensor cores);
// - thread_reduction: left to linalg's loops after bufferization.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/GPU/Dequantize.h"
#include "passes/Codegen/GPU/KernelShapes.h"
#include "passes/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/IRMapping.h"

#include <cmath>
#include <limits>

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMGPUVECTORIZE
#include "passes/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// The neutral element of `kind` in f32.
double identity(vector::CombiningKind kind) {
  switch (kind) {
  case vector::CombiningKind::MAXIMUMF:
  case vector::CombiningKind::MAXNUMF:
    return -std::numeric_limits<double>::infinity();
  case vector::CombiningKind::MINIMUMF:
  case vector::CombiningKind::MINNUMF:
    return std::numeric_limits<double>::infinity();
  default:
    return 0.0;
  }
}

/// A value of a warp reduction's body: uniform (the same scalar in every
/// lane) or a warp-wide vector along the reduced dimension.
struct Lanes {
  Value value;
  bool isVector;
};

/// A reduction over the innermost loop, one warp per tile: the reduced
/// dimension is walked `chunk` elements a step, in warp-wide vector slices
/// of `32 * vector_width` elements (one coalesced load of `vector_width`
/// elements per lane once distributed), the body applied to each slice and
/// folded into one accumulator vector per output, each reduced once at the
/// end and combined with the output's initial value.
class WarpReduction {
public:
  WarpReduction(linalg::GenericOp op, GpuKernelConfigAttr config,
                InnermostReduction reduction)
      : op(op), reduction(reduction), ranges(op.getStaticLoopRanges()),
        slice(kWarpSize * config.getVectorWidth()),
        chunk(std::max(config.getChunk(), slice)) {}

  LogicalResult rewrite(RewriterBase &b) {
    Location loc = op.getLoc();
    b.setInsertionPoint(op);
    int64_t reduced = ranges.back();
    SmallVector<int64_t> parallel(ranges.begin(), ranges.end() - 1);
    int64_t outputs = computeProduct(parallel);
    if (outputs > 16)
      return op.emitOpError("reduces ")
             << outputs << " outputs in one warp; at most 16 fit registers";
    for (int64_t p = 0; p < outputs; ++p)
      points.push_back(delinearize(p, computeStrides(parallel)));

    auto accType = VectorType::get({slice}, b.getF32Type());
    Value neutral = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(accType,
                               b.getF32FloatAttr(identity(reduction.kind))));
    SmallVector<Value> accs(outputs, neutral);

    int64_t fullSteps = reduced / chunk;
    if (fullSteps > 0) {
      auto loop = scf::ForOp::create(b, loc, indexConstant(b, loc, 0),
                                     indexConstant(b, loc, fullSteps * chunk),
                                     indexConstant(b, loc, chunk), accs);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> carried(loop.getRegionIterArgs());
      for (int64_t u = 0; u < chunk / slice; ++u) {
        Value offset = arith::AddIOp::create(b, loc, loop.getInductionVar(),
                                             indexConstant(b, loc, u * slice));
        if (failed(step(b, loc, offset, slice, carried)))
          return failure();
      }
      scf::YieldOp::create(b, loc, carried);
      accs.assign(loop.getResults().begin(), loop.getResults().end());
    }
    // The rest: whole slices, then one masked slice.
    for (int64_t start = fullSteps * chunk; start < reduced; start += slice)
      if (failed(step(b, loc, indexConstant(b, loc, start),
                      std::min(slice, reduced - start), accs)))
        return failure();

    // A fill's value is the initial one; its outputs are written directly
    // (the fill is then dead), not filled and then overwritten.
    Value init = op.getDpsInitOperand(0)->get();
    Value result = init;
    std::optional<Value> filled;
    if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
      filled = fill.getInputs()[0];
      result = fill.getOutputs()[0];
    }
    AffineMap outMap = op.getIndexingMapsArray().back();
    for (auto [point, acc] : llvm::zip(points, accs)) {
      Value total =
          vector::ReductionOp::create(b, loc, reduction.kind, acc).getResult();
      SmallVector<Value> indices = indicesAt(b, loc, outMap, point);
      Value initial =
          filled ? *filled
                 : tensor::ExtractOp::create(b, loc, init, indices).getResult();
      Value combined = combine(b, loc, initial, total);
      result = tensor::InsertOp::create(b, loc, combined, result, indices);
    }
    b.replaceOp(op, result);
    return success();
  }

private:
  /// Folds one slice of `width` elements (the whole slice unless it is the
  /// last, partial one) starting at `offset` into `accs`.
  LogicalResult step(OpBuilder &b, Location loc, Value offset, int64_t width,
                     SmallVector<Value> &accs) {
    reads.clear();
    Value mask;
    if (width < slice) {
      auto indexVector = VectorType::get({slice}, b.getIndexType());
      Value lanes = vector::StepOp::create(b, loc, indexVector);
      Value bound = vector::BroadcastOp::create(b, loc, indexVector,
                                                indexConstant(b, loc, width));
      mask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lanes,
                                   bound);
    }
    for (auto [p, point] : llvm::enumerate(points)) {
      FailureOr<Value> value = body(b, loc, point, offset, width < slice);
      if (failed(value))
        return failure();
      Value folded = *value;
      if (mask)
        folded = arith::SelectOp::create(
            b, loc, mask, folded,
            arith::ConstantOp::create(
                b, loc,
                DenseElementsAttr::get(
                    cast<VectorType>(folded.getType()),
                    b.getF32FloatAttr(identity(reduction.kind)))));
      accs[p] = combine(b, loc, accs[p], folded);
    }
    return success();
  }

  /// The body's value (the combiner's non-accumulator operand) at the
  /// output `point` for the slice at `offset`, as a warp-wide vector.
  FailureOr<Value> body(OpBuilder &b, Location loc, ArrayRef<int64_t> point,
                        Value offset, bool partial) {
    IRMapping scalars;
    DenseMap<Value, Value> vectors;
    Block *block = op.getBlock();
    auto lanes = [&](Value v) -> Lanes {
      if (Value vec = vectors.lookup(v))
        return {vec, true};
      return {scalars.lookupOrDefault(v), false};
    };
    for (OpOperand *input : op.getDpsInputOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(input);
      AffineMap map = op.getMatchingIndexingMap(input);
      if (map.getNumResults() > 0 &&
          map.getResults().back().isFunctionOfDim(ranges.size() - 1))
        vectors[arg] =
            readSlice(b, loc, input->get(), map, point, offset, partial);
      else if (isa<ShapedType>(input->get().getType()))
        scalars.map(arg,
                    tensor::ExtractOp::create(b, loc, input->get(),
                                              indicesAt(b, loc, map, point)));
      else
        scalars.map(arg, input->get());
    }
    auto widen = [&](Value v, Type element) -> Value {
      auto type = VectorType::get({slice}, element);
      return v.getType() == type
                 ? v
                 : vector::BroadcastOp::create(b, loc, type, v).getResult();
    };
    // The reduced index has no scalar value: it may only be the last
    // index of a gathered row.
    Value reducedIndex;
    for (Operation &inner : block->without_terminator()) {
      if (&inner == reduction.combiner)
        break;
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        if (index.getDim() == ranges.size() - 1)
          reducedIndex = index.getResult();
        else
          scalars.map(index.getResult(),
                      indexConstant(b, loc, point[index.getDim()]));
        continue;
      }
      if (auto extract = dyn_cast<tensor::ExtractOp>(inner);
          extract && reducedIndex &&
          llvm::is_contained(extract.getIndices(), reducedIndex)) {
        FailureOr<Value> row = readGatheredSlice(b, loc, extract, reducedIndex,
                                                 scalars, offset, partial);
        if (failed(row))
          return failure();
        vectors[extract.getResult()] = *row;
        continue;
      }
      if (reducedIndex && llvm::is_contained(inner.getOperands(), reducedIndex))
        return inner.emitOpError("reads the reduced index: no warp reduction "
                                 "for it");
      bool anyVector = llvm::any_of(
          inner.getOperands(), [&](Value v) { return vectors.count(v) != 0; });
      if (!anyVector) {
        b.clone(inner, scalars);
        continue;
      }
      if (!OpTrait::hasElementwiseMappableTraits(&inner) ||
          inner.getNumRegions() != 0 || inner.getNumResults() != 1)
        return inner.emitOpError("is not elementwise: no warp reduction for "
                                 "it");
      OperationState state(inner.getLoc(), inner.getName());
      for (Value operand : inner.getOperands()) {
        Lanes l = lanes(operand);
        state.operands.push_back(
            l.isVector ? l.value : widen(l.value, l.value.getType()));
      }
      state.types.push_back(
          VectorType::get({slice}, inner.getResult(0).getType()));
      state.attributes = inner.getAttrs();
      vectors[inner.getResult(0)] = b.create(state)->getResult(0);
    }
    int accumulator =
        reduction.combiner->getOperand(0) ==
                op.getMatchingBlockArgument(op.getDpsInitOperand(0))
            ? 0
            : 1;
    Value value = reduction.combiner->getOperand(1 - accumulator);
    Lanes result = lanes(value);
    return result.isVector ? result.value : widen(result.value, b.getF32Type());
  }

  /// The slice of an operand row along the reduced dimension.
  Value readSlice(OpBuilder &b, Location loc, Value tensor, AffineMap map,
                  ArrayRef<int64_t> point, Value offset, bool partial) {
    SmallVector<Value> indices =
        indicesAt(b, loc, map.dropResult(map.getNumResults() - 1), point);
    // Every output of the warp reading the same row shares one read.
    SmallVector<int64_t> key;
    for (Value index : indices)
      key.push_back(*getConstantIntValue(index));
    auto found = reads.find({tensor, key});
    if (found != reads.end())
      return found->second;
    Value read;
    if (std::optional<DequantizedRows> rows = traceDequantizedRows(tensor)) {
      // A row of GGUF blocks: read and dequantized here, a lane's 16 bytes
      // of quants a step.
      Value row = indices.front();
      for (OpFoldResult rowOffset : rows->rowOffsets)
        row = arith::AddIOp::create(
            b, loc, row, getValueOrCreateConstantIndexOp(b, loc, rowOffset));
      read =
          readDequantizedSlice(b, loc, rows->op, row, offset, slice, partial);
    } else {
      indices.push_back(offset);
      read = readRow(b, loc, tensor, indices, partial);
    }
    reads[{tensor, key}] = read;
    return read;
  }

  /// A warp-wide slice of `tensor` at `indices` (the last one the slice's
  /// start), zero-padded past the row's end when `partial`.
  Value readRow(OpBuilder &b, Location loc, Value tensor,
                ArrayRef<Value> indices, bool partial) {
    Type element = cast<ShapedType>(tensor.getType()).getElementType();
    Value padding = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    return vector::TransferReadOp::create(
               b, loc, VectorType::get({slice}, element), tensor, indices,
               padding, ArrayRef<bool>{!partial})
        .getResult();
  }

  /// The slice at `offset` of a row that the body gathers:
  /// `tensor.extract %t[%i..., %reduced]`, the indices before the reduced
  /// one uniform across the warp (computed from the output's point and the
  /// operands that do not vary along the reduction).
  FailureOr<Value> readGatheredSlice(OpBuilder &b, Location loc,
                                     tensor::ExtractOp extract,
                                     Value reducedIndex, IRMapping &scalars,
                                     Value offset, bool partial) {
    SmallVector<Value> indices;
    for (Value index : extract.getIndices().drop_back()) {
      if (index == reducedIndex)
        return extract.emitOpError("gathers along a dimension other than its "
                                   "innermost: no warp reduction for it");
      indices.push_back(scalars.lookupOrDefault(index));
    }
    indices.push_back(offset);
    return readRow(b, loc, extract.getTensor(), indices, partial);
  }

  /// Indices of `map`'s results at the parallel `point` of the tile.
  static SmallVector<Value> indicesAt(OpBuilder &b, Location loc, AffineMap map,
                                      ArrayRef<int64_t> point) {
    SmallVector<Value> indices;
    for (AffineExpr e : map.getResults()) {
      int64_t value = 0;
      if (auto dim = dyn_cast<AffineDimExpr>(e))
        value = dim.getPosition() < point.size() ? point[dim.getPosition()] : 0;
      else if (auto constant = dyn_cast<AffineConstantExpr>(e))
        value = constant.getValue();
      indices.push_back(indexConstant(b, loc, value));
    }
    return indices;
  }

  /// The combiner applied to (accumulated, value), scalars or vectors.
  Value combine(OpBuilder &b, Location loc, Value accumulated, Value value) {
    OperationState state(loc, reduction.combiner->getName());
    state.operands = {accumulated, value};
    state.types.push_back(accumulated.getType());
    state.attributes = reduction.combiner->getAttrs();
    return b.create(state)->getResult(0);
  }

  linalg::GenericOp op;
  InnermostReduction reduction;
  SmallVector<int64_t> ranges;
  int64_t slice, chunk;
  SmallVector<SmallVector<int64_t>> points;
  std::map<std::pair<Value, SmallVector<int64_t>>, Value,
           std::function<bool(const std::pair<Value, SmallVector<int64_t>> &,
                              const std::pair<Value, SmallVector<int64_t>> &)>>
      reads{[](const auto &l, const auto &r) {
        if (l.first != r.first)
          return l.first.getAsOpaquePointer() < r.first.getAsOpaquePointer();
        return l.second < r.second;
      }};
};

/// The loops of a projection tile: (m, n, k) positions among its loops.
struct ProjectionLoops {
  unsigned m, n, k;
  int64_t rows, outputs, features;
};

std::optional<ProjectionLoops> projectionLoops(linalg::LinalgOp op) {
  if (!matchProjection(op))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  ProjectionLoops loops{dims->m[0], dims->n[0], dims->k[0], 0, 0, 0};
  loops.rows = ranges[loops.m];
  loops.outputs = ranges[loops.n];
  loops.features = ranges[loops.k];
  return loops;
}

/// A projection tile `out[m, n] += in[m, k] * w[n, k]` as a loop over k in
/// steps of `step`, whose accumulator tiles of `tileM x tileN` are carried
/// in vectors: each step reads `tileM x step` activations and `tileN x step`
/// weights per tile and contracts them. With `lhsType` the activations are
/// read as that type (tensor cores: f16/bf16 operands, f32 accumulators);
/// otherwise the weights are widened to the activations' f32.
LogicalResult contractProjection(RewriterBase &b, linalg::LinalgOp op,
                                 int64_t step, int64_t tileM, int64_t tileN) {
  std::optional<ProjectionLoops> loops = projectionLoops(op);
  if (!loops)
    return op->emitOpError("is not a projection: no GEMM kernel for it");
  if (loops->rows % tileM || loops->outputs % tileN || loops->features % step)
    return op->emitOpError("has a tile of ")
           << loops->rows << "x" << loops->outputs << "x" << loops->features
           << " that " << tileM << "x" << tileN << "x" << step
           << " tiles do not divide";
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value input = op.getDpsInputOperand(0)->get();
  Value weights = op.getDpsInputOperand(1)->get();
  Value init = op.getDpsInitOperand(0)->get();
  Type inputType = cast<ShapedType>(input.getType()).getElementType();
  Type weightType = cast<ShapedType>(weights.getType()).getElementType();
  Type f32 = b.getF32Type();
  // Output tiles are [m, n] of the init, whatever the loop order: the init
  // is indexed (m, n) or (n, m).
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  bool outTransposed =
      outMap.getResult(0) != getAffineDimExpr(loops->m, op.getContext());
  MLIRContext *context = op.getContext();
  AffineExpr m = getAffineDimExpr(0, context), n = getAffineDimExpr(1, context),
             k = getAffineDimExpr(2, context);
  auto maps = b.getAffineMapArrayAttr({AffineMap::get(3, 0, {m, k}, context),
                                       AffineMap::get(3, 0, {n, k}, context),
                                       AffineMap::get(3, 0, {m, n}, context)});
  auto iterators = b.getArrayAttr(
      {vector::IteratorTypeAttr::get(context, vector::IteratorType::parallel),
       vector::IteratorTypeAttr::get(context, vector::IteratorType::parallel),
       vector::IteratorTypeAttr::get(context,
                                     vector::IteratorType::reduction)});
  auto accType = VectorType::get({tileM, tileN}, f32);
  // The init's [tileM, tileN] tile at (mi, ni): read transposed when the
  // init is [n, m].
  auto permutation =
      outTransposed
          ? AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, context)
          : AffineMap::getMultiDimIdentityMap(2, context);
  auto tileIndices = [&](int64_t mi, int64_t ni) -> SmallVector<Value> {
    Value mv = indexConstant(b, loc, mi), nv = indexConstant(b, loc, ni);
    return outTransposed ? SmallVector<Value>{nv, mv}
                         : SmallVector<Value>{mv, nv};
  };
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(f32));
  SmallVector<Value> accs;
  SmallVector<std::pair<int64_t, int64_t>> tiles;
  for (int64_t mi = 0; mi < loops->rows; mi += tileM)
    for (int64_t ni = 0; ni < loops->outputs; ni += tileN) {
      tiles.push_back({mi, ni});
      accs.push_back(vector::TransferReadOp::create(
          b, loc, accType, init, tileIndices(mi, ni), zero, permutation,
          ArrayRef<bool>{true, true}));
    }
  auto loop = scf::ForOp::create(b, loc, indexConstant(b, loc, 0),
                                 indexConstant(b, loc, loops->features),
                                 indexConstant(b, loc, step), accs);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kv = loop.getInductionVar();
    DenseMap<int64_t, Value> lhs, rhs;
    auto read = [&](Value tensor, int64_t row, int64_t rows,
                    Type element) -> Value {
      Value padding = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
      return vector::TransferReadOp::create(
          b, loc, VectorType::get({rows, step}, element), tensor,
          ValueRange{indexConstant(b, loc, row), kv}, padding,
          ArrayRef<bool>{true, true});
    };
    SmallVector<Value> next;
    for (auto [tile, acc] : llvm::zip(tiles, loop.getRegionIterArgs())) {
      auto [mi, ni] = tile;
      if (!lhs.count(mi))
        lhs[mi] = read(input, mi, tileM, inputType);
      if (!rhs.count(ni)) {
        Value w = read(weights, ni, tileN, weightType);
        // Both operands of a contraction have one element type.
        if (weightType != inputType)
          w = arith::ExtFOp::create(
              b, loc, VectorType::get({tileN, step}, inputType), w);
        rhs[ni] = w;
      }
      next.push_back(vector::ContractionOp::create(b, loc, lhs[mi], rhs[ni],
                                                   acc, maps, iterators));
    }
    scf::YieldOp::create(b, loc, next);
  }
  Value result = init;
  for (auto [tile, acc] : llvm::zip(tiles, loop.getResults()))
    result = vector::TransferWriteOp::create(
                 b, loc, acc, result, tileIndices(tile.first, tile.second),
                 permutation, ArrayRef<bool>{true, true})
                 .getResult();
  b.replaceOp(op, result);
  return success();
}

LogicalResult vectorizeKernel(RewriterBase &b, linalg::LinalgOp op,
                              GpuKernelConfigAttr config) {
  switch (config.getKind()) {
  case GpuKernelKind::elementwise: {
    // A tile the vectoriser cannot handle stays a loop: slower, not wrong.
    if (failed(linalg::vectorizeOpPrecondition(op, {}, {},
                                               /*vectorizeNDExtract=*/true)))
      return success();
    b.setInsertionPoint(op);
    FailureOr<linalg::VectorizationResult> result =
        linalg::vectorize(b, op, {}, {}, /*vectorizeNDExtract=*/true);
    if (failed(result))
      return success();
    b.replaceOp(op, result->replacements);
    return success();
  }
  case GpuKernelKind::warp_reduction: {
    std::optional<InnermostReduction> reduction = matchInnermostReduction(op);
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!reduction || !generic)
      return op->emitOpError("is configured as a warp reduction but does not "
                             "reduce its innermost, contiguous dimension");
    return WarpReduction(generic, config, *reduction).rewrite(b);
  }
  case GpuKernelKind::gemm_simt: {
    std::optional<ProjectionLoops> loops = projectionLoops(op);
    if (!loops)
      return op->emitOpError("is not a projection: no GEMM kernel for it");
    return contractProjection(b, op, config.getChunk(), loops->rows,
                              loops->outputs);
  }
  case GpuKernelKind::gemm_mma:
    // Native m16n8k16 tiles, each a contraction of f16/bf16 operands.
    return contractProjection(b, op, 16, 16, 8);
  default:
    return success();
  }
}

struct TfmGpuVectorize : mlir::tfm::impl::TfmGpuVectorizeBase<TfmGpuVectorize> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> tiles;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (getKernelConfig(op) && op->getParentOfType<scf::ForallOp>() &&
          op.hasPureTensorSemantics())
        tiles.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : tiles)
      if (failed(vectorizeKernel(rewriter, op, getKernelConfig(op))))
        return signalPassFailure();
  }
};

} // namespace
