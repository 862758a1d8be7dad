//===- ValuePanels.cpp - Projections over f32, f16 and bf16 panels --------===//
//
// `out[s, p, j] = sum_k x[s, k] * w[p, k, j]` over the value panels of a
// projection's matrix (16-bit panels widened as they are read), or, with
// bf16 inputs, over pairs of input features rounded to bf16.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/IR/KernelConfig.h"
#include "passes/Codegen/CPU/PanelProjections/PanelKernels.h"
#include "passes/LinalgBuilders.h"

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::cpu;

namespace {

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

} // namespace

/// The `[S, P, W]` panel product of a projection seen as `[S, P * W]`, cut
/// to `outputs` columns, plus `bias` if any.
Value mlir::tfm::cpu::panelsToColumns(OpBuilder &b, Location loc, Value product,
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

/// `out[s, p, j] = sum_k x[s, k] * w[p, k, j]` over loops (p, s, k, j), seen
/// as [S, P * W] and cut to `outputs` columns. tfm-cpu-tile-projections turns
/// this form, which carries `config`, into register-blocked micro-kernels.
Value mlir::tfm::cpu::projectPanels(OpBuilder &b, Location loc, Value input,
                                    Value panels, int64_t outputs, Value bias,
                                    ProjectionConfigAttr config) {
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
  auto kernel = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{input, panels}, init, maps, loops,
      [](OpBuilder &nb, Location nloc, ValueRange args) {
        // 16-bit panels are widened in registers as they are read.
        Value w = args[1];
        if (w.getType() != args[0].getType())
          w = arith::ExtFOp::create(nb, nloc, args[0].getType(), w);
        Value term = arith::MulFOp::create(nb, nloc, args[0], w);
        yield(nb, nloc, arith::AddFOp::create(nb, nloc, args[2], term));
      });
  setKernelConfig(kernel, config);
  return panelsToColumns(b, loc, kernel.getResult(0), outputs, bias);
}

/// bf16 panels times inputs rounded to bf16 (see inputPairs), over pairs
/// of input features: `out[s, p, j] = sum_i (w[p, 2i + 1, j] * hi(x[s, i])
/// + w[p, 2i, j] * lo(x[s, i]))` with `x` the input pairs and `lo` / `hi`
/// their halves widened to f32, loops (p, s, i, j). The products of two
/// bf16 are exact in f32; a step is one lane of AVX512_BF16's
/// `vdpbf16ps`, whose 32-bit lanes each hold a pair of bf16 (which
/// tfm-cpu-bf16-pair-dot uses where the target has it, on the even and odd
/// rows of the panels interleaved).
Value mlir::tfm::cpu::projectBf16Pairs(OpBuilder &b, Location loc, Value input,
                                       Value panels, int64_t outputs,
                                       Value bias,
                                       ProjectionConfigAttr config) {
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
  auto kernel = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{pairs, even, odd}, init, maps, loops,
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
            arith::AndIOp::create(nb, nloc, args[0],
                                  constant(static_cast<int32_t>(0xFFFF0000u))));
        Value evenWeight = arith::ExtFOp::create(nb, nloc, f32, args[1]);
        Value oddWeight = arith::ExtFOp::create(nb, nloc, f32, args[2]);
        Value oddProduct = arith::MulFOp::create(nb, nloc, oddWeight, high);
        Value evenProduct = arith::MulFOp::create(nb, nloc, evenWeight, low);
        Value step = arith::AddFOp::create(nb, nloc, oddProduct, evenProduct);
        yield(nb, nloc, arith::AddFOp::create(nb, nloc, args[3], step));
      });
  setKernelConfig(kernel, config);
  return panelsToColumns(b, loc, kernel.getResult(0), outputs, bias);
}
