//===- StageHostBuffers.cpp - An entry's host buffers through device copies
//===//
//
// Kernels read and write device memory only; the ABI hands a device entry
// its token ids and takes its outputs in host memory. Each such argument
// gets a device twin of its type, filled from it on entry (tokens) or
// copied to it before returning (outputs), and every kernel uses the twin.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/GPU/Passes.h"

#include "dialect/TfmContracts.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMGPUSTAGEHOSTBUFFERS
#include "passes/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

struct TfmGpuStageHostBuffers
    : mlir::tfm::impl::TfmGpuStageHostBuffersBase<TfmGpuStageHostBuffers> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !hasEntryArgs(func))
      return;
    SmallVector<BlockArgument> tokens, outputs;
    for (BlockArgument argument : func.getArguments()) {
      if (!isa<MemRefType>(argument.getType()))
        continue;
      std::optional<EntryArg> mark = getEntryArg(func, argument.getArgNumber());
      if (!mark)
        outputs.push_back(argument);
      else if (*mark == EntryArg::tokens)
        tokens.push_back(argument);
    }
    if (tokens.empty() && outputs.empty())
      return;

    for (BlockArgument argument : llvm::concat<BlockArgument>(tokens, outputs))
      if (!cast<MemRefType>(argument.getType()).hasStaticShape()) {
        func.emitOpError("argument ")
            << argument.getArgNumber() << " (host memory) has the dynamic type "
            << argument.getType() << ": its device copy needs a static size";
        return signalPassFailure();
      }

    OpBuilder builder(func.getBody());
    Location loc = func.getLoc();
    auto deviceTwin = [&](BlockArgument argument) {
      auto type = cast<MemRefType>(argument.getType());
      auto twin = memref::AllocOp::create(
          builder, loc, MemRefType::get(type.getShape(), type.getElementType()),
          builder.getI64IntegerAttr(64));
      argument.replaceAllUsesWith(twin.getResult());
      return twin;
    };
    for (BlockArgument argument : tokens) {
      memref::AllocOp twin = deviceTwin(argument);
      memref::CopyOp::create(builder, loc, argument, twin.getResult());
    }
    SmallVector<std::pair<BlockArgument, Value>> copiesOut;
    for (BlockArgument argument : outputs)
      copiesOut.push_back({argument, deviceTwin(argument).getResult()});
    if (copiesOut.empty())
      return;

    std::optional<unsigned> count = findEntryArg(func, EntryArg::count);
    func.walk([&](func::ReturnOp ret) {
      builder.setInsertionPoint(ret);
      auto copyOut = [&](OpBuilder &b) {
        for (auto [host, device] : copiesOut)
          memref::CopyOp::create(b, loc, device, host);
      };
      if (!count) {
        copyOut(builder);
        return;
      }
      // A prefill with count 0 computes no logits and must leave the
      // caller's alone.
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      Value wanted =
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne,
                                func.getArgument(*count), zero);
      auto ifOp = scf::IfOp::create(builder, loc, wanted,
                                    /*withElseRegion=*/false);
      OpBuilder inside = ifOp.getThenBodyBuilder();
      copyOut(inside);
    });
  }
};

} // namespace
