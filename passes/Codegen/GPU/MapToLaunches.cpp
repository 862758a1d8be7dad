//===- MapToLaunches.cpp - Block foralls as gpu.launch, the rest on the host
//-===//
//
// After bufferization an entry is host code around kernels: each top-level
// scf.forall mapped to #gpu.block ids is one kernel. It becomes a
// gpu.launch of its grid and of the block its #tfm_gpu.kernel config says;
// upstream's forall-to-threads mapping turns the warp and thread foralls
// inside into ids (with a barrier after each). Shared memory allocations
// become the launch's workgroup attributions.
//
// Two things make the launches of equal layers equal, so that outlining and
// tfm-gpu-dedup-kernels give them one gpu.func: constants and constant
// globals are cloned into the kernel (outlining would otherwise pass each
// as an argument, a global as a pointer to host memory), and
// buffers with a static offset in their type (a layer's slice of the KV
// cache) are passed with a dynamic one.
//
// What stays on the host may not touch memory itself: allocations become
// device allocations and copies device copies.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/TransformOps/GPUTransformOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMGPUMAPTOLAUNCHES
#include "passes/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

bool isBlockForall(scf::ForallOp forall) {
  std::optional<ArrayAttr> mapping = forall.getMapping();
  return mapping && !mapping->empty() &&
         isa<gpu::GPUBlockMappingAttr>((*mapping)[0]);
}

bool isWorkgroupMemory(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// `type` with a dynamic offset, if it has a static, strided layout.
MemRefType withDynamicOffset(MemRefType type) {
  auto layout = dyn_cast<StridedLayoutAttr>(type.getLayout());
  if (!layout || ShapedType::isDynamic(layout.getOffset()))
    return type;
  auto dynamic = StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic,
                                        layout.getStrides());
  return MemRefType::get(type.getShape(), type.getElementType(), dynamic,
                         type.getMemorySpace());
}

class LaunchBuilder {
public:
  LaunchBuilder(RewriterBase &rewriter) : rewriter(rewriter) {}

  LogicalResult map(scf::ForallOp forall) {
    GpuKernelConfigAttr config = getKernelConfig(forall);
    if (!config)
      return forall.emitOpError("is a GPU kernel without a kernel config");
    if (!forall.getOutputs().empty())
      return forall.emitOpError("still has tensor results: bufferize first");
    Location loc = forall.getLoc();
    prepareCaptures(forall);

    // Grid: one block per iteration of each mapped dimension.
    SmallVector<int64_t> grid = {1, 1, 1};
    SmallVector<int64_t> lowerBounds, steps;
    auto uppers = forall.getStaticUpperBound();
    auto lowers = forall.getStaticLowerBound();
    auto strides = forall.getStaticStep();
    for (auto [i, attr] : llvm::enumerate(*forall.getMapping())) {
      if (ShapedType::isDynamic(uppers[i]) ||
          ShapedType::isDynamic(lowers[i]) || ShapedType::isDynamic(strides[i]))
        return forall.emitOpError("has a dynamic grid");
      auto block = cast<gpu::GPUBlockMappingAttr>(attr);
      unsigned dim = static_cast<unsigned>(block.getBlock()) -
                     static_cast<unsigned>(gpu::MappingId::DimX);
      if (dim > 2)
        return forall.emitOpError("maps to a linear block id");
      grid[dim] = llvm::divideCeil(uppers[i] - lowers[i], strides[i]);
    }
    ArrayRef<int64_t> block = config.getBlock();
    rewriter.setInsertionPoint(forall);
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, value);
    };
    auto launch = gpu::LaunchOp::create(
        rewriter, loc, constant(grid[0]), constant(grid[1]), constant(grid[2]),
        constant(block[0]), constant(block[1]), constant(block[2]));
    Block &body = launch.getBody().front();
    rewriter.setInsertionPointToEnd(&body);
    gpu::TerminatorOp::create(rewriter, loc);

    // The forall's body, its ids replaced by block ids.
    rewriter.setInsertionPointToStart(&body);
    IRMapping ids;
    for (auto [i, attr] : llvm::enumerate(*forall.getMapping())) {
      auto mapping = cast<gpu::GPUBlockMappingAttr>(attr);
      gpu::Dimension dim = static_cast<gpu::Dimension>(
          static_cast<unsigned>(mapping.getBlock()) -
          static_cast<unsigned>(gpu::MappingId::DimX));
      Value id = gpu::BlockIdOp::create(rewriter, loc, dim);
      if (lowers[i] != 0 || strides[i] != 1)
        id = arith::AddIOp::create(
            rewriter, loc, constant(lowers[i]),
            arith::MulIOp::create(rewriter, loc, id, constant(strides[i])));
      rewriter.replaceAllUsesWith(forall.getInductionVars()[i], id);
    }
    rewriter.eraseOp(forall.getTerminator());
    Block *forallBody = forall.getBody();
    body.getOperations().splice(std::prev(body.end()),
                                forallBody->getOperations());
    rewriter.eraseOp(forall);

    if (failed(promoteSharedMemory(launch)))
      return failure();
    rewriter.setInsertionPointToStart(&body);
    DiagnosedSilenceableFailure mapped =
        transform::gpu::mapNestedForallToThreadsImpl(
            rewriter, std::nullopt, launch, block, kWarpSize,
            /*syncAfterDistribute=*/true);
    if (!mapped.succeeded())
      return launch.emitOpError("could not map its warps and threads");
    return success();
  }

