//===- FuseQKV.cpp - Q, K and V projections as one GEMM -------------------===//
#include "passes/Transforms/Passes.h"
#include "passes/Transforms/StackLinears.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMFUSEQKV
#include "passes/Transforms/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The query, key and value projections are the three linears of an
/// attention block's normalised input.
bool isQKV(ArrayRef<LinearOp> group) { return group.size() == 3; }

struct TfmFuseQKV : mlir::tfm::impl::TfmFuseQKVBase<TfmFuseQKV> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>())
      for (SmallVector<LinearOp> &group : groupLinearsByInput(func))
        if (isQKV(group))
          (void)stackLinears(module, group, "wqkv", "bqkv");
    eraseUnreadWeights(module);
  }
};

} // namespace
