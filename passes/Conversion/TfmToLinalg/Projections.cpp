//===- Projections.cpp - tfm.linear / tfm.lm_head to linalg ---------------===//
//
// `out[s, o] = sum_i x[s, i] * w[o, i] (+ b[o])`: a contraction whose init is
// zero or the broadcast bias.
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmOps.h"
#include "passes/Conversion/TfmToLinalg/TfmToLinalg.h"
#include "passes/LinalgBuilders.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// [rows, outputs] init: zeros, or `bias` repeated on every row.
Value projectionInit(OpBuilder &b, Location loc, int64_t rows, int64_t outputs,
                     Value bias) {
  if (!bias)
    return filledTensor(b, loc, {rows, outputs}, 0.0);
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps = {projection(context, 2, {1}),
                                 projection(context, 2, {0, 1})};
  Value empty = emptyTensor(b, loc, {rows, outputs});
  return linalg::GenericOp::create(
             b, loc, empty.getType(), bias, empty, maps, iterators(2),
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               yield(nb, nloc, args[0]);
             })
      .getResult(0);
}

Value project(OpBuilder &b, Location loc, Value input, Value weight,
              Value bias) {
  MLIRContext *context = b.getContext();
  int64_t rows = shapeOf(input)[0], outputs = shapeOf(weight)[0];
  Value init = projectionInit(b, loc, rows, outputs, bias);
  // Loops (o, s, i): the output feature is outermost so that one weight row
  // is reused from cache by every token of a prefill chunk instead of the
  // whole matrix being streamed once per token.
  SmallVector<AffineMap> maps = {projection(context, 3, {1, 2}),
                                 projection(context, 3, {0, 2}),
                                 projection(context, 3, {1, 0})};
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{input, weight}, init, maps,
             iterators(2, 1),
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               // 16-bit weights are widened as they are read.
               Value w = args[1];
               if (w.getType() != args[0].getType())
                 w = arith::ExtFOp::create(nb, nloc, args[0].getType(), w);
               Value product = arith::MulFOp::create(nb, nloc, args[0], w);
               yield(nb, nloc,
                     arith::AddFOp::create(nb, nloc, args[2], product));
             })
      .getResult(0);
}

/// `out[s, o] += b[o]` for the bias of a packed projection, added after the
/// product because the panels may pad the outputs past the bias.
Value addBias(OpBuilder &b, Location loc, Value product, Value bias) {
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps = {projection(context, 2, {0, 1}),
                                 projection(context, 2, {1}),
                                 projection(context, 2, {0, 1})};
  return linalg::GenericOp::create(
             b, loc, product.getType(), ValueRange{product, bias}, product,
             maps, iterators(2),
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               yield(nb, nloc,
                     arith::AddFOp::create(nb, nloc, args[0], args[1]));
             })
      .getResult(0);
}

Value panelsToColumns(OpBuilder &b, Location loc, Value product,
                      int64_t outputs, Value bias);

/// `out[s, p, j] = sum_k x[s, k] * w[p, k, j]` over loops (p, s, k, j), seen
/// as [S, P * W] and cut to `outputs` columns. tfm-cpu-tile-projections turns
/// this form into register-blocked micro-kernels.
Value projectPanels(OpBuilder &b, Location loc, Value input, Value panels,
                    int64_t outputs, Value bias) {
  MLIRContext *context = b.getContext();
  int64_t rows = shapeOf(input)[0];
  int64_t numPanels = shapeOf(panels)[0], width = shapeOf(panels)[2];
  Value init = filledTensor(b, loc, {rows, numPanels, width}, 0.0);
  SmallVector<AffineMap> maps = {projection(context, 4, {1, 2}),
                                 projection(context, 4, {0, 2, 3}),
                                 projection(context, 4, {1, 0, 3})};
  SmallVector<utils::IteratorType> loops = {
      utils::IteratorType::parallel, utils::IteratorType::parallel,
      utils::IteratorType::reduction, utils::IteratorType::parallel};
  Value product =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{input, panels}, init, maps, loops,
          [](OpBuilder &nb, Location nloc, ValueRange args) {
            // 16-bit panels are widened in registers as they are read.
            Value w = args[1];
            if (w.getType() != args[0].getType())
              w = arith::ExtFOp::create(nb, nloc, args[0].getType(), w);
            Value term = arith::MulFOp::create(nb, nloc, args[0], w);
            yield(nb, nloc, arith::AddFOp::create(nb, nloc, args[2], term));
          })
          .getResult(0);
  return panelsToColumns(b, loc, product, outputs, bias);
}