private:
  /// Clones the constants the kernel uses into it, and passes buffers with
  /// a static offset as ones with a dynamic offset.
  void prepareCaptures(scf::ForallOp forall) {
    SetVector<Value> captured;
    getUsedValuesDefinedAbove(forall.getRegion(), captured);
    for (Value value : captured) {
      Operation *def = value.getDefiningOp();
      // Constant tables (RoPE's frequencies, ALiBi's slopes) are globals of
      // the host's memory: the kernel takes the global itself, which
      // outlining copies into its module (device memory).
      if (def && (def->hasTrait<OpTrait::ConstantLike>() ||
                  isa<memref::GetGlobalOp>(def))) {
        rewriter.setInsertionPointToStart(forall.getBody());
        Operation *copy = rewriter.clone(*def);
        rewriter.replaceUsesWithIf(
            value, copy->getResult(0), [&](OpOperand &use) {
              return forall->isProperAncestor(use.getOwner());
            });
        continue;
      }
      auto type = dyn_cast<MemRefType>(value.getType());
      if (!type || withDynamicOffset(type) == type)
        continue;
      rewriter.setInsertionPoint(forall);
      Value cast = memref::CastOp::create(rewriter, value.getLoc(),
                                          withDynamicOffset(type), value);
      retypeUses(value, cast, forall);
    }
  }

  /// Replaces the uses of `from` inside `scope` by `to`, a buffer of the
  /// same shape with another layout: views of it are rebuilt with the
  /// layouts they get from `to` (and so on down their uses); every other
  /// user reads or writes through any strided layout.
  void retypeUses(Value from, Value to, Operation *scope) {
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : from.getUses())
      if (scope->isProperAncestor(use.getOwner()))
        uses.push_back(&use);
    for (OpOperand *use : uses) {
      Operation *user = use->getOwner();
      if (auto subview = dyn_cast<memref::SubViewOp>(user)) {
        rewriter.setInsertionPoint(subview);
        auto resultType = cast<MemRefType>(subview.getType());
        // Keep a rank-reducing subview's rank.
        MemRefType inferred = memref::SubViewOp::inferRankReducedResultType(
            resultType.getShape(), cast<MemRefType>(to.getType()),
            subview.getMixedOffsets(), subview.getMixedSizes(),
            subview.getMixedStrides());
        auto rebuilt = memref::SubViewOp::create(
            rewriter, subview.getLoc(), inferred, to, subview.getMixedOffsets(),
            subview.getMixedSizes(), subview.getMixedStrides());
        if (inferred == resultType) {
          rewriter.replaceOp(subview, rebuilt);
          continue;
        }
        retypeUses(subview.getResult(), rebuilt.getResult(), scope);
        if (subview->use_empty())
          rewriter.eraseOp(subview);
        continue;
      }
      if (auto castOp = dyn_cast<memref::CastOp>(user)) {
        retypeUses(castOp.getResult(), to, scope);
        if (castOp->use_empty())
          rewriter.eraseOp(castOp);
        continue;
      }
      rewriter.modifyOpInPlace(user, [&] { use->set(to); });
    }
  }

  /// Shared memory allocations become workgroup attributions of the launch.
  LogicalResult promoteSharedMemory(gpu::LaunchOp launch) {
    SmallVector<memref::AllocOp> allocs;
    launch.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      if (!isWorkgroupMemory(type) || !type.hasStaticShape())
        return alloc.emitOpError("allocates inside a kernel; only static "
                                 "shared memory can be");
      BlockArgument attribution =
          launch.addWorkgroupAttribution(type, alloc.getLoc());
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          rewriter.eraseOp(user);
      rewriter.replaceOp(alloc, attribution);
    }
    return success();
  }

  RewriterBase &rewriter;
};

