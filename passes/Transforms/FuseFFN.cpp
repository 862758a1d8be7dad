//===- FuseFFN.cpp - Gate and up projections as one GEMM ------------------===//
#include "passes/Transforms/Passes.h"
#include "passes/Transforms/StackLinears.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMFUSEFFN
#include "passes/Transforms/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// `mul(silu(gate(x)), up(x))`: the SwiGLU pair of one input.
bool isGateUp(ArrayRef<LinearOp> group) {
  if (group.size() != 2)
    return false;
  auto onlyUser = [](LinearOp linear) -> Operation * {
    return linear->hasOneUse() ? *linear->user_begin() : nullptr;
  };
  auto silu = dyn_cast_or_null<SiluOp>(onlyUser(group[0]));
  auto mul = dyn_cast_or_null<MulOp>(onlyUser(group[1]));
  return silu && mul && silu->hasOneUse() && *silu->user_begin() == mul;
}

struct TfmFuseFFN : mlir::tfm::impl::TfmFuseFFNBase<TfmFuseFFN> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>())
      for (SmallVector<LinearOp> &group : groupLinearsByInput(func))
        if (isGateUp(group))
          (void)stackLinears(module, group, "w_gate_up", "b_gate_up");
    eraseUnreadWeights(module);
  }
};

} // namespace
