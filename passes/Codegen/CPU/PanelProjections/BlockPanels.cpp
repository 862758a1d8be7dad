//===- BlockPanels.cpp - Projections over Q8_0, Q4_0 and k-quant panels ---===//
//
// Block-quantized panels times f32 inputs: per-block dot products with the
// widened quants, then their sum over blocks, each scaled once.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/IR/KernelConfig.h"
#include "passes/Codegen/CPU/PanelProjections/PanelKernels.h"
#include "passes/LinalgBuilders.h"

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::cpu;

namespace {

/// `sums[s, b] = sum_k factor * x[s, b * B + k]` over the `blocks` blocks
/// of B inputs of each row. Q4_0 takes `factor = -8`: what a block's `- 8`
/// on each nibble adds to its dot product with row `s` of the input (`-8 *
/// x` is exact, so this is `-8` times the block's input sum); kquant takes
/// the plain sums, which its blocks' minimums multiply.
Value blockInputSums(OpBuilder &b, Location loc, Value input, int64_t blocks,
                     float factor) {
  MLIRContext *context = b.getContext();
  int64_t rows = shapeOf(input)[0];
  int64_t perBlock = shapeOf(input)[1] / blocks;
  Type f32 = b.getF32Type();
  Value grouped = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({rows, blocks, perBlock}, f32), input,
      SmallVector<ReassociationIndices>{{0}, {1, 2}});
  Value init = filledTensor(b, loc, {rows, blocks}, 0.0);
  SmallVector<AffineMap> maps = {projection(context, 3, {0, 1, 2}),
                                 projection(context, 3, {0, 1})};
  SmallVector<utils::IteratorType> loops = {utils::IteratorType::parallel,
                                            utils::IteratorType::parallel,
                                            utils::IteratorType::reduction};
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{grouped}, init, maps, loops,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value term = args[0];
               if (factor != 1.0f)
                 term = arith::MulFOp::create(
                     nb, nloc, term,
                     arith::ConstantOp::create(nb, nloc,
                                               nb.getF32FloatAttr(factor)));
               yield(nb, nloc, arith::AddFOp::create(nb, nloc, args[1], term));
             })
      .getResult(0);
}

} // namespace