/// Whether gpu.memcpy copies a buffer of `type` right: upstream's lowering
/// copies the bytes from the descriptor's aligned pointer on, ignoring its
/// offset and strides, which only an identity layout makes right.
bool isCopiedAsBytes(MemRefType type) { return type.getLayout().isIdentity(); }

/// A copy between device buffers that gpu.memcpy cannot do (a view with
/// an offset or strides on either side: RoPE's interleaved halves, a
/// layer's slice of the cache) as a kernel of one thread per element.
LogicalResult buildCopyKernel(RewriterBase &rewriter, memref::CopyOp copy) {
  auto type = cast<MemRefType>(copy.getSource().getType());
  constexpr int64_t kThreadsPerBlock = 256;
  Location loc = copy.getLoc();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  // Static offsets passed as dynamic ones: the copies of equal layers are
  // one kernel (as tfm-gpu-map-to-launches does for the others).
  auto dynamicOffset = [&](Value buffer) -> Value {
    auto bufferType = cast<MemRefType>(buffer.getType());
    MemRefType retyped = withDynamicOffset(bufferType);
    if (retyped == bufferType)
      return buffer;
    return memref::CastOp::create(rewriter, loc, retyped, buffer);
  };
  Value source = dynamicOffset(copy.getSource());
  Value target = dynamicOffset(copy.getTarget());

  // The element count, and the grid: known here for a static shape; from
  // the buffer's sizes for a dynamic one (Mistral's ring cache writes as
  // many rows as the window leaves), at least one block, which its
  // threads' bounds check keeps from copying anything when it is empty.
  int64_t threads = kThreadsPerBlock;
  Value grid, elements;
  if (type.hasStaticShape()) {
    int64_t count = type.getNumElements();
    threads = std::max<int64_t>(1, std::min(count, kThreadsPerBlock));
    grid = constant(std::max<int64_t>(1, llvm::divideCeil(count, threads)));
  } else {
    Value count = constant(1);
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      count = arith::MulIOp::create(
          rewriter, loc, count,
          memref::DimOp::create(rewriter, loc, copy.getSource(), dim));
    grid = arith::MaxUIOp::create(
        rewriter, loc, constant(1),
        arith::CeilDivUIOp::create(rewriter, loc, count, constant(threads)));
  }
  auto launch =
      gpu::LaunchOp::create(rewriter, loc, grid, constant(1), constant(1),
                            constant(threads), constant(1), constant(1));
  Block &body = launch.getBody().front();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&body);
  // Inside the kernel: the sizes again, from the buffer's descriptor.
  SmallVector<OpFoldResult> sizes;
  elements = constant(1);
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    OpFoldResult size =
        type.isDynamicDim(dim)
            ? OpFoldResult(
                  memref::DimOp::create(rewriter, loc, source, dim).getResult())
            : OpFoldResult(rewriter.getIndexAttr(type.getDimSize(dim)));
    sizes.push_back(size);
    elements = arith::MulIOp::create(
        rewriter, loc, elements,
        getValueOrCreateConstantIndexOp(rewriter, loc, size));
  }
  Value blockId = gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::x);
  Value threadId = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  Value linear = arith::AddIOp::create(
      rewriter, loc,
      arith::MulIOp::create(rewriter, loc, blockId, constant(threads)),
      threadId);
  Value inRange = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::ult, linear, elements);
  auto ifOp = scf::IfOp::create(rewriter, loc, inRange,
                                /*withElseRegion=*/false);
  rewriter.setInsertionPointToStart(ifOp.thenBlock());
  ValueRange indices = type.getRank() == 0
                           ? ValueRange()
                           : affine::AffineDelinearizeIndexOp::create(
                                 rewriter, loc, linear, sizes)
                                 .getResults();
  Value element = memref::LoadOp::create(rewriter, loc, source, indices);
  memref::StoreOp::create(rewriter, loc, element, target, indices);
  rewriter.setInsertionPointToEnd(&body);
  gpu::TerminatorOp::create(rewriter, loc);
  rewriter.eraseOp(copy);
  return success();
}

