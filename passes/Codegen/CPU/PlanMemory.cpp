//===- PlanMemory.cpp - One statically planned arena per entry point ------===//
//
// After bufferization every intermediate is a `memref.alloc` / `memref.dealloc`
// pair in the entry block: a call to malloc and free per tensor per call
// (and, for the large ones, fresh pages from the kernel every time). This
// pass gives each function one static arena (`memref.global`, in .bss) and
// turns every statically shaped allocation into a view at an offset chosen
// at compile time: buffers whose lifetimes (allocation to deallocation, in
// block order) overlap never share bytes; the others reuse them.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/Passes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUPLANMEMORY
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

constexpr int64_t kAlignment = 64;

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
                      kAlignment);
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

void planFunction(func::FuncOp func, ModuleOp module, SymbolTable &symbols) {
  if (func.isExternal())
    return;
  Block &entry = func.getBody().front();
  SmallVector<PlannedBuffer> buffers = collectBuffers(entry);
  if (buffers.empty())
    return;
  int64_t arenaBytes = assignOffsets(buffers);

  MLIRContext *context = module.getContext();
  auto arenaType = MemRefType::get({arenaBytes}, IntegerType::get(context, 8));
  OpBuilder builder(context);
  builder.setInsertionPoint(func);
  auto arena = memref::GlobalOp::create(
      builder, func.getLoc(), (func.getSymName() + "_arena").str(),
      builder.getStringAttr("private"), arenaType,
      /*initial_value=*/builder.getUnitAttr(), /*constant=*/false,
      builder.getI64IntegerAttr(kAlignment));
  symbols.insert(arena);

  builder.setInsertionPointToStart(&entry);
  Value base = memref::GetGlobalOp::create(builder, func.getLoc(), arenaType,
                                           arena.getSymName());
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
}

struct TfmCpuPlanMemory : mlir::tfm::impl::TfmCpuPlanMemoryBase<TfmCpuPlanMemory> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>()))
      planFunction(func, module, symbols);
  }
};

} // namespace
