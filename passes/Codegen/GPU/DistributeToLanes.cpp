//===- DistributeToLanes.cpp - Warp-wide vectors as per-lane slices -------===//
//
// The vector code inside a warp-mapped forall is warp-wide: one vector of N
// elements stands for a row the whole warp works on. Here each lane gets
// its slice: lane l holds elements [l * E, (l + 1) * E), E = ceil(N / 32),
// so the lanes of a warp load consecutive pieces of a row (one coalesced
// transaction of 32 * E elements). Only the ops the GPU generators emit in
// warp foralls are handled; anything else is an error, not a silent
// miscompile:
//
// - transfer_read / transfer_write of a row (1-D, along the memref's
//   innermost dimension): the lane's slice at index + l * E, masked when N
//   is not a multiple of 32 lanes;
// - elementwise ops, broadcasts, splat constants, scf.for carrying vectors:
//   the same on the lane's slice;
// - vector.step: l * E + step(E);
// - vector.reduction: the lane's slice, then gpu.subgroup_reduce across
//   the warp (every lane gets the result);
// - vector.shuffle whose every lane's slice is made of the same positions
//   of the lane's own slices of its operands (Q4_0's nibbles, a lane's
//   block): the same shuffle of the lane's slices;
// - a row of R values read as `[R, 1]`, broadcast to `[R, C]` and cast to
//   R * C elements (each value repeated C times: a block's scale along its
//   values), where no lane's slice crosses two values: the lane reads its
//   one value.
//
// Warp foralls holding vector.contract are tensor-core tiles, refused for
// now (see below).
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/GPU/Passes.h"

#include <limits>

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMGPUDISTRIBUTETOLANES
#include "passes/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

bool isWarpForall(scf::ForallOp forall) {
  std::optional<ArrayAttr> mapping = forall.getMapping();
  return mapping && !mapping->empty() &&
         isa<gpu::GPUWarpMappingAttr>((*mapping)[0]);
}

std::optional<gpu::AllReduceOperation>
subgroupOperation(vector::CombiningKind kind) {
  switch (kind) {
  case vector::CombiningKind::ADD:
    return gpu::AllReduceOperation::ADD;
  case vector::CombiningKind::MUL:
    return gpu::AllReduceOperation::MUL;
  case vector::CombiningKind::MAXIMUMF:
    return gpu::AllReduceOperation::MAXIMUMF;
  case vector::CombiningKind::MINIMUMF:
    return gpu::AllReduceOperation::MINIMUMF;
  case vector::CombiningKind::MAXNUMF:
    return gpu::AllReduceOperation::MAXNUMF;
  case vector::CombiningKind::MINNUMF:
    return gpu::AllReduceOperation::MINNUMF;
  default:
    return std::nullopt;
  }
}

/// The neutral element of a reduction over f32.
std::optional<double> identity(vector::CombiningKind kind) {
  double inf = std::numeric_limits<double>::infinity();
  switch (kind) {
  case vector::CombiningKind::ADD:
    return 0.0;
  case vector::CombiningKind::MUL:
    return 1.0;
  case vector::CombiningKind::MAXIMUMF:
  case vector::CombiningKind::MAXNUMF:
    return -inf;
  case vector::CombiningKind::MINIMUMF:
  case vector::CombiningKind::MINNUMF:
    return inf;
  default:
    return std::nullopt;
  }
}

class LaneDistribution {
public:
  LaneDistribution(RewriterBase &rewriter, scf::ForallOp forall)
      : rewriter(rewriter), forall(forall) {}

  LogicalResult run() {
    Location loc = forall.getLoc();
    rewriter.setInsertionPointToStart(forall.getBody());
    lane = gpu::LaneIdOp::create(rewriter, loc, /*upperBound=*/nullptr);
    SmallVector<Operation *> ops;
    // Types change as the walk goes: remember every warp-wide size first.
    auto remember = [&](Value value) {
      if (auto type = dyn_cast<VectorType>(value.getType());
          type && type.getRank() == 1)
        warpSizes[value] = type.getDimSize(0);
    };
    forall.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      ops.push_back(op);
      for (Value result : op->getResults())
        remember(result);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument argument : block.getArguments())
            remember(argument);
    });
    for (Operation *op : ops)
      if (failed(distribute(op)))
        return failure();
    for (Operation *op : llvm::reverse(dead))
      rewriter.eraseOp(op);
    for (Operation *op : llvm::reverse(replacedReads))
      if (op->use_empty())
        rewriter.eraseOp(op);
    return success();
  }