/// The f32 `input` (`[rows, columns]`) rounded to bf16 (to nearest even)
/// as `[rows, columns / 2]` i32 pairs, the low half column 2i and the high
/// half column 2i + 1: two inputs that a kernel reads with one broadcast,
/// in the order of the bf16 pairs of AVX512_BF16's dot product. The
/// rounding is integer arithmetic on the f32's bits, `(bits + 0x7FFF +
/// (bits >> 16 & 1)) >> 16`, as PyTorch's conversion rounds finite values:
/// the same on every target (an f32 -> bf16 conversion is a library call
/// where the target has no instruction for it, and AVX512_BF16's flushes
/// denormals).
Value inputPairs(OpBuilder &b, Location loc, Value input) {
  MLIRContext *context = b.getContext();
  int64_t rows = shapeOf(input)[0], pairs = shapeOf(input)[1] / 2;
  Type i32 = b.getI32Type();
  Value columns = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({rows, pairs, 2}, b.getF32Type()), input,
      SmallVector<ReassociationIndices>{{0}, {1, 2}});
  auto columnMap = [&](int64_t t) {
    return AffineMap::get(2, 0,
                          {getAffineDimExpr(0, context),
                           getAffineDimExpr(1, context),
                           getAffineConstantExpr(t, context)},
                          context);
  };
  Value init =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{rows, pairs}, i32);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{columns, columns}, init,
             SmallVector<AffineMap>{columnMap(0), columnMap(1),
                                    projection(context, 2, {0, 1})},
             iterators(2),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               auto constant = [&](int64_t value) {
                 return arith::ConstantOp::create(
                     nb, nloc, nb.getIntegerAttr(i32, value));
               };
               // The bf16 nearest to `value`, in the top half of its bits.
               auto roundedBits = [&](Value value) -> Value {
                 Value bits = arith::BitcastOp::create(nb, nloc, i32, value);
                 Value odd = arith::AndIOp::create(
                     nb, nloc,
                     arith::ShRUIOp::create(nb, nloc, bits, constant(16)),
                     constant(1));
                 Value bias =
                     arith::AddIOp::create(nb, nloc, odd, constant(0x7FFF));
                 return arith::AddIOp::create(nb, nloc, bits, bias);
               };
               Value low = arith::ShRUIOp::create(
                   nb, nloc, roundedBits(args[0]), constant(16));
               Value high = arith::AndIOp::create(
                   nb, nloc, roundedBits(args[1]),
                   constant(static_cast<int32_t>(0xFFFF0000u)));
               yield(nb, nloc, arith::OrIOp::create(nb, nloc, low, high));
             })
      .getResult(0);
}

/// The even and odd columns of `[P, columns, W]` panels, `[P, columns / 2,
/// W]` each.
std::pair<Value, Value> evenAndOddColumns(OpBuilder &b, Location loc,
                                          Value panels) {
  ArrayRef<int64_t> shape = shapeOf(panels);
  int64_t numPanels = shape[0], pairs = shape[1] / 2, width = shape[2];
  Type element = getElementTypeOrSelf(panels.getType());
  Value paired = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({numPanels, pairs, 2, width}, element),
      panels, SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}});
  auto columns = [&](int64_t parity) -> Value {
    SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(0),
                                         b.getIndexAttr(parity),
                                         b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(numPanels),
                                       b.getIndexAttr(pairs), b.getIndexAttr(1),
                                       b.getIndexAttr(width)};
    SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({numPanels, pairs, width}, element),
        paired, offsets, sizes, strides);
  };
  Value even = columns(0);
  Value odd = columns(1);
  return {even, odd};
}

/// bf16 panels times inputs rounded to bf16 (see inputPairs), over pairs
/// of input features: `out[s, p, j] = sum_i (w[p, 2i + 1, j] * hi(x[s, i])
/// + w[p, 2i, j] * lo(x[s, i]))` with `x` the input pairs and `lo` / `hi`
/// their halves widened to f32, loops (p, s, i, j). The products of two
/// bf16 are exact in f32; a step is one lane of AVX512_BF16's
/// `vdpbf16ps`, whose 32-bit lanes each hold a pair of bf16 (which
/// tfm-cpu-bf16-pair-dot uses where the target has it, on the even and odd
/// rows of the panels interleaved).
Value projectBf16Pairs(OpBuilder &b, Location loc, Value input, Value panels,
                       int64_t outputs, Value bias) {
  MLIRContext *context = b.getContext();
  int64_t rows = shapeOf(input)[0];
  int64_t numPanels = shapeOf(panels)[0], width = shapeOf(panels)[2];
  Value pairs = inputPairs(b, loc, input);
  auto [even, odd] = evenAndOddColumns(b, loc, panels);
  Value init = filledTensor(b, loc, {rows, numPanels, width}, 0.0);
  SmallVector<AffineMap> maps = {
      projection(context, 4, {1, 2}), projection(context, 4, {0, 2, 3}),
      projection(context, 4, {0, 2, 3}), projection(context, 4, {1, 0, 3})};
  SmallVector<utils::IteratorType> loops = {
      utils::IteratorType::parallel, utils::IteratorType::parallel,
      utils::IteratorType::reduction, utils::IteratorType::parallel};
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value product =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{pairs, even, odd}, init, maps,
          loops,
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            auto constant = [&](int64_t value) {
              return arith::ConstantOp::create(nb, nloc,
                                               nb.getIntegerAttr(i32, value));
            };
            // A bf16 is the top half of an f32.
            Value low = arith::BitcastOp::create(
                nb, nloc, f32,
                arith::ShLIOp::create(nb, nloc, args[0], constant(16)));
            Value high = arith::BitcastOp::create(
                nb, nloc, f32,
                arith::AndIOp::create(
                    nb, nloc, args[0],
                    constant(static_cast<int32_t>(0xFFFF0000u))));
            Value evenWeight = arith::ExtFOp::create(nb, nloc, f32, args[1]);
            Value oddWeight = arith::ExtFOp::create(nb, nloc, f32, args[2]);
            Value oddProduct = arith::MulFOp::create(nb, nloc, oddWeight, high);
            Value evenProduct =
                arith::MulFOp::create(nb, nloc, evenWeight, low);
            Value step =
                arith::AddFOp::create(nb, nloc, oddProduct, evenProduct);
            yield(nb, nloc, arith::AddFOp::create(nb, nloc, args[3], step));
          })
          .getResult(0);
  return panelsToColumns(b, loc, product, outputs, bias);
}