/// Host buffers live on the device: allocations and copies go through the
/// GPU runtime.
LogicalResult moveHostMemoryToDevice(RewriterBase &rewriter,
                                     func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (!op->getParentOfType<gpu::LaunchOp>())
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    Location loc = op->getLoc();
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      auto device = gpu::AllocOp::create(
          rewriter, loc, alloc.getType(), /*asyncToken=*/Type(),
          /*asyncDependencies=*/ValueRange(), alloc.getDynamicSizes(),
          alloc.getSymbolOperands());
      rewriter.replaceOp(alloc, device.getMemref());
      continue;
    }
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      gpu::DeallocOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange(),
                             dealloc.getMemref());
      rewriter.eraseOp(dealloc);
      continue;
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      if (copy.getSource() == copy.getTarget()) {
        rewriter.eraseOp(copy);
        continue;
      }
      if (!isCopiedAsBytes(cast<MemRefType>(copy.getSource().getType())) ||
          !isCopiedAsBytes(cast<MemRefType>(copy.getTarget().getType()))) {
        if (failed(buildCopyKernel(rewriter, copy)))
          return failure();
        continue;
      }
      gpu::MemcpyOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange(),
                            copy.getTarget(), copy.getSource());
      rewriter.eraseOp(copy);
      continue;
    }
    if (isa<linalg::LinalgOp>(op) && op->getParentOfType<gpu::LaunchOp>())
      continue;
    // Anything else that reads or writes memory here would do it on the
    // host, on device pointers.
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects || isa<memref::ViewOp, memref::SubViewOp, memref::CastOp,
                        memref::ExpandShapeOp, memref::CollapseShapeOp,
                        memref::ReinterpretCastOp, func::ReturnOp>(op))
      continue;
    if (effects.hasEffect<MemoryEffects::Read>() ||
        effects.hasEffect<MemoryEffects::Write>())
      return op->emitOpError("reads or writes memory outside of a GPU "
                             "kernel");
  }
  return success();
}

struct TfmGpuMapToLaunches
    : mlir::tfm::impl::TfmGpuMapToLaunchesBase<TfmGpuMapToLaunches> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<scf::ForallOp> kernels;
    func.walk([&](scf::ForallOp forall) {
      if (isBlockForall(forall) && !forall->getParentOfType<scf::ForallOp>())
        kernels.push_back(forall);
    });
    IRRewriter rewriter(&getContext());
    LaunchBuilder builder(rewriter);
    for (scf::ForallOp forall : kernels)
      if (failed(builder.map(forall)))
        return signalPassFailure();
    if (failed(moveHostMemoryToDevice(rewriter, func)))
      return signalPassFailure();
  }
};

} // namespace