private:
  /// Elements of a warp-wide vector of `n` a lane holds.
  static int64_t perLane(int64_t n) { return llvm::divideCeil(n, kWarpSize); }

  /// The lane type of a warp-wide vector type.
  static Type laneType(Type type) {
    auto vector = dyn_cast<VectorType>(type);
    if (!vector || vector.getRank() != 1)
      return type;
    return VectorType::get({perLane(vector.getDimSize(0))},
                           vector.getElementType());
  }

  static bool isWarpWide(Type type) { return isa<VectorType>(type); }

  /// The warp-wide size of `value` (its type's, if defined outside the
  /// warp, where types do not change).
  int64_t warpSize(Value value) {
    if (int64_t size = warpSizes.lookup(value))
      return size;
    return cast<VectorType>(value.getType()).getDimSize(0);
  }

  /// l * E for warp-wide vectors of `n` elements.
  Value laneOffset(Location loc, int64_t n) {
    return arith::MulIOp::create(
        rewriter, loc, lane,
        arith::ConstantIndexOp::create(rewriter, loc, perLane(n)));
  }

  /// The mask of the lane's elements inside the first `n`, or null when
  /// 32 lanes cover n exactly.
  Value laneMask(Location loc, int64_t n) {
    if (n % kWarpSize == 0)
      return nullptr;
    int64_t e = perLane(n);
    // min(max(n - l * E, 0), E) elements of the slice are real.
    Value remaining = arith::SubIOp::create(
        rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, n),
        laneOffset(loc, n));
    Value count = arith::MaxSIOp::create(
        rewriter, loc, remaining,
        arith::ConstantIndexOp::create(rewriter, loc, 0));
    count = arith::MinSIOp::create(
        rewriter, loc, count, arith::ConstantIndexOp::create(rewriter, loc, e));
    return vector::CreateMaskOp::create(
        rewriter, loc, VectorType::get({e}, rewriter.getI1Type()),
        ValueRange{count});
  }

  /// The mask of the elements of the lane's slice starting at `start` of
  /// the innermost dimension of `base` that exist: inside the warp-wide
  /// row of `n`, and inside the buffer unless the transfer was in bounds.
  /// Null when every lane's slice is whole.
  Value sliceMask(Location loc, int64_t n, bool inBounds, Value base,
                  Value start) {
    if (inBounds && n % kWarpSize == 0)
      return nullptr;
    int64_t e = perLane(n);
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    // Elements of the row from this lane's slice on.
    Value count =
        arith::SubIOp::create(rewriter, loc, constant(n), laneOffset(loc, n));
    if (!inBounds) {
      auto type = cast<MemRefType>(base.getType());
      Value dim =
          memref::DimOp::create(rewriter, loc, base, type.getRank() - 1);
      count = arith::MinSIOp::create(
          rewriter, loc, count,
          arith::SubIOp::create(rewriter, loc, dim, start));
    }
    count = arith::MaxSIOp::create(rewriter, loc, count, constant(0));
    count = arith::MinSIOp::create(rewriter, loc, count, constant(e));
    return vector::CreateMaskOp::create(
        rewriter, loc, VectorType::get({e}, rewriter.getI1Type()),
        ValueRange{count});
  }

  LogicalResult checkRow(Operation *op, VectorType type, AffineMap map) {
    if (type.getRank() != 1 || !map.isMinorIdentity())
      return op->emitOpError("is not a row of warp-wide elements: no lane "
                             "distribution for it");
    return success();
  }

  /// Warp-wide operands from outside the warp can only be splat constants
  /// (hoisted there by canonicalisation): each use gets a lane-sized copy.
  LogicalResult localizeOperands(Operation *op) {
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      if (!isWarpWide(value.getType()) ||
          forall->isAncestor(value.getParentBlock()->getParentOp()))
        continue;
      auto constant = value.getDefiningOp<arith::ConstantOp>();
      auto splat = constant ? dyn_cast<SplatElementsAttr>(constant.getValue())
                            : SplatElementsAttr();
      if (!splat)
        return op->emitOpError("uses a warp-wide vector from outside its "
                               "warp");
      rewriter.setInsertionPoint(op);
      operand.set(arith::ConstantOp::create(
          rewriter, op->getLoc(),
          splat.resizeSplat(cast<ShapedType>(laneType(value.getType())))));
    }
    return success();
  }

  /// The read of a row broadcast along blocks: `read` of `[R, 1]` along
  /// the two innermost dimensions of a buffer, broadcast to `[R, C]`.
  static bool isRepeatedRowRead(vector::TransferReadOp read) {
    VectorType type = read.getVectorType();
    return type.getRank() == 2 && type.getDimSize(1) == 1 &&
           read.getPermutationMap().isMinorIdentity() &&
           llvm::all_of(read->getUsers(), [](Operation *user) {
             auto broadcast = dyn_cast<vector::BroadcastOp>(user);
             return broadcast &&
                    broadcast.getResultVectorType().getRank() == 2 &&
                    llvm::all_of(broadcast->getUsers(),
                                 llvm::IsaPred<vector::ShapeCastOp>);
           });
  }

  /// A row of repeated values (see isRepeatedRowRead): each lane reads the
  /// one value its slice repeats, masked as the row's read was.
  LogicalResult distributeRepeatedRow(vector::ShapeCastOp cast,
                                      vector::BroadcastOp broadcast,
                                      vector::TransferReadOp read) {
    Location loc = cast.getLoc();
    VectorType repeated = broadcast.getResultVectorType();
    int64_t n = repeated.getNumElements(), e = perLane(n);
    int64_t c = repeated.getDimSize(1);
    if (n % kWarpSize != 0 || c % e != 0)
      return cast.emitOpError("repeats each value ")
             << c << " times, which lane slices of " << e
             << " cross: no lane distribution for it";
    Value laneRow = arith::DivUIOp::create(
        rewriter, loc, laneOffset(loc, n),
        arith::ConstantIndexOp::create(rewriter, loc, c));
    SmallVector<Value> indices(read.getIndices());
    Value &rowIndex = indices[indices.size() - 2];
    rowIndex = arith::AddIOp::create(rewriter, loc, rowIndex, laneRow);
    Type element = repeated.getElementType();
    Value one = vector::TransferReadOp::create(
        rewriter, loc, VectorType::get({1, 1}, element), read.getBase(),
        indices, read.getPadding(), read.getInBoundsValues());
    Value value =
        vector::ExtractOp::create(rewriter, loc, one, ArrayRef<int64_t>{0, 0});
    Value lanes = vector::BroadcastOp::create(
        rewriter, loc, VectorType::get({e}, element), value);
    rewriter.replaceAllUsesWith(cast.getResult(), lanes);
    dead.push_back(cast);
    replacedReads.push_back(read);
    replacedReads.push_back(broadcast);
    return success();
  }

  /// A shuffle whose every lane takes the same positions of its own slices
  /// of the operands: that shuffle of the slices.
  LogicalResult distributeShuffle(vector::ShuffleOp shuffle) {
    int64_t n1 = warpSize(shuffle.getV1()), n2 = warpSize(shuffle.getV2());
    ArrayRef<int64_t> mask = shuffle.getMask();
    int64_t n = mask.size();
    auto fail = [&]() {
      return shuffle.emitOpError("moves elements between lanes: no lane "
                                 "distribution for it");
    };
    if (n % kWarpSize != 0 || n1 % kWarpSize != 0 || n2 % kWarpSize != 0)
      return fail();
    int64_t e = n / kWarpSize, e1 = n1 / kWarpSize, e2 = n2 / kWarpSize;
    SmallVector<int64_t> local(e);
    for (int64_t l = 0; l < kWarpSize; ++l) {
      for (int64_t j = 0; j < e; ++j) {
        int64_t source = mask[l * e + j], position;
        if (source < 0)
          return fail();
        if (source < n1) {
          if (source / e1 != l)
            return fail();
          position = source % e1;
        } else {
          if ((source - n1) / e2 != l)
            return fail();
          position = e1 + (source - n1) % e2;
        }
        if (l == 0)
          local[j] = position;
        else if (local[j] != position)
          return fail();
      }
    }
    Value lanes = vector::ShuffleOp::create(
        rewriter, shuffle.getLoc(), shuffle.getV1(), shuffle.getV2(), local);
    rewriter.replaceAllUsesWith(shuffle.getResult(), lanes);
    dead.push_back(shuffle);
    return success();
  }

  LogicalResult distribute(Operation *op) {
    if (failed(localizeOperands(op)))
      return failure();
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    if (auto read = dyn_cast<vector::TransferReadOp>(op);
        read && isRepeatedRowRead(read)) {
      if (!isa<MemRefType>(read.getBase().getType()))
        return op->emitOpError("reads a tensor in a warp: bufferize first");
      // Each lane reads its value where the row is cast (below).
      return success();
    }
    if (auto cast = dyn_cast<vector::ShapeCastOp>(op)) {
      auto broadcast = cast.getSource().getDefiningOp<vector::BroadcastOp>();
      auto read =
          broadcast
              ? broadcast.getSource().getDefiningOp<vector::TransferReadOp>()
              : nullptr;
      if (!read || !isRepeatedRowRead(read) ||
          cast.getResultVectorType().getRank() != 1)
        return op->emitOpError("has no lane distribution");
      return distributeRepeatedRow(cast, broadcast, read);
    }
    if (auto shuffle = dyn_cast<vector::ShuffleOp>(op))
      return distributeShuffle(shuffle);
    if (auto read = dyn_cast<vector::TransferReadOp>(op)) {
      VectorType type = read.getVectorType();
      if (failed(checkRow(op, type, read.getPermutationMap())))
        return failure();
      if (!isa<MemRefType>(read.getBase().getType()))
        return op->emitOpError("reads a tensor in a warp: bufferize first");
      int64_t n = type.getDimSize(0);
      SmallVector<Value> indices(read.getIndices());
      indices.back() = arith::AddIOp::create(rewriter, loc, indices.back(),
                                             laneOffset(loc, n));
      auto laneVector = cast<VectorType>(laneType(type));
      Value mask = sliceMask(loc, n, read.getInBoundsValues()[0],
                             read.getBase(), indices.back());
      Value lanes;
      if (!mask) {
        lanes = vector::LoadOp::create(rewriter, loc, laneVector,
                                       read.getBase(), indices);
      } else {
        Value padding = vector::BroadcastOp::create(rewriter, loc, laneVector,
                                                    read.getPadding());
        lanes = vector::MaskedLoadOp::create(
            rewriter, loc, laneVector, read.getBase(), indices, mask, padding);
      }
      rewriter.replaceAllUsesWith(read.getResult(), lanes);
      dead.push_back(op);
      return success();
    }
    if (auto write = dyn_cast<vector::TransferWriteOp>(op)) {
      if (write.getVectorType().getRank() != 1 ||
          !write.getPermutationMap().isMinorIdentity())
        return op->emitOpError("is not a row of warp-wide elements: no lane "
                               "distribution for it");
      if (!isa<MemRefType>(write.getBase().getType()))
        return op->emitOpError("writes a tensor in a warp: bufferize first");
      int64_t n = warpSize(write.getVector());
      SmallVector<Value> indices(write.getIndices());
      indices.back() = arith::AddIOp::create(rewriter, loc, indices.back(),
                                             laneOffset(loc, n));
      Value mask = sliceMask(loc, n, write.getInBoundsValues()[0],
                             write.getBase(), indices.back());
      if (!mask)
        vector::StoreOp::create(rewriter, loc, write.getVector(),
                                write.getBase(), indices);
      else
        vector::MaskedStoreOp::create(rewriter, loc, write.getBase(), indices,
                                      mask, write.getVector());
      dead.push_back(op);
      return success();
    }
    if (auto reduction = dyn_cast<vector::ReductionOp>(op)) {
      std::optional<gpu::AllReduceOperation> kind =
          subgroupOperation(reduction.getKind());
      if (!kind)
        return op->emitOpError("has no warp-wide reduction");
      int64_t n = warpSize(reduction.getVector());
      Value source = reduction.getVector();
      // Padding elements (lanes past the row) must not count.
      if (Value mask = laneMask(loc, n)) {
        std::optional<double> neutral = identity(reduction.getKind());
        auto type = cast<VectorType>(source.getType());
        if (!neutral || !type.getElementType().isF32())
          return op->emitOpError("reduces a padded row with no neutral "
                                 "element: no lane distribution for it");
        Value splat = arith::ConstantOp::create(
            rewriter, loc,
            DenseElementsAttr::get(type, rewriter.getF32FloatAttr(*neutral)));
        source = arith::SelectOp::create(rewriter, loc, mask, source, splat);
      }
      Value partial = vector::ReductionOp::create(rewriter, loc,
                                                  reduction.getKind(), source)
                          .getResult();
      Value total = gpu::SubgroupReduceOp::create(rewriter, loc, partial, *kind,
                                                  /*uniform=*/true);
      if (Value acc = reduction.getAcc())
        total = vector::makeArithReduction(rewriter, loc, reduction.getKind(),
                                           total, acc);
      rewriter.replaceAllUsesWith(reduction.getResult(), total);
      dead.push_back(op);
      return success();
    }
    if (auto step = dyn_cast<vector::StepOp>(op)) {
      int64_t n = step.getResult().getType().getDimSize(0);
      auto type = cast<VectorType>(laneType(step.getResult().getType()));
      Value local = vector::StepOp::create(rewriter, loc, type);
      Value offset =
          vector::BroadcastOp::create(rewriter, loc, type, laneOffset(loc, n));
      rewriter.replaceAllUsesWith(
          step.getResult(),
          arith::AddIOp::create(rewriter, loc, local, offset));
      dead.push_back(op);
      return success();
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (!isWarpWide(constant.getType()))
        return success();
      auto splat = dyn_cast<SplatElementsAttr>(constant.getValue());
      if (!splat)
        return op->emitOpError("is a warp-wide constant that is not a splat");
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          constant,
          splat.resizeSplat(cast<ShapedType>(laneType(constant.getType()))));
      return success();
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (Value value : loop.getRegionIterArgs())
        value.setType(laneType(value.getType()));
      for (Value value : loop.getResults())
        value.setType(laneType(value.getType()));
      return success();
    }
    if (isa<scf::YieldOp, scf::InParallelOp, vector::TransferWriteOp>(op))
      return success();
    bool touchesVectors = llvm::any_of(op->getResultTypes(), isWarpWide) ||
                          llvm::any_of(op->getOperandTypes(), isWarpWide);
    if (!touchesVectors)
      return success();
    if (isa<vector::BroadcastOp>(op) ||
        OpTrait::hasElementwiseMappableTraits(op)) {
      for (Value result : op->getResults())
        result.setType(laneType(result.getType()));
      return success();
    }
    return op->emitOpError("has no lane distribution");
  }

  RewriterBase &rewriter;
  scf::ForallOp forall;
  Value lane;
  SmallVector<Operation *> dead;
  /// The repeated rows' reads and broadcasts, erased once no cast uses them.
  SmallVector<Operation *> replacedReads;
  /// The size of each warp-wide vector before distribution.
  DenseMap<Value, int64_t> warpSizes;
};

struct TfmGpuDistributeToLanes
    : mlir::tfm::impl::TfmGpuDistributeToLanesBase<TfmGpuDistributeToLanes> {
  void runOnOperation() override {
    SmallVector<scf::ForallOp> warps;
    getOperation()->walk([&](scf::ForallOp forall) {
      if (isWarpForall(forall))
        warps.push_back(forall);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForallOp forall : warps) {
      bool tensorCores = forall
                             .walk([](vector::ContractionOp) {
                               return WalkResult::interrupt();
                             })
                             .wasInterrupted();
      // Upstream's conversion to nvgpu.mma.sync (convert-vector-to-gpu's
      // convertVectorToNVVMCompatibleMMASync) crashes on these warps when
      // run here, though it converts the same function on its own: until
      // that is understood, tensor-core tiles are refused, not lowered.
      if (tensorCores) {
        forall.emitOpError("holds tensor-core (gemm_mma) tiles, whose "
                           "mma.sync lowering is unfinished: select kernel "
                           "configs with tensor-cores=false");
        return signalPassFailure();
      }
      if (failed(LaneDistribution(rewriter, forall).run()))
        return signalPassFailure();
    }
  }
};

} // namespace
