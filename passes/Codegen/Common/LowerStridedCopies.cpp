//===- LowerStridedCopies.cpp - memref.copy of strided views -> linalg ----===//
#include "passes/Codegen/Common/Passes.h"

#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMLOWERSTRIDEDCOPIES
#include "passes/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

bool isContiguous(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  return type.getLayout().isIdentity() ||
         memref::isStaticShapeAndContiguousRowMajor(type);
}

struct TfmLowerStridedCopies
    : mlir::tfm::impl::TfmLowerStridedCopiesBase<TfmLowerStridedCopies> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](memref::CopyOp copy) {
      if (!isContiguous(copy.getSource()) || !isContiguous(copy.getTarget()))
        copies.push_back(copy);
    });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
  }
};

} // namespace
