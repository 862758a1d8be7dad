//===- Dequantize.cpp - Reading a matrix from its GGUF blocks -------------===//
//
// See Dequantize.h. Both forms compute value [r, B * b + i] as
// `scale[r, b] * q - min[r, b]` in f32 (tfm_gpu.dequantize), so that a GEMV
// and a GEMM over the same blocks multiply the same values.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/GPU/Dequantize.h"

#include "compiler/weights/BlockPanels.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tfm;
using tfmc::weights::kQuantBlock;

namespace {

/// Bytes a lane loads at a time.
constexpr int64_t kLaneBytes = 16;

/// Whether `op`'s quants hold two values a byte (Q4_0, kquant4), in Q4_0's
/// order: a block's first 16 values low, the next 16 high.
bool holdsNibbles(DequantizeOp op) {
  return tfmc::weights::holdsNibbles(op.getFormat());
}

/// What is subtracted from each quant: Q4_0's 8.
int64_t quantOffset(DequantizeOp op) {
  return op.getFormat() == tfmc::weights::PanelFormat::q4_0 ? 8 : 0;
}

/// The quants as `[rows, blocks * Q]` bytes.
Value collapsedQuants(OpBuilder &b, Location loc, DequantizeOp op) {
  return tensor::CollapseShapeOp::create(
      b, loc, op.getQuants(),
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
}

/// A vector of `type` (of i8) whose every byte is `value`.
Value byteSplat(OpBuilder &b, Location loc, Type type, int64_t value) {
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(cast<ShapedType>(type),
                             b.getIntegerAttr(b.getI8Type(), value)));
}

/// Quant byte `q` of `op`'s matrix as an f32 value: its high nibble where
/// `high` holds, else its low one (nibble formats; `high` is null for the
/// others), less Q4_0's 8.
Value quantValue(OpBuilder &b, Location loc, DequantizeOp op, Value q,
                 Value high) {
  auto byte = [&](int64_t value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(value));
  };
  if (high) {
    Value low = arith::AndIOp::create(b, loc, q, byte(0x0F));
    Value shifted = arith::ShRUIOp::create(b, loc, q, byte(4));
    q = arith::SelectOp::create(b, loc, high, shifted, low);
  }
  if (int64_t offset = quantOffset(op))
    q = arith::SubIOp::create(b, loc, q, byte(offset));
  return arith::SIToFPOp::create(b, loc, b.getF32Type(), q);
}

/// `value * scale - min` in f32, scalars or vectors alike (no minimum where
/// `min` is null), the scale widened from f16 where it is one.
Value scaledValue(OpBuilder &b, Location loc, Value value, Value scale,
                  Value min) {
  if (scale.getType() != value.getType())
    scale = arith::ExtFOp::create(b, loc, value.getType(), scale);
  Value scaled = arith::MulFOp::create(b, loc, value, scale);
  if (!min)
    return scaled;
  return arith::SubFOp::create(b, loc, scaled, min);
}

} // namespace

int64_t mlir::tfm::dequantizedLaneWidth(DequantizeOp op) {
  return kLaneBytes * op.getValuesPerByte();
}

std::optional<DequantizedRows> mlir::tfm::traceDequantizedRows(Value tensor) {
  DequantizedRows rows;
  Value value = tensor;
  while (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>()) {
    RankedTensorType source = slice.getSourceType();
    if (source.getRank() != 2 || slice.getType().getRank() != 2 ||
        !llvm::all_of(slice.getMixedStrides(),
                      [](OpFoldResult s) { return isConstantIntValue(s, 1); }))
      return std::nullopt;
    // Whole rows only: the blocks of a row are read from its start.
    if (!isConstantIntValue(slice.getMixedOffsets()[1], 0) ||
        !isConstantIntValue(slice.getMixedSizes()[1], source.getDimSize(1)))
      return std::nullopt;
    rows.rowOffsets.push_back(slice.getMixedOffsets()[0]);
    value = slice.getSource();
  }
  rows.op = value.getDefiningOp<DequantizeOp>();
  if (!rows.op)
    return std::nullopt;
  return rows;
}