/// The `[S, P, W]` panel product of a projection seen as `[S, P * W]`, cut
/// to `outputs` columns, plus `bias` if any.
Value panelsToColumns(OpBuilder &b, Location loc, Value product,
                      int64_t outputs, Value bias) {
  int64_t rows = shapeOf(product)[0];
  int64_t numPanels = shapeOf(product)[1], width = shapeOf(product)[2];
  Value flat = tensor::CollapseShapeOp::create(
      b, loc, product, SmallVector<ReassociationIndices>{{0}, {1, 2}});
  if (numPanels * width != outputs) {
    SmallVector<OpFoldResult> offsets(2, b.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(rows),
                                       b.getIndexAttr(outputs)};
    SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
    flat =
        tensor::ExtractSliceOp::create(b, loc, flat, offsets, sizes, strides);
  }
  return bias ? addBias(b, loc, flat, bias) : flat;
}

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

/// Inputs quantized to int8 per block of `perBlock` (as llama.cpp's Q8_0
/// activations, rounding half to even): `d[s, b] = max |x| / 127`,
/// `q[s, b, i] = round(x[s, b * perBlock + i] * (1 / d))` (0 for an
/// all-zero block), and the offsets `o[s, b] = offsetFactor * sum_i q[s, b,
/// i]` as f32 (exact, as |sum(q)| <= 32 * 127): what an offset of the
/// weights' integers adds to a block's dot product (see the callers).
struct QuantizedInputs {
  Value quants;  ///< [rows, blocks, perBlock] i8
  Value scales;  ///< [rows, blocks] f32
  Value offsets; ///< [rows, blocks] f32
};

/// `[rows, blocks]` f32 sums from 0 of `term(value)` over the innermost
/// dimension of `grouped` (`[rows, blocks, perBlock]`), combined by
/// `combine(accumulator, term)`.
Value reduceBlocks(
    OpBuilder &b, Location loc, Value grouped,
    function_ref<Value(OpBuilder &, Location, Value)> term,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  MLIRContext *context = b.getContext();
  ArrayRef<int64_t> shape = shapeOf(grouped);
  return linalg::GenericOp::create(
             b, loc,
             RankedTensorType::get({shape[0], shape[1]}, b.getF32Type()),
             grouped, filledTensor(b, loc, {shape[0], shape[1]}, 0.0),
             SmallVector<AffineMap>{projection(context, 3, {0, 1, 2}),
                                    projection(context, 3, {0, 1})},
             iterators(2, 1),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               yield(nb, nloc,
                     combine(nb, nloc, args[1], term(nb, nloc, args[0])));
             })
      .getResult(0);
}

