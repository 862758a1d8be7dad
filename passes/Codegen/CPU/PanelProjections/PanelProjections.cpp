//===- PanelProjections.cpp - The CPU's panel projections to linalg -------===//
//
// Each tfm_cpu projection becomes the linalg form of the kernel its
// configuration names: the panel format says how the weights are held, the
// input scheme whether the inputs are read as f32, as int8 (Q4_0's nibble
// pairs, the byte quads of q8_0x4, q4_0x4, kquantx4 and kquant4x4) or as
// bf16 pairs.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/PanelProjections/PanelProjections.h"

#include "passes/Codegen/CPU/PanelProjections/PanelKernels.h"

using namespace mlir;
using namespace mlir::tfm::cpu;
using tfmc::weights::PanelFormat;

namespace {

struct QuantizedLinearLowering : OpRewritePattern<QuantizedLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizedLinearOp op,
                                PatternRewriter &rewriter) const override {
    ProjectionConfigAttr config = op.getConfig();
    Location loc = op.getLoc();
    Value result;
    switch (config.getPanels()) {
    case PanelFormat::q8_0x4:
      result = projectQ8_0x4(rewriter, loc, op.getInput(), op.getQuants(),
                             op.getScales(), op.getOutFeatures(), op.getBias(),
                             config);
      break;
    case PanelFormat::q4_0x4:
      result = projectQ4_0x4(rewriter, loc, op.getInput(), op.getQuants(),
                             op.getScales(), op.getOutFeatures(), op.getBias(),
                             config);
      break;
    case PanelFormat::kquantx4:
    case PanelFormat::kquant4x4:
      result = projectKQuantQuads(rewriter, loc, op.getInput(), op.getQuants(),
                                  op.getScales(), op.getMins(), op.getFactors(),
                                  op.getOutFeatures(), op.getBias(), config);
      break;
    default:
      // Of the other block formats only Q4_0 takes int8 inputs (the
      // configuration's verifier says so).
      if (config.getInputs() == InputScheme::int8)
        result = projectQ4_0WithInt8Inputs(
            rewriter, loc, op.getInput(), op.getQuants(), op.getScales(),
            op.getOutFeatures(), op.getBias(), config);
      else
        result = projectBlockPanels(
            rewriter, loc, op.getInput(), op.getQuants(), op.getScales(),
            op.getMins(), op.getOutFeatures(), op.getBias(), config);
      break;
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct PackedLinearLowering : OpRewritePattern<PackedLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PackedLinearOp op,
                                PatternRewriter &rewriter) const override {
    ProjectionConfigAttr config = op.getConfig();
    auto project = config.getInputs() == InputScheme::bf16 ? projectBf16Pairs
                                                           : projectPanels;
    rewriter.replaceOp(op, project(rewriter, op.getLoc(), op.getInput(),
                                   op.getWeight(), op.getOutFeatures(),
                                   op.getBias(), config));
    return success();
  }
};

} // namespace

void mlir::tfm::cpu::populateTfmCpuPanelProjectionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<PackedLinearLowering, QuantizedLinearLowering>(
      patterns.getContext());
}