/// Q8_0 / Q4_0 / kquant panels (see #tfm_cpu.panels):
/// `out[s, p, j] = sum_b d[p, b, j] * (sum_i x[s, b * B + i] * q[p, b, i, j])`
/// as two contractions: the per-block dot products of the inputs with the
/// quants (widened int8, or unsigned nibble: exact in f32), loops
/// (p, s, b, i, j) into `partial[s, p, b, j]`, then their sum over blocks,
/// each scaled once by its block's f32 scale, loops (p, s, b, j). Scaling
/// once per block rather than per weight takes a multiplication out of the
/// innermost loop; the result is the dot product with the dequantized
/// weights `q * d`, summed in another order. A Q4_0 byte holds columns
/// `b * 32 + i` and `b * 32 + 16 + i`: the body takes both, with the two
/// halves of the block's inputs as two operands. Its nibbles enter the
/// inner loop unsigned: `sum((n - 8) * x) = sum(n * x) - 8 * sum(x)`, and
/// `-8 * sum(x)` over a block's inputs, shared by every output, joins the
/// block's partial sum before its scale; this takes the two subtractions
/// per byte vector out of the innermost loop. kquant blocks subtract their
/// minimum from each value: `sum(x * (q * d - m)) = d * sum(q * x) - m *
/// sum(x)`, the block's input sum again shared by every output (kquant4's
/// nibbles, Q4_K's, are unsigned as they are stored: no offset).
/// tfm-cpu-tile-projections fuses the two into register-blocked
/// micro-kernels that read each byte once and keep the partial sums in
/// registers; the second carries `config`.
Value mlir::tfm::cpu::projectBlockPanels(OpBuilder &b, Location loc,
                                         Value input, Value quants,
                                         Value scales, Value mins,
                                         int64_t outputs, Value bias,
                                         ProjectionConfigAttr config) {
  MLIRContext *context = b.getContext();
  int64_t rows = shapeOf(input)[0];
  ArrayRef<int64_t> quantsShape = shapeOf(quants);
  int64_t numPanels = quantsShape[0], blocks = quantsShape[1],
          perBlock = quantsShape[2], width = quantsShape[3];
  // Q4_0 and kquant4 hold two values a byte; Q4_0's are offset by 8.
  tfmc::weights::PanelFormat format = config.getPanels();
  bool nibbles = tfmc::weights::holdsNibbles(format);
  bool offsetNibbles = format == tfmc::weights::PanelFormat::q4_0;
  Type f32 = b.getF32Type();
  SmallVector<Value> inputs;
  if (!nibbles) {
    inputs.push_back(tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({rows, blocks, perBlock}, f32), input,
        SmallVector<ReassociationIndices>{{0}, {1, 2}}));
  } else {
    Value halves = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({rows, blocks, 2, perBlock}, f32), input,
        SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
    for (int64_t half = 0; half < 2; ++half) {
      SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(0),
                                           b.getIndexAttr(half),
                                           b.getIndexAttr(0)};
      SmallVector<OpFoldResult> sizes = {
          b.getIndexAttr(rows), b.getIndexAttr(blocks), b.getIndexAttr(1),
          b.getIndexAttr(perBlock)};
      SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
      inputs.push_back(tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get({rows, blocks, perBlock}, f32), halves,
          offsets, sizes, strides));
    }
  }
  inputs.push_back(quants);
  // Loops (p, s, b, i, j).
  SmallVector<AffineMap> maps(inputs.size() - 1,
                              projection(context, 5, {1, 2, 3}));
  maps.push_back(projection(context, 5, {0, 2, 3, 4}));
  maps.push_back(projection(context, 5, {1, 0, 2, 4}));
  SmallVector<utils::IteratorType> loops = {
      utils::IteratorType::parallel, utils::IteratorType::parallel,
      utils::IteratorType::parallel, utils::IteratorType::reduction,
      utils::IteratorType::parallel};
  Value partialInit =
      filledTensor(b, loc, {rows, numPanels, blocks, width}, 0.0);
  Value partial =
      linalg::GenericOp::create(
          b, loc, partialInit.getType(), inputs, partialInit, maps, loops,
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value byte = args[args.size() - 2];
            Value acc = args.back();
            auto widen = [&](Value quant) {
              return arith::SIToFPOp::create(nb, nloc, f32, quant);
            };
            Value term;
            if (!nibbles) {
              term = arith::MulFOp::create(nb, nloc, args[0], widen(byte));
            } else {
              // Widened first, so that each byte vector loads straight into
              // the 32-bit lanes that f32 conversion reads; the nibbles are
              // then one `and` and one shift of those lanes, 0..15 each.
              Type i32 = nb.getI32Type();
              auto constant = [&](int64_t value) {
                return arith::ConstantOp::create(nb, nloc,
                                                 nb.getIntegerAttr(i32, value));
              };
              Value wide = arith::ExtUIOp::create(nb, nloc, i32, byte);
              Value low = arith::AndIOp::create(nb, nloc, wide, constant(15));
              Value high = arith::ShRUIOp::create(nb, nloc, wide, constant(4));
              term = arith::AddFOp::create(
                  nb, nloc,
                  arith::MulFOp::create(nb, nloc, args[0], widen(low)),
                  arith::MulFOp::create(nb, nloc, args[1], widen(high)));
            }
            yield(nb, nloc, arith::AddFOp::create(nb, nloc, acc, term));
          })
          .getResult(0);

  // Loops (p, s, b, j): each block's partial sum (plus, for Q4_0, its
  // offset) times its scale (minus, for kquant, its minimum times the
  // block's input sum).
  Value init = filledTensor(b, loc, {rows, numPanels, width}, 0.0);
  SmallVector<Value> scaledInputs = {partial, scales};
  SmallVector<AffineMap> scaleMaps = {projection(context, 4, {1, 0, 2, 3}),
                                      projection(context, 4, {0, 2, 3})};
  if (mins) {
    scaledInputs.push_back(mins);
    scaleMaps.push_back(projection(context, 4, {0, 2, 3}));
  }
  if (offsetNibbles || mins) {
    scaledInputs.push_back(
        blockInputSums(b, loc, input, blocks, offsetNibbles ? -8.0f : 1.0f));
    scaleMaps.push_back(projection(context, 4, {1, 2}));
  }
  scaleMaps.push_back(projection(context, 4, {1, 0, 3}));
  SmallVector<utils::IteratorType> scaleLoops = {
      utils::IteratorType::parallel, utils::IteratorType::parallel,
      utils::IteratorType::reduction, utils::IteratorType::parallel};
  auto kernel = linalg::GenericOp::create(
      b, loc, init.getType(), scaledInputs, init, scaleMaps, scaleLoops,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value sum = args[0];
        if (offsetNibbles)
          sum = arith::AddFOp::create(nb, nloc, sum, args[2]);
        Value scale = args[1];
        if (scale.getType() != f32)
          scale = arith::ExtFOp::create(nb, nloc, f32, scale);
        Value term = arith::MulFOp::create(nb, nloc, sum, scale);
        if (mins)
          term = arith::SubFOp::create(
              nb, nloc, term,
              arith::MulFOp::create(nb, nloc, args[2], args[3]));
        yield(nb, nloc, arith::AddFOp::create(nb, nloc, args.back(), term));
      });
  setKernelConfig(kernel, config);
  return panelsToColumns(b, loc, kernel.getResult(0), outputs, bias);
}