QuantizedInputs quantizeInputBlocks(OpBuilder &b, Location loc, Value input,
                                    int64_t blocks, double offsetFactor) {
  MLIRContext *context = b.getContext();
  int64_t rows = shapeOf(input)[0];
  int64_t perBlock = shapeOf(input)[1] / blocks;
  Type f32 = b.getF32Type(), i8 = b.getI8Type();
  Value grouped = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({rows, blocks, perBlock}, f32), input,
      SmallVector<ReassociationIndices>{{0}, {1, 2}});
  AffineMap element = projection(context, 3, {0, 1, 2});
  AffineMap block = projection(context, 3, {0, 1});
  Value amax = reduceBlocks(
      b, loc, grouped,
      [](OpBuilder &nb, Location nloc, Value x) -> Value {
        return math::AbsFOp::create(nb, nloc, x);
      },
      [](OpBuilder &nb, Location nloc, Value acc, Value term) -> Value {
        return arith::MaximumFOp::create(nb, nloc, acc, term);
      });
  AffineMap identity2 = projection(context, 2, {0, 1});
  // Per block: d and the 1 / d its quants are scaled by (0 for an all-zero
  // block), once per block rather than once per input.
  Type blockType = RankedTensorType::get({rows, blocks}, f32);
  auto scaleAndInverse = linalg::GenericOp::create(
      b, loc, TypeRange{blockType, blockType}, amax,
      ValueRange{emptyTensor(b, loc, {rows, blocks}),
                 emptyTensor(b, loc, {rows, blocks})},
      SmallVector<AffineMap>(3, identity2), iterators(2),
      [](OpBuilder &nb, Location nloc, ValueRange args) {
        Value zero = f32Constant(nb, nloc, 0.0);
        Value scale = arith::DivFOp::create(nb, nloc, args[0],
                                            f32Constant(nb, nloc, 127.0));
        Value inverse =
            arith::DivFOp::create(nb, nloc, f32Constant(nb, nloc, 1.0), scale);
        Value empty = arith::CmpFOp::create(nb, nloc, arith::CmpFPredicate::OEQ,
                                            scale, zero);
        inverse = arith::SelectOp::create(nb, nloc, empty, zero, inverse);
        linalg::YieldOp::create(nb, nloc, ValueRange{scale, inverse});
      });
  Value scales = scaleAndInverse.getResult(0);
  Value inverses = scaleAndInverse.getResult(1);
  Value quantsInit = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{rows, blocks, perBlock}, i8);
  Value quants =
      linalg::GenericOp::create(
          b, loc, quantsInit.getType(), ValueRange{grouped, inverses},
          quantsInit, SmallVector<AffineMap>{element, block, element},
          iterators(3),
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value scaled = arith::MulFOp::create(nb, nloc, args[0], args[1]);
            Value rounded = math::RoundEvenOp::create(nb, nloc, scaled);
            yield(nb, nloc, arith::FPToSIOp::create(nb, nloc, i8, rounded));
          })
          .getResult(0);
  Value offsets = reduceBlocks(
      b, loc, quants,
      [offsetFactor](OpBuilder &nb, Location nloc, Value quant) -> Value {
        return arith::MulFOp::create(
            nb, nloc, arith::SIToFPOp::create(nb, nloc, nb.getF32Type(), quant),
            f32Constant(nb, nloc, offsetFactor));
      },
      [](OpBuilder &nb, Location nloc, Value acc, Value term) -> Value {
        return arith::AddFOp::create(nb, nloc, acc, term);
      });
  return {quants, scales, offsets};
}

/// A zero-filled `shape` tensor of the integer type `element`.
Value zeroIntegers(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Type element) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, element);
  return linalg::FillOp::create(
             b, loc,
             arith::ConstantOp::create(b, loc, b.getIntegerAttr(element, 0))
                 .getResult(),
             empty)
      .getResult(0);
}

/// The projection from the integer partial sums over int8 `inputs`,
/// `partial[s, p, b, (h,) j]` per block (and half block): `out[s, p, j] =
/// sum_{b, (h)} (partial + o[s, b]) * (d[p, b, j] * dx[s, b])`, loops (p,
/// s, b, (h,) j), as `[S, P * W]` cut to `outputs` columns plus `bias`.
Value scaleIntegerPartials(OpBuilder &b, Location loc, Value partial,
                           Value scales, const QuantizedInputs &inputs,
                           int64_t outputs, Value bias) {
  MLIRContext *context = b.getContext();
  ArrayRef<int64_t> shape = shapeOf(partial);
  int64_t rows = shape[0], numPanels = shape[1], width = shape.back();
  unsigned loops = shape.size(), lane = loops - 1;
  SmallVector<unsigned> partialDims = {1, 0};
  for (unsigned dim = 2; dim < loops; ++dim)
    partialDims.push_back(dim);
  Value init = filledTensor(b, loc, {rows, numPanels, width}, 0.0);
  SmallVector<AffineMap> scaleMaps = {projection(context, loops, partialDims),
                                      projection(context, loops, {0, 2, lane}),
                                      projection(context, loops, {1, 2}),
                                      projection(context, loops, {1, 2}),
                                      projection(context, loops, {1, 0, lane})};
  SmallVector<utils::IteratorType> scaleLoops(loops,
                                              utils::IteratorType::reduction);
  scaleLoops[0] = scaleLoops[1] = scaleLoops[lane] =
      utils::IteratorType::parallel;
  Value product =
      linalg::GenericOp::create(
          b, loc, init.getType(),
          ValueRange{partial, scales, inputs.offsets, inputs.scales}, init,
          scaleMaps, scaleLoops,
          [](OpBuilder &nb, Location nloc, ValueRange args) {
            Type f32 = nb.getF32Type();
            Value sum = arith::AddFOp::create(
                nb, nloc, arith::SIToFPOp::create(nb, nloc, f32, args[0]),
                args[2]);
            Value scale = arith::MulFOp::create(
                nb, nloc, arith::ExtFOp::create(nb, nloc, f32, args[1]),
                args[3]);
            Value term = arith::MulFOp::create(nb, nloc, sum, scale);
            yield(nb, nloc, arith::AddFOp::create(nb, nloc, args[4], term));
          })
          .getResult(0);
  return panelsToColumns(b, loc, product, outputs, bias);
}