Value mlir::tfm::readDequantizedSlice(OpBuilder &b, Location loc,
                                      DequantizeOp op, Value row, Value offset,
                                      int64_t width, bool partial) {
  int64_t perByte = op.getValuesPerByte();
  int64_t bytes = width / perByte;
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };

  // The quants: 16 contiguous bytes a lane.
  Value byteOffset = arith::DivUIOp::create(b, loc, offset, index(perByte));
  auto byteType = VectorType::get({bytes}, b.getI8Type());
  Value zeroByte = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0));
  Value quants = collapsedQuants(b, loc, op);
  Value q = vector::TransferReadOp::create(b, loc, byteType, quants,
                                           ValueRange{row, byteOffset},
                                           zeroByte, ArrayRef<bool>{!partial});
  auto valueBytes = VectorType::get({width}, b.getI8Type());
  if (holdsNibbles(op)) {
    // Each block's 16 bytes hold its first 16 values in their low nibbles
    // and the next 16 in their high ones: a lane's block is its own 16
    // bytes, unpacked in registers.
    Value low =
        arith::AndIOp::create(b, loc, q, byteSplat(b, loc, byteType, 0x0F));
    Value high =
        arith::ShRUIOp::create(b, loc, q, byteSplat(b, loc, byteType, 4));
    SmallVector<int64_t> order;
    int64_t half = kQuantBlock / 2;
    for (int64_t e = 0; e < width; ++e) {
      int64_t block = e / kQuantBlock, i = e % kQuantBlock;
      order.push_back(i < half ? block * half + i
                               : bytes + block * half + (i - half));
    }
    q = vector::ShuffleOp::create(b, loc, low, high, order);
  }
  if (int64_t offset = quantOffset(op))
    q = arith::SubIOp::create(b, loc, q, byteSplat(b, loc, valueBytes, offset));
  auto valueType = VectorType::get({width}, b.getF32Type());
  Value values = arith::SIToFPOp::create(b, loc, valueType, q);

  // The scales (and minimums): each block's, broadcast along its values.
  // Read as `[blocks, 1]` from the `[rows, blocks, 1]` declaration: one
  // scalar a block, whatever the alignment of a row's scales.
  int64_t blockValues = op.getBlockValues();
  int64_t blocks = llvm::divideCeil(width, blockValues);
  Value blockOffset =
      arith::DivUIOp::create(b, loc, offset, index(blockValues));
  auto alongBlocks = [&](Value perBlock) -> Value {
    Type element = cast<ShapedType>(perBlock.getType()).getElementType();
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    Value read = vector::TransferReadOp::create(
        b, loc, VectorType::get({blocks, 1}, element), perBlock,
        ValueRange{row, blockOffset, index(0)}, zero,
        ArrayRef<bool>{!partial, true});
    read = vector::BroadcastOp::create(
        b, loc, VectorType::get({blocks, blockValues}, element), read);
    return vector::ShapeCastOp::create(b, loc,
                                       VectorType::get({width}, element), read);
  };
  Value scales = alongBlocks(op.getScales());
  Value mins = op.getMins() ? alongBlocks(op.getMins()) : Value();
  return scaledValue(b, loc, values, scales, mins);
}

