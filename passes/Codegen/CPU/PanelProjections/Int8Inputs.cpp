//===- Int8Inputs.cpp - Block-quantized projections over int8 inputs ------===//
//
// The kernels that quantize a projection's inputs to int8 per block of 32
// (as llama.cpp's Q8_0 activations) and sum integer products: Q4_0's
// nibble pairs (16-bit sums per half block, AVX2's vpmaddubsw), and the
// byte quads of q8_0x4, q4_0x4 and the k-quants' kquantx4 and kquant4x4
// (32-bit sums, VNNI's vpdpbusd).
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/IR/KernelConfig.h"
#include "passes/Codegen/CPU/PanelProjections/PanelKernels.h"
#include "passes/LinalgBuilders.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::cpu;

namespace {

/// Inputs quantized to int8 per block of `perBlock` (as llama.cpp's Q8_0
/// activations, rounding half to even): `d[s, b] = max |x| / 127`,
/// `q[s, b, i] = round(x[s, b * perBlock + i] * (1 / d))` (0 for an
/// all-zero block), and, given an offset factor, the offsets `o[s, b] =
/// offsetFactor * sum_i q[s, b, i]` as f32 (exact, as |sum(q)| <= 32 *
/// 127): what an offset of the weights' integers adds to a block's dot
/// product (see the callers).
struct QuantizedInputs {
  Value quants;  ///< [rows, blocks, perBlock] i8
  Value scales;  ///< [rows, blocks] f32
  Value offsets; ///< [rows, blocks] f32, or null
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

/// `[rows, blocks]` f32 sums of `factor` times each int8 of `quants`
/// (`[rows, blocks, perBlock]`): exact, as |sum(q)| <= 32 * 127.
Value scaledQuantSums(OpBuilder &b, Location loc, Value quants, double factor) {
  return reduceBlocks(
      b, loc, quants,
      [factor](OpBuilder &nb, Location nloc, Value quant) -> Value {
        Value wide = arith::SIToFPOp::create(nb, nloc, nb.getF32Type(), quant);
        return factor == 1.0
                   ? wide
                   : Value(arith::MulFOp::create(
                         nb, nloc, wide, f32Constant(nb, nloc, factor)));
      },
      [](OpBuilder &nb, Location nloc, Value acc, Value term) -> Value {
        return arith::AddFOp::create(nb, nloc, acc, term);
      });
}

QuantizedInputs quantizeInputBlocks(OpBuilder &b, Location loc, Value input,
                                    int64_t blocks,
                                    std::optional<double> offsetFactor) {
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
  Value offsets;
  if (offsetFactor)
    offsets = scaledQuantSums(b, loc, quants, *offsetFactor);
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
/// s, b, (h,) j), as `[S, P * W]` cut to `outputs` columns plus `bias`; the
/// scaled sum, which tfm-cpu-tile-projections tiles, carries `config`.
Value scaleIntegerPartials(OpBuilder &b, Location loc, Value partial,
                           Value scales, const QuantizedInputs &inputs,
                           int64_t outputs, Value bias,
                           ProjectionConfigAttr config) {
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
  auto kernel = linalg::GenericOp::create(
      b, loc, init.getType(),
      ValueRange{partial, scales, inputs.offsets, inputs.scales}, init,
      scaleMaps, scaleLoops, [](OpBuilder &nb, Location nloc, ValueRange args) {
        Type f32 = nb.getF32Type();
        Value sum = arith::AddFOp::create(
            nb, nloc, arith::SIToFPOp::create(nb, nloc, f32, args[0]), args[2]);
        Value scale = arith::MulFOp::create(
            nb, nloc, arith::ExtFOp::create(nb, nloc, f32, args[1]), args[3]);
        Value term = arith::MulFOp::create(nb, nloc, sum, scale);
        yield(nb, nloc, arith::AddFOp::create(nb, nloc, args[4], term));
      });
  setKernelConfig(kernel, config);
  return panelsToColumns(b, loc, kernel.getResult(0), outputs, bias);
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

/// One step of a quad of nibble pairs (q4_0x4, kquant4x4): the low nibbles
/// of the weight quad `quant` (four unsigned bytes) times the input quad
/// `x[0]`, plus its high nibbles times `x[1]`, in i32.
Value nibbleQuadsDot(OpBuilder &b, Location loc, ValueRange x, Value quant) {
  auto constant = [&](int64_t value) {
    return arith::ConstantOp::create(b, loc,
                                     b.getIntegerAttr(b.getI8Type(), value));
  };
  auto lowNibble = [&](int64_t t) -> Value {
    return arith::AndIOp::create(b, loc, byteOfQuad(b, loc, quant, t),
                                 constant(15));
  };
  auto highNibble = [&](int64_t t) -> Value {
    return arith::ShRUIOp::create(b, loc, byteOfQuad(b, loc, quant, t),
                                  constant(4));
  };
  Value lows = byteQuadDot(b, loc, lowNibble, x[0]);
  Value highs = byteQuadDot(b, loc, highNibble, x[1]);
  return arith::AddIOp::create(b, loc, lows, highs);
}

/// The input quads `[rows, blocks..., steps]` split in two along the
/// steps: the quads of the low nibbles' columns (the first 16 of each block
/// of 32) and of the high nibbles' (the last 16).
std::pair<Value, Value> nibbleHalves(OpBuilder &b, Location loc, Value quads) {
  ArrayRef<int64_t> shape = shapeOf(quads);
  size_t last = shape.size() - 1;
  auto half = [&](int64_t offset) -> Value {
    SmallVector<OpFoldResult> offsets(shape.size(), b.getIndexAttr(0));
    offsets[last] = b.getIndexAttr(offset);
    SmallVector<OpFoldResult> sizes =
        getAsIndexOpFoldResult(b.getContext(), shape);
    sizes[last] = b.getIndexAttr(shape[last] / 2);
    SmallVector<OpFoldResult> strides(shape.size(), b.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(b, loc, quads, offsets, sizes,
                                          strides);
  };
  return {half(0), half(shape[last] / 2)};
}

/// The i32 partial sums per block of a quad-panel projection,
/// `partial[s, p, b..., j] = sum_i stepSum(inputs[s, b..., i]..., q[p,
/// b..., i, j])`, loops (p, s, b..., i, j): each of `inputQuads` (`[rows,
/// blocks..., steps]` i32) read per row, block and step, the quants `[P,
/// blocks..., steps, W]` i32 per lane, with one block dimension or two
/// (super-block, sub-block). `stepSum` is added to the accumulator in one
/// addition, the form of a reduction that linalg vectorises.
Value sumQuadSteps(
    OpBuilder &b, Location loc, ValueRange inputQuads, Value quants,
    function_ref<Value(OpBuilder &, Location, ValueRange, Value)> stepSum) {
  MLIRContext *context = b.getContext();
  int64_t rows = shapeOf(inputQuads.front())[0];
  ArrayRef<int64_t> quantsShape = shapeOf(quants);
  unsigned loops = quantsShape.size() + 1, step = loops - 2, lane = loops - 1;
  SmallVector<unsigned> blockDims, inputDims = {1}, quantDims = {0},
                                   outputDims = {1, 0};
  for (unsigned dim = 2; dim < step; ++dim)
    blockDims.push_back(dim);
  llvm::append_range(inputDims, blockDims);
  inputDims.push_back(step);
  llvm::append_range(quantDims, blockDims);
  quantDims.append({step, lane});
  llvm::append_range(outputDims, blockDims);
  outputDims.push_back(lane);
  SmallVector<Value> operands(inputQuads);
  operands.push_back(quants);
  SmallVector<AffineMap> maps(inputQuads.size(),
                              projection(context, loops, inputDims));
  maps.push_back(projection(context, loops, quantDims));
  maps.push_back(projection(context, loops, outputDims));
  SmallVector<utils::IteratorType> iteratorTypes(loops,
                                                 utils::IteratorType::parallel);
  iteratorTypes[step] = utils::IteratorType::reduction;
  SmallVector<int64_t> partialShape = {rows, quantsShape[0]};
  for (unsigned dim : blockDims)
    partialShape.push_back(quantsShape[dim - 1]);
  partialShape.push_back(quantsShape.back());
  Value init = zeroIntegers(b, loc, partialShape, b.getI32Type());
  return linalg::GenericOp::create(
             b, loc, init.getType(), operands, init, maps, iteratorTypes,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value sum =
                   stepSum(nb, nloc, args.drop_back(2), args[args.size() - 2]);
               yield(nb, nloc,
                     arith::AddIOp::create(nb, nloc, args.back(), sum));
             })
      .getResult(0);
}

/// `value` with its dimension `blockDim` (of `blocks`) split into
/// `[superBlocks, blocks / superBlocks]`.
Value splitBlocks(OpBuilder &b, Location loc, Value value, unsigned blockDim,
                  int64_t superBlocks) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  int64_t perSuperBlock = shape[blockDim] / superBlocks;
  shape[blockDim] = perSuperBlock;
  shape.insert(shape.begin() + blockDim, superBlocks);
  SmallVector<ReassociationIndices> groups;
  for (unsigned dim = 0, next = 0; dim < type.getRank(); ++dim) {
    ReassociationIndices group = {next++};
    if (dim == blockDim)
      group.push_back(next++);
    groups.push_back(group);
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      groups);
}

/// Factor `f` of the super-block factors `[P, KS, F, W]`, as `[P, KS, W]`.
Value superBlockFactor(OpBuilder &b, Location loc, Value factors, int64_t f) {
  ArrayRef<int64_t> shape = shapeOf(factors);
  auto sliceType =
      RankedTensorType::get({shape[0], shape[1], shape[3]}, b.getF32Type());
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(0),
                                       b.getIndexAttr(f), b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {
      b.getIndexAttr(shape[0]), b.getIndexAttr(shape[1]), b.getIndexAttr(1),
      b.getIndexAttr(shape[3])};
  SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, sliceType, factors, offsets,
                                        sizes, strides);
}

} // namespace

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
Value mlir::tfm::cpu::projectQ4_0WithInt8Inputs(OpBuilder &b, Location loc,
                                                Value input, Value quants,
                                                Value scales, int64_t outputs,
                                                Value bias,
                                                ProjectionConfigAttr config) {
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

  return scaleIntegerPartials(b, loc, partial, scales, inputs, outputs, bias,
                              config);
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
Value mlir::tfm::cpu::projectQ8_0x4(OpBuilder &b, Location loc, Value input,
                                    Value quants, Value scales, int64_t outputs,
                                    Value bias, ProjectionConfigAttr config) {
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
  return scaleIntegerPartials(b, loc, partial, scales, inputs, outputs, bias,
                              config);
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
Value mlir::tfm::cpu::projectQ4_0x4(OpBuilder &b, Location loc, Value input,
                                    Value quants, Value scales, int64_t outputs,
                                    Value bias, ProjectionConfigAttr config) {
  QuantizedInputs inputs = quantizeInputBlocks(
      b, loc, input, shapeOf(quants)[1], /*offsetFactor=*/-8.0);
  auto [lowInputs, highInputs] =
      nibbleHalves(b, loc, inputQuads(b, loc, inputs.quants));
  Value partial =
      sumQuadSteps(b, loc, {lowInputs, highInputs}, quants, nibbleQuadsDot);
  return scaleIntegerPartials(b, loc, partial, scales, inputs, outputs, bias,
                              config);
}

/// kquantx4 and kquant4x4 panels (the k-quants, four bytes of a row a
/// lane) times inputs quantized to int8 per block of 32 (see
/// quantizeInputBlocks), the weights in sub-blocks b of B = 16 or 32 values
/// (two or one a block of inputs) with GGUF's integer scales `sc` and
/// minimums `m`, and per super-block k of 256 values the f32 factors `d`
/// and `dmin` they multiply:
/// `out[s, p, j] = sum_{k, b} (partial[s, p, k, b, j] + o[s, k, b]) *
/// (d[p, k, j] * sc[p, k, b, j]) * dx[s, k, b] - (dmin[p, k, j] * m[p, k,
/// b, j]) * xs[s, k, b]`, loops (p, s, k, b, j), where `dx` is the scale of
/// the inputs' block that weight sub-block lies in, `xs = dx * sum_{i in
/// b} qx[s, i]` the sum of its dequantized inputs (the minimums are
/// subtracted from every value: `sum((q * d - m) * x) = d * sum(q * x) - m
/// * sum(x)`), and the integer partial sums over the sub-block's quads:
/// - kquantx4 (`[P, KB, B / 4, W]`, a byte a value, stored as q + 32):
///   `partial[s, p, k, b, j] = sum_{i, t} byte_t(q[p, k, b, i, j]) * qx[s,
///   (k * 256 / B + b) * B + 4i + t]`, each step one lane of `vpdpbusd` on
///   the bytes as they are, and `o = -32 * sum(qx)` over the sub-block
///   taking the bias out again (a sub-block at most 32 * 63 * 128 in
///   magnitude);
/// - kquant4x4 (`[P, KB, 4, W]`, Q4_K's nibbles 0..15, B = 32): q4_0x4's
///   steps of two `vpdpbusd`, the nibbles unsigned as stored, no offset.
/// `d * sc` and `dmin * m` are the f32 scale and minimum ggml dequantizes
/// with (exact products of an f16 and an integer of 8 bits at most), so the
/// kernel reads 2 bytes of scales a sub-block and row, and 8 a
/// super-block, instead of two f32 a sub-block. Q6_K's matrices have no
/// minimums (`mins` is null, `factors` holds d alone). Every integer sum is
/// exact in f32; the result is the dot product of the dequantized weights
/// with the dequantized inputs, summed per sub-block first.
Value mlir::tfm::cpu::projectKQuantQuads(OpBuilder &b, Location loc,
                                         Value input, Value quants,
                                         Value scales, Value mins,
                                         Value factors, int64_t outputs,
                                         Value bias,
                                         ProjectionConfigAttr config) {
  MLIRContext *context = b.getContext();
  tfmc::weights::PanelFormat format = config.getPanels();
  int64_t rows = shapeOf(input)[0], columns = shapeOf(input)[1];
  int64_t blocks = shapeOf(quants)[1];
  int64_t superBlocks = shapeOf(factors)[1];
  int64_t blockValues = columns / blocks;
  int64_t weightBlocksPerInput = 32 / blockValues;
  Type f32 = b.getF32Type(), i8 = b.getI8Type();
  QuantizedInputs inputs =
      quantizeInputBlocks(b, loc, input, columns / 32, std::nullopt);
  // The int8 inputs and their scales per block of the weights.
  Value blockQuants = inputs.quants, blockScales = inputs.scales;
  if (weightBlocksPerInput > 1) {
    blockQuants = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({rows, blocks, blockValues}, i8),
        tensor::CollapseShapeOp::create(
            b, loc, inputs.quants,
            SmallVector<ReassociationIndices>{{0}, {1, 2}}),
        SmallVector<ReassociationIndices>{{0}, {1, 2}});
    Value spread =
        linalg::GenericOp::create(
            b, loc,
            RankedTensorType::get({rows, columns / 32, weightBlocksPerInput},
                                  f32),
            inputs.scales,
            emptyTensor(b, loc, {rows, columns / 32, weightBlocksPerInput}),
            SmallVector<AffineMap>{projection(context, 3, {0, 1}),
                                   projection(context, 3, {0, 1, 2})},
            iterators(3),
            [](OpBuilder &nb, Location nloc, ValueRange args) {
              yield(nb, nloc, args[0]);
            })
            .getResult(0);
    blockScales = tensor::CollapseShapeOp::create(
        b, loc, spread, SmallVector<ReassociationIndices>{{0}, {1, 2}});
  }
  // Per row and weight block: the offset of kquantx4's bias and the sum of
  // the dequantized inputs that the minimums multiply.
  bool biased = tfmc::weights::quantBias(format) != 0;
  Value quantSums = scaledQuantSums(b, loc, blockQuants, 1.0);
  SmallVector<Value> perRowBlock = {blockScales};
  if (biased)
    perRowBlock.push_back(
        linalg::GenericOp::create(
            b, loc, quantSums.getType(), quantSums,
            emptyTensor(b, loc, {rows, blocks}),
            SmallVector<AffineMap>(2, projection(context, 2, {0, 1})),
            iterators(2),
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              yield(nb, nloc,
                    arith::MulFOp::create(
                        nb, nloc, args[0],
                        f32Constant(nb, nloc,
                                    -tfmc::weights::quantBias(format))));
            })
            .getResult(0));
  if (mins)
    perRowBlock.push_back(
        linalg::GenericOp::create(
            b, loc, quantSums.getType(), ValueRange{quantSums, blockScales},
            emptyTensor(b, loc, {rows, blocks}),
            SmallVector<AffineMap>(3, projection(context, 2, {0, 1})),
            iterators(2),
            [](OpBuilder &nb, Location nloc, ValueRange args) {
              yield(nb, nloc,
                    arith::MulFOp::create(nb, nloc, args[0], args[1]));
            })
            .getResult(0));

  // The sub-blocks of each super-block apart: loops (p, s, k, b, i, j).
  Value quads =
      splitBlocks(b, loc, inputQuads(b, loc, blockQuants), 1, superBlocks);
  Value panelQuants = splitBlocks(b, loc, quants, 1, superBlocks);
  Value partial;
  if (tfmc::weights::holdsKQuantBytes(format)) {
    partial = sumQuadSteps(
        b, loc, quads, panelQuants,
        [](OpBuilder &nb, Location nloc, ValueRange x, Value quant) -> Value {
          return byteQuadDot(
              nb, nloc,
              [&](int64_t t) { return byteOfQuad(nb, nloc, quant, t); }, x[0]);
        });
  } else {
    auto [lowInputs, highInputs] = nibbleHalves(b, loc, quads);
    partial = sumQuadSteps(b, loc, {lowInputs, highInputs}, panelQuants,
                           nibbleQuadsDot);
  }

  // Loops (p, s, k, b, j): the partials, then per panel row d (first: the
  // scaled sum's per-panel-block operand), the integer scales, dmin and the
  // minimums, then per row the inputs' scales, offsets and sums.
  AffineMap perPanelSuperBlock = projection(context, 5, {0, 2, 4});
  AffineMap perPanelBlock = projection(context, 5, {0, 2, 3, 4});
  AffineMap perRowBlockMap = projection(context, 5, {1, 2, 3});
  SmallVector<Value> operands = {partial, superBlockFactor(b, loc, factors, 0),
                                 splitBlocks(b, loc, scales, 1, superBlocks)};
  SmallVector<AffineMap> maps = {projection(context, 5, {1, 0, 2, 3, 4}),
                                 perPanelSuperBlock, perPanelBlock};
  if (mins) {
    operands.push_back(superBlockFactor(b, loc, factors, 1));
    operands.push_back(splitBlocks(b, loc, mins, 1, superBlocks));
    maps.append({perPanelSuperBlock, perPanelBlock});
  }
  for (Value perRow : perRowBlock) {
    operands.push_back(splitBlocks(b, loc, perRow, 1, superBlocks));
    maps.push_back(perRowBlockMap);
  }
  maps.push_back(projection(context, 5, {1, 0, 4}));
  Value init =
      filledTensor(b, loc, {rows, shapeOf(quants)[0], shapeOf(quants)[3]}, 0.0);
  SmallVector<utils::IteratorType> loops = {
      utils::IteratorType::parallel, utils::IteratorType::parallel,
      utils::IteratorType::reduction, utils::IteratorType::reduction,
      utils::IteratorType::parallel};
  bool hasMins = static_cast<bool>(mins);
  auto kernel = linalg::GenericOp::create(
      b, loc, init.getType(), operands, init, maps, loops,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        // partial, d, sc, [dmin, m], dx, [o], [xs], acc
        unsigned next = 1;
        Value d = args[next++];
        Value sc = args[next++];
        Value dmin = hasMins ? args[next++] : Value();
        Value m = hasMins ? args[next++] : Value();
        Value inputScale = args[next++];
        Value offset = biased ? args[next++] : Value();
        Value inputSum = hasMins ? args[next++] : Value();
        Value sum = arith::SIToFPOp::create(nb, nloc, f32, args[0]);
        if (offset)
          sum = arith::AddFOp::create(nb, nloc, sum, offset);
        Value scale = arith::MulFOp::create(
            nb, nloc, d, arith::SIToFPOp::create(nb, nloc, f32, sc));
        Value term = arith::MulFOp::create(
            nb, nloc, sum, arith::MulFOp::create(nb, nloc, scale, inputScale));
        if (hasMins) {
          Value min = arith::MulFOp::create(
              nb, nloc, dmin, arith::SIToFPOp::create(nb, nloc, f32, m));
          term = arith::SubFOp::create(
              nb, nloc, term, arith::MulFOp::create(nb, nloc, min, inputSum));
        }
        yield(nb, nloc, arith::AddFOp::create(nb, nloc, args.back(), term));
      });
  setKernelConfig(kernel, config);
  return panelsToColumns(b, loc, kernel.getResult(0), outputs, bias);
}