/// Q4_0 panels times inputs quantized to int8 (see quantizeInputBlocks),
/// with each block's quant steps in two halves of 8, h = 0, 1:
/// `out[s, p, j] = sum_{b, h} (partial[s, p, b, h, j] + o[s, b]) *
/// d[p, b, j] * dx[s, b]` with the integer partial sums
/// `partial[s, p, b, h, j] = sum_i lo(q[p, b, 8h + i, j]) * qx[s, b, 8h + i]
/// + hi(q[p, b, 8h + i, j]) * qx[s, b, 16 + 8h + i]`, loops (p, s, b, h, i,
/// j). One step's two products of a nibble (0..15) and an int8 sum to at
/// most 3810 in magnitude, the form of one 16-bit lane of `vpmaddubsw`
/// (which tfm-cpu-nibble-pair-dot uses where the target has it), and 8
/// steps to at most 30480: a half block's sum fits 16 bits.
Value projectQ4_0WithInt8Inputs(OpBuilder &b, Location loc, Value input,
                                Value quants, Value scales, int64_t outputs,
                                Value bias) {
  MLIRContext *context = b.getContext();
  int64_t rows = shapeOf(input)[0];
  ArrayRef<int64_t> quantsShape = shapeOf(quants);
  int64_t numPanels = quantsShape[0], blocks = quantsShape[1],
          perBlock = quantsShape[2], width = quantsShape[3];
  int64_t steps = perBlock / 2;
  Type i8 = b.getI8Type(), i16 = b.getI16Type();
  // Q4_0's `- 8` over a block is `-8 * sum(q)`, half of it joining the sum
  // of each of the block's two halves.
  QuantizedInputs inputs =
      quantizeInputBlocks(b, loc, input, blocks, /*offsetFactor=*/-4.0);
  // The inputs of each step's two columns as one 16-bit pair (low byte:
  // column 8h + i, high byte: column 16 + 8h + i), read with one broadcast.
  Value columns = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({rows, blocks, 2, 2, steps}, i8),
      inputs.quants, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3, 4}});
  Value pairsInit = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{rows, blocks, 2, steps}, i16);
  AffineMap pairMap = projection(context, 4, {0, 1, 2, 3});
  auto columnMap = [&](int64_t column) {
    return AffineMap::get(
        4, 0,
        {getAffineDimExpr(0, context), getAffineDimExpr(1, context),
         getAffineConstantExpr(column, context), getAffineDimExpr(2, context),
         getAffineDimExpr(3, context)},
        context);
  };
  Value pairs =
      linalg::GenericOp::create(
          b, loc, pairsInit.getType(), ValueRange{columns, columns}, pairsInit,
          SmallVector<AffineMap>{columnMap(0), columnMap(1), pairMap},
          iterators(4),
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value low = arith::ExtUIOp::create(nb, nloc, i16, args[0]);
            Value high = arith::ShLIOp::create(
                nb, nloc, arith::ExtUIOp::create(nb, nloc, i16, args[1]),
                arith::ConstantOp::create(nb, nloc, nb.getIntegerAttr(i16, 8)));
            yield(nb, nloc, arith::OrIOp::create(nb, nloc, low, high));
          })
          .getResult(0);
  SmallVector<Value> operands = {pairs};
  operands.push_back(tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({numPanels, blocks, 2, steps, width}, i8),
      quants, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}, {4}}));
  SmallVector<AffineMap> maps = {projection(context, 6, {1, 2, 3, 4}),
                                 projection(context, 6, {0, 2, 3, 4, 5})};
  maps.push_back(projection(context, 6, {1, 0, 2, 3, 5}));
  SmallVector<utils::IteratorType> loops(6, utils::IteratorType::parallel);
  loops[4] = utils::IteratorType::reduction;
  Value partialInit =
      zeroIntegers(b, loc, {rows, numPanels, blocks, 2, width}, i16);
  Value partial =
      linalg::GenericOp::create(
          b, loc, partialInit.getType(), operands, partialInit, maps, loops,
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            auto constant = [&](int64_t value) {
              return arith::ConstantOp::create(nb, nloc,
                                               nb.getIntegerAttr(i16, value));
            };
            Value wide = arith::ExtUIOp::create(nb, nloc, i16, args[1]);
            Value low = arith::AndIOp::create(nb, nloc, wide, constant(15));
            Value high = arith::ShRUIOp::create(nb, nloc, wide, constant(4));
            // The pair's bytes, sign-extended: column 8h + i, 16 + 8h + i.
            Value lowInput = arith::ExtSIOp::create(
                nb, nloc, i16, arith::TruncIOp::create(nb, nloc, i8, args[0]));
            Value highInput = arith::ExtSIOp::create(
                nb, nloc, i16,
                arith::TruncIOp::create(
                    nb, nloc, i8,
                    arith::ShRUIOp::create(nb, nloc, args[0], constant(8))));
            Value pair = arith::AddIOp::create(
                nb, nloc, arith::MulIOp::create(nb, nloc, low, lowInput),
                arith::MulIOp::create(nb, nloc, high, highInput));
            yield(nb, nloc, arith::AddIOp::create(nb, nloc, args[2], pair));
          })
          .getResult(0);

  return scaleIntegerPartials(b, loc, partial, scales, inputs, outputs, bias);
}