Value mlir::tfm::extractDequantized(OpBuilder &b, Location loc, DequantizeOp op,
                                    Value row, Value column) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  int64_t blockValues = op.getBlockValues();
  Value block = arith::DivUIOp::create(b, loc, column, index(blockValues));
  Value within = arith::RemUIOp::create(b, loc, column, index(blockValues));
  Value byte = column;
  if (holdsNibbles(op)) {
    // Byte `i mod 16` of the block's 16, low nibble for i < 16.
    int64_t half = blockValues / 2;
    Value first = arith::MulIOp::create(b, loc, block, index(half));
    Value inBlock = arith::RemUIOp::create(b, loc, within, index(half));
    byte = arith::AddIOp::create(b, loc, first, inBlock);
  }
  // The view of the quants beside the op, outside the kernel that gathers.
  OpBuilder outside(op);
  outside.setInsertionPointAfter(op);
  Value quants = collapsedQuants(outside, op.getLoc(), op);
  Value q = tensor::ExtractOp::create(b, loc, quants, ValueRange{row, byte});
  Value high;
  if (holdsNibbles(op))
    high = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, within,
                                 index(blockValues / 2));
  Value value = quantValue(b, loc, op, q, high);
  auto perBlock = [&](Value values) -> Value {
    if (!values)
      return values;
    return tensor::ExtractOp::create(b, loc, values,
                                     ValueRange{row, block, index(0)});
  };
  Value scale = perBlock(op.getScales());
  return scaledValue(b, loc, value, scale, perBlock(op.getMins()));
}

Value mlir::tfm::materializeDequantize(OpBuilder &b, DequantizeOp op) {
  Location loc = op.getLoc();
  auto quantsType = cast<RankedTensorType>(op.getQuants().getType());
  int64_t blocks = quantsType.getDimSize(0) * quantsType.getDimSize(1);
  bool nibbles = holdsNibbles(op);
  // Loops over every block of the matrix (rows and blocks fused: the
  // elementwise configs give the three innermost loops to threads), then
  // bytes: (block, i) over its values; nibbles: (block, h, i), h the
  // nibble (low: the block's first 16 values, high: the next 16).
  int64_t perBlock = quantsType.getDimSize(2);
  SmallVector<int64_t> shape = nibbles
                                   ? SmallVector<int64_t>{blocks, 2, perBlock}
                                   : SmallVector<int64_t>{blocks, perBlock};
  unsigned loops = shape.size();
  MLIRContext *context = b.getContext();
  AffineExpr block = getAffineDimExpr(0, context),
             i = getAffineDimExpr(loops - 1, context);
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, {block, i}, context),
                                 AffineMap::get(loops, 0, {block}, context)};
  SmallVector<Value> inputs = {
      tensor::CollapseShapeOp::create(
          b, loc, op.getQuants(),
          SmallVector<ReassociationIndices>{{0, 1}, {2, 3}}),
      tensor::CollapseShapeOp::create(
          b, loc, op.getScales(),
          SmallVector<ReassociationIndices>{{0, 1, 2}})};
  if (op.getMins()) {
    maps.push_back(maps.back());
    inputs.push_back(tensor::CollapseShapeOp::create(
        b, loc, op.getMins(), SmallVector<ReassociationIndices>{{0, 1, 2}}));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(loops, context));
  Value init = tensor::EmptyOp::create(b, loc, shape, b.getF32Type());
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), inputs, ValueRange{init}, maps,
      SmallVector<utils::IteratorType>(loops, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value high;
        if (nibbles) {
          Value nibble = linalg::IndexOp::create(nb, nloc, 1);
          high = arith::CmpIOp::create(
              nb, nloc, arith::CmpIPredicate::ne, nibble,
              arith::ConstantIndexOp::create(nb, nloc, 0));
        }
        Value value = quantValue(nb, nloc, op, args[0], high);
        Value min = op.getMins() ? args[2] : Value();
        linalg::YieldOp::create(nb, nloc,
                                scaledValue(nb, nloc, value, args[1], min));
      });
  // [blocks, ...values] -> [rows * columns] -> [rows, columns].
  auto flat =
      RankedTensorType::get({op.getType().getNumElements()}, b.getF32Type());
  SmallVector<ReassociationIndices> all = {
      llvm::to_vector(llvm::seq<int64_t>(0, loops))};
  Value values =
      tensor::CollapseShapeOp::create(b, loc, flat, generic.getResult(0), all);
  return tensor::ExpandShapeOp::create(
      b, loc, op.getType(), values, SmallVector<ReassociationIndices>{{0, 1}});
}
