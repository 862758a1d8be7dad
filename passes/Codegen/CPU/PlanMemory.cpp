//===- PlanMemory.cpp - One compile-time planned scratch area per entry ---===//
//
// After bufferization every intermediate is a `memref.alloc` / `memref.dealloc`
// pair in the entry block: a call to malloc and free per tensor per call
// (and, for the large ones, fresh pages from the kernel every time). This
// pass gives each entry point (public function) one more argument, the
// caller's scratch bytes, and turns every statically shaped allocation into
// a view of it at an offset chosen at compile time: buffers whose lifetimes
// (allocation to deallocation, in block order) overlap never share bytes;
// the others reuse them. The bytes are the caller's, not a static arena, so
// that two callers with their own scratch (two contexts of a library) can
// run an entry at the same time.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/Passes.h"

#include "dialect/TfmContracts.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUPLANMEMORY
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

struct PlannedBuffer {
  memref::AllocOp alloc;
  memref::DeallocOp dealloc;
  int64_t first = 0, last = 0; ///< positions of alloc and dealloc in the block
  int64_t bytes = 0;
  int64_t offset = -1;

  bool overlapsInTime(const PlannedBuffer &other) const {
    return first <= other.last && other.first <= last;
  }
};

/// The top-level deallocation of `alloc` in `block`, if it has exactly one.
memref::DeallocOp findDeallocation(memref::AllocOp alloc, Block &block) {
  memref::DeallocOp found;
  for (Operation *user : alloc->getUsers()) {
    auto dealloc = dyn_cast<memref::DeallocOp>(user);
    if (!dealloc)
      continue;
    if (found || dealloc->getBlock() != &block)
      return {};
    found = dealloc;
  }
  return found;
}

/// Statically shaped, identity-layout allocations of the entry block that
/// are freed in the same block, with their lifetimes.
SmallVector<PlannedBuffer> collectBuffers(Block &block) {
  DenseMap<Operation *, int64_t> position;
  int64_t index = 0;
  for (Operation &op : block)
    position[&op] = index++;
  SmallVector<PlannedBuffer> buffers;
  for (auto alloc : block.getOps<memref::AllocOp>()) {
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
        type.getMemorySpace() || !type.getElementType().isIntOrFloat())
      continue;
    memref::DeallocOp dealloc = findDeallocation(alloc, block);
    if (!dealloc)
      continue;
    PlannedBuffer buffer;
    buffer.alloc = alloc;
    buffer.dealloc = dealloc;
    buffer.first = position[alloc];
    buffer.last = position[dealloc];
    buffer.bytes =
        llvm::alignTo(type.getNumElements() *
                          llvm::divideCeil(type.getElementTypeBitWidth(), 8),
                      kScratchAlignment);
    buffers.push_back(buffer);
  }
  return buffers;
}

/// Greedy by size: each buffer, largest first, goes at the lowest aligned
/// offset that no already placed buffer alive at the same time occupies.
/// Returns the arena size.
int64_t assignOffsets(SmallVector<PlannedBuffer> &buffers) {
  SmallVector<PlannedBuffer *> order;
  for (PlannedBuffer &buffer : buffers)
    order.push_back(&buffer);
  llvm::stable_sort(order, [](const PlannedBuffer *a, const PlannedBuffer *b) {
    return a->bytes > b->bytes;
  });
  int64_t arenaBytes = 0;
  SmallVector<PlannedBuffer *> placed;
  for (PlannedBuffer *buffer : order) {
    SmallVector<PlannedBuffer *> conflicts;
    for (PlannedBuffer *other : placed)
      if (other->overlapsInTime(*buffer))
        conflicts.push_back(other);
    llvm::sort(conflicts, [](const PlannedBuffer *a, const PlannedBuffer *b) {
      return a->offset < b->offset;
    });
    int64_t offset = 0;
    for (PlannedBuffer *other : conflicts) {
      if (offset + buffer->bytes <= other->offset)
        break;
      offset = std::max(offset, other->offset + other->bytes);
    }
    buffer->offset = offset;
    arenaBytes = std::max(arenaBytes, offset + buffer->bytes);
    placed.push_back(buffer);
  }
  return arenaBytes;
}

/// Appends the scratch argument to `func`, `bytes` long and 64-byte aligned.
/// LLVM learns the alignment and size (for aligned vector accesses and
/// speculative loads) and that nothing else aliases it, as it knew of the
/// static arena this argument replaces.
Value addScratchArgument(func::FuncOp func, int64_t bytes) {
  MLIRContext *context = func.getContext();
  auto type = MemRefType::get({bytes}, IntegerType::get(context, 8));
  Builder builder(context);
  SmallVector<NamedAttribute> attributes = {
      builder.getNamedAttr(LLVM::LLVMDialect::getNoAliasAttrName(),
                           builder.getUnitAttr()),
      builder.getNamedAttr(LLVM::LLVMDialect::getAlignAttrName(),
                           builder.getI64IntegerAttr(kScratchAlignment))};
  if (bytes > 0)
    attributes.push_back(
        builder.getNamedAttr(LLVM::LLVMDialect::getDereferenceableAttrName(),
                             builder.getI64IntegerAttr(bytes)));
  unsigned index = func.getNumArguments();
  if (failed(func.insertArgument(
          index, type, builder.getDictionaryAttr(attributes), func.getLoc())))
    return {};
  setEntryArg(func, index, EntryArg::scratch);
  return func.getArgument(index);
}

LogicalResult planEntry(func::FuncOp func, bool placeBuffers) {
  Block &entry = func.getBody().front();
  SmallVector<PlannedBuffer> buffers;
  if (placeBuffers)
    buffers = collectBuffers(entry);
  int64_t scratchBytes = assignOffsets(buffers);
  Value base = addScratchArgument(func, scratchBytes);
  if (!base)
    return func.emitError("cannot add the scratch argument");

  OpBuilder builder(func.getContext());
  for (PlannedBuffer &buffer : buffers) {
    builder.setInsertionPoint(buffer.alloc);
    Value offset = arith::ConstantIndexOp::create(
        builder, buffer.alloc.getLoc(), buffer.offset);
    Value view = memref::ViewOp::create(builder, buffer.alloc.getLoc(),
                                        buffer.alloc.getType(), base, offset,
                                        ValueRange{});
    buffer.dealloc.erase();
    buffer.alloc.replaceAllUsesWith(view);
    buffer.alloc.erase();
  }
  return success();
}

struct TfmCpuPlanMemory
    : mlir::tfm::impl::TfmCpuPlanMemoryBase<TfmCpuPlanMemory> {
  using TfmCpuPlanMemoryBase::TfmCpuPlanMemoryBase;

  void runOnOperation() override {
    // The entries are the module's public definitions (their only caller is
    // the runtime), whatever tfm.entries calls them. A private function's
    // buffers stay with the allocator: its callers have no scratch to give.
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.isPublic())
        continue;
      if (findEntryArg(func, EntryArg::scratch)) {
        func.emitError("entry point '")
            << func.getSymName() << "' already has a scratch argument";
        return signalPassFailure();
      }
      if (failed(planEntry(func, placeBuffers)))
        return signalPassFailure();
    }
  }
};

} // namespace