/// The int8 `quants` of quantized inputs (`[rows, blocks, 32]`, see
/// quantizeInputBlocks) as `[rows, blocks, 8]` i32 quads, byte t of quad i
/// (little-endian) the input of column 4i + t: four inputs that a kernel
/// reads with one broadcast.
Value inputQuads(OpBuilder &b, Location loc, Value quants) {
  MLIRContext *context = b.getContext();
  ArrayRef<int64_t> shape = shapeOf(quants);
  int64_t rows = shape[0], blocks = shape[1], steps = shape[2] / 4;
  Type i8 = b.getI8Type(), i32 = b.getI32Type();
  Value columns = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({rows, blocks, steps, 4}, i8), quants,
      SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
  AffineMap quadMap = projection(context, 3, {0, 1, 2});
  auto byteMap = [&](int64_t byte) {
    return AffineMap::get(
        3, 0,
        {getAffineDimExpr(0, context), getAffineDimExpr(1, context),
         getAffineDimExpr(2, context), getAffineConstantExpr(byte, context)},
        context);
  };
  Value quadsInit = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{rows, blocks, steps}, i32);
  return linalg::GenericOp::create(
             b, loc, quadsInit.getType(),
             ValueRange(SmallVector<Value>(4, columns)), quadsInit,
             SmallVector<AffineMap>{byteMap(0), byteMap(1), byteMap(2),
                                    byteMap(3), quadMap},
             iterators(3),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value quad;
               for (int64_t t = 0; t < 4; ++t) {
                 Value byte = arith::ExtUIOp::create(nb, nloc, i32, args[t]);
                 if (t > 0)
                   byte = arith::ShLIOp::create(
                       nb, nloc, byte,
                       arith::ConstantOp::create(
                           nb, nloc, nb.getIntegerAttr(i32, 8 * t)));
                 quad =
                     quad ? arith::OrIOp::create(nb, nloc, quad, byte) : byte;
               }
               yield(nb, nloc, quad);
             })
      .getResult(0);
}

/// Byte `t` (0 = lowest) of the i32 `quad`.
Value byteOfQuad(OpBuilder &b, Location loc, Value quad, int64_t t) {
  if (t > 0)
    quad = arith::ShRUIOp::create(
        b, loc, quad,
        arith::ConstantOp::create(b, loc,
                                  b.getIntegerAttr(b.getI32Type(), 8 * t)));
  return arith::TruncIOp::create(b, loc, b.getI8Type(), quad);
}

/// `sum_t zext(weightByte(t)) * sext(byte_t(inputs))` over the four bytes
/// t of the i32 `inputs`, in i32: one lane of VNNI's `vpdpbusd` when each
/// weight byte is an unsigned byte of a quad of weights.
Value byteQuadDot(OpBuilder &b, Location loc,
                  function_ref<Value(int64_t)> weightByte, Value inputs) {
  Type i32 = b.getI32Type();
  Value sum;
  for (int64_t t = 0; t < 4; ++t) {
    Value weight = arith::ExtUIOp::create(b, loc, i32, weightByte(t));
    Value input =
        arith::ExtSIOp::create(b, loc, i32, byteOfQuad(b, loc, inputs, t));
    Value product = arith::MulIOp::create(b, loc, weight, input);
    sum = sum ? arith::AddIOp::create(b, loc, sum, product) : product;
  }
  return sum;
}

/// The i32 partial sums per block of a quad-panel projection,
/// `partial[s, p, b, j] = sum_i stepSum(inputs[s, b, i]..., q[p, b, i, j])`,
/// loops (p, s, b, i, j): each of `inputQuads` (`[rows, blocks, steps]`
/// i32) read per row, block and step, the quants `[P, blocks, steps, W]`
/// i32 per lane. `stepSum` is added to the accumulator in one addition,
/// the form of a reduction that linalg vectorises.
Value sumQuadSteps(
    OpBuilder &b, Location loc, ValueRange inputQuads, Value quants,
    function_ref<Value(OpBuilder &, Location, ValueRange, Value)> stepSum) {
  MLIRContext *context = b.getContext();
  int64_t rows = shapeOf(inputQuads.front())[0];
  ArrayRef<int64_t> quantsShape = shapeOf(quants);
  int64_t numPanels = quantsShape[0], blocks = quantsShape[1],
          width = quantsShape[3];
  SmallVector<Value> operands(inputQuads);
  operands.push_back(quants);
  SmallVector<AffineMap> maps(inputQuads.size(),
                              projection(context, 5, {1, 2, 3}));
  maps.push_back(projection(context, 5, {0, 2, 3, 4}));
  maps.push_back(projection(context, 5, {1, 0, 2, 4}));
  SmallVector<utils::IteratorType> loops(5, utils::IteratorType::parallel);
  loops[3] = utils::IteratorType::reduction;
  Value init =
      zeroIntegers(b, loc, {rows, numPanels, blocks, width}, b.getI32Type());
  return linalg::GenericOp::create(
             b, loc, init.getType(), operands, init, maps, loops,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value sum =
                   stepSum(nb, nloc, args.drop_back(2), args[args.size() - 2]);
               yield(nb, nloc,
                     arith::AddIOp::create(nb, nloc, args.back(), sum));
             })
      .getResult(0);
}

/// q8_0x4 panels (Q8_0, four columns of a row a lane) times inputs
/// quantized to int8 (see quantizeInputBlocks):
/// `out[s, p, j] = sum_b (partial[s, p, b, j] + o[s, b]) * d[p, b, j] *
/// dx[s, b]` with the integer partial sums over the block's 8 quads
/// `partial[s, p, b, j] = sum_{i, t} (q[p, b, 4i + t, j] + 128) *
/// qx[s, b, 4i + t]`, loops (p, s, b, i, j): each quant biased to an
/// unsigned byte, and `o = -128 * sum(qx)` taking the bias out again. One
/// step is four products of an unsigned and a signed byte summed into 32
/// bits, one lane of VNNI's `vpdpbusd` (which tfm-cpu-byte-quad-dot uses
/// where the target has it); a block sums to at most 32 * 255 * 128 in
/// magnitude, exact in f32.
Value projectQ8_0x4(OpBuilder &b, Location loc, Value input, Value quants,
                    Value scales, int64_t outputs, Value bias) {
  QuantizedInputs inputs = quantizeInputBlocks(
      b, loc, input, shapeOf(quants)[1], /*offsetFactor=*/-128.0);
  Value quads = inputQuads(b, loc, inputs.quants);
  Value partial = sumQuadSteps(
      b, loc, quads, quants,
      [](OpBuilder &nb, Location nloc, ValueRange x, Value quant) -> Value {
        Value bias = arith::ConstantOp::create(
            nb, nloc, nb.getIntegerAttr(nb.getI8Type(), -128));
        // q + 128 as an unsigned byte: q with its top bit flipped.
        auto biasedQuant = [&](int64_t t) -> Value {
          return arith::XOrIOp::create(nb, nloc, byteOfQuad(nb, nloc, quant, t),
                                       bias);
        };
        return byteQuadDot(nb, nloc, biasedQuant, x[0]);
      });
  return scaleIntegerPartials(b, loc, partial, scales, inputs, outputs, bias);
}

/// q4_0x4 panels (Q4_0, four bytes of a row a lane) times inputs quantized
/// to int8 (see quantizeInputBlocks): as projectQ8_0x4, with the partial
/// sums over the block's 4 quads of bytes
/// `partial[s, p, b, j] = sum_{i, t} lo(q[p, b, 4i + t, j]) *
/// qx[s, b, 4i + t] + hi(q[p, b, 4i + t, j]) * qx[s, b, 16 + 4i + t]`,
/// loops (p, s, b, i, j), and `o = -8 * sum(qx)` for Q4_0's `- 8` on each
/// nibble. A quad's low nibbles are four unsigned bytes of columns 4i..4i+3,
/// its high nibbles those of columns 16 + 4i..: each step is two lanes of
/// `vpdpbusd` (tfm-cpu-byte-quad-dot), on the quad masked and on the quad
/// shifted and masked, against the input quads i and 4 + i. A block sums
/// to at most 32 * 15 * 128 in magnitude, exact in f32.
Value projectQ4_0x4(OpBuilder &b, Location loc, Value input, Value quants,
                    Value scales, int64_t outputs, Value bias) {
  int64_t rows = shapeOf(input)[0];
  int64_t blocks = shapeOf(quants)[1], steps = shapeOf(quants)[2];
  QuantizedInputs inputs =
      quantizeInputBlocks(b, loc, input, blocks, /*offsetFactor=*/-8.0);
  Value quads = inputQuads(b, loc, inputs.quants);
  // The input quads of the low nibbles' columns (0..15 of each block) and
  // of the high nibbles' (16..31).
  auto half = [&](int64_t offset) -> Value {
    return tensor::ExtractSliceOp::create(
        b, loc, quads,
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0),
                               b.getIndexAttr(offset)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(rows), b.getIndexAttr(blocks),
                               b.getIndexAttr(steps)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1),
                               b.getIndexAttr(1)});
  };
  Value lowInputs = half(0), highInputs = half(steps);
  Value partial = sumQuadSteps(
      b, loc, {lowInputs, highInputs}, quants,
      [](OpBuilder &nb, Location nloc, ValueRange x, Value quant) -> Value {
        auto constant = [&](int64_t value) {
          return arith::ConstantOp::create(
              nb, nloc, nb.getIntegerAttr(nb.getI8Type(), value));
        };
        auto lowNibble = [&](int64_t t) -> Value {
          return arith::AndIOp::create(nb, nloc, byteOfQuad(nb, nloc, quant, t),
                                       constant(15));
        };
        auto highNibble = [&](int64_t t) -> Value {
          return arith::ShRUIOp::create(
              nb, nloc, byteOfQuad(nb, nloc, quant, t), constant(4));
        };
        Value lows = byteQuadDot(nb, nloc, lowNibble, x[0]);
        Value highs = byteQuadDot(nb, nloc, highNibble, x[1]);
        return arith::AddIOp::create(nb, nloc, lows, highs);
      });
  return scaleIntegerPartials(b, loc, partial, scales, inputs, outputs, bias);
}

/// Q8_0 / Q4_0 / kquant panels (see tfm.global_weight's `block_quant`):
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
/// registers.
Value projectBlockPanels(OpBuilder &b, Location loc, Value input, Value quants,
                         Value scales, Value mins, StringRef format,
                         int64_t outputs, Value bias) {
  MLIRContext *context = b.getContext();
  int64_t rows = shapeOf(input)[0];
  ArrayRef<int64_t> quantsShape = shapeOf(quants);
  int64_t numPanels = quantsShape[0], blocks = quantsShape[1],
          perBlock = quantsShape[2], width = quantsShape[3];
  // Q4_0 and kquant4 hold two values a byte; Q4_0's are offset by 8.
  bool nibbles = blockFormatHoldsNibbles(format);
  bool offsetNibbles = format == "q4_0";
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
  Value product =
      linalg::GenericOp::create(
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
          })
          .getResult(0);
  return panelsToColumns(b, loc, product, outputs, bias);
}

struct QuantizedLinearLowering : OpRewritePattern<QuantizedLinearOp> {
  QuantizedLinearLowering(MLIRContext *context, bool int8Inputs)
      : OpRewritePattern(context), int8Inputs(int8Inputs) {}
  LogicalResult matchAndRewrite(QuantizedLinearOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getFormat() == "q8_0x4" || op.getFormat() == "q4_0x4") {
      auto project = op.getFormat() == "q8_0x4" ? projectQ8_0x4 : projectQ4_0x4;
      rewriter.replaceOp(op, project(rewriter, op.getLoc(), op.getInput(),
                                     op.getQuants(), op.getScales(),
                                     op.getOutFeatures(), op.getBias()));
      return success();
    }
    if (int8Inputs && op.getFormat() == "q4_0") {
      rewriter.replaceOp(
          op, projectQ4_0WithInt8Inputs(rewriter, op.getLoc(), op.getInput(),
                                        op.getQuants(), op.getScales(),
                                        op.getOutFeatures(), op.getBias()));
      return success();
    }
    rewriter.replaceOp(op,
                       projectBlockPanels(rewriter, op.getLoc(), op.getInput(),
                                          op.getQuants(), op.getScales(),
                                          op.getMins(), op.getFormat(),
                                          op.getOutFeatures(), op.getBias()));
    return success();
  }
  bool int8Inputs;
};

struct LinearLowering : OpRewritePattern<LinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LinearOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, project(rewriter, op.getLoc(), op.getInput(),
                                   op.getWeight(), op.getBias()));
    return success();
  }
};

struct LMHeadLowering : OpRewritePattern<LMHeadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LMHeadOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, project(rewriter, op.getLoc(), op.getInput(),
                                   op.getWeight(), Value()));
    return success();
  }
};

struct PackedLinearLowering : OpRewritePattern<PackedLinearOp> {
  PackedLinearLowering(MLIRContext *context, bool bf16Inputs)
      : OpRewritePattern(context), bf16Inputs(bf16Inputs) {}
  LogicalResult matchAndRewrite(PackedLinearOp op,
                                PatternRewriter &rewriter) const override {
    Value panels = op.getWeight();
    if (bf16Inputs && getElementTypeOrSelf(panels.getType()).isBF16() &&
        shapeOf(panels)[1] % 2 == 0) {
      rewriter.replaceOp(
          op, projectBf16Pairs(rewriter, op.getLoc(), op.getInput(), panels,
                               op.getOutFeatures(), op.getBias()));
      return success();
    }
    rewriter.replaceOp(op, projectPanels(rewriter, op.getLoc(), op.getInput(),
                                         op.getWeight(), op.getOutFeatures(),
                                         op.getBias()));
    return success();
  }
  bool bf16Inputs;
};

} // namespace

void mlir::tfm::populateTfmProjectionsToLinalgPatterns(
    RewritePatternSet &patterns, const ProjectionLoweringOptions &options) {
  patterns.add<LinearLowering, LMHeadLowering>(patterns.getContext());
  patterns.add<PackedLinearLowering>(patterns.getContext(), options.bf16Inputs);
  patterns.add<QuantizedLinearLowering>(patterns.getContext(),
                                        options.int8Inputs);
}
