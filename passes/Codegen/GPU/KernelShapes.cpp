//===- KernelShapes.cpp - What the GPU kernel configs look at -------------===//
#include "passes/Codegen/GPU/KernelShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tfm;

std::optional<Projection> mlir::tfm::matchProjection(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != 3 ||
      op.hasDynamicShape() || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || !dims->batch.empty() || dims->m.size() != 1 ||
      dims->n.size() != 1 || dims->k.size() != 1 || dims->k[0] != 2)
    return std::nullopt;
  // The weights are the operand indexed by (n, k): the second.
  AffineMap weights = op.getIndexingMapsArray()[1];
  if (weights.getNumResults() != 2 ||
      !weights.getResult(0).isFunctionOfDim(dims->n[0]))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  Type weightType = cast<ShapedType>(op.getDpsInputOperand(1)->get().getType())
                        .getElementType();
  return Projection{ranges[dims->m[0]], ranges[dims->n[0]], ranges[dims->k[0]],
                    weightType};
}

/// The combining kind of a body op, if it can combine partial results.
static std::optional<vector::CombiningKind> combiningKind(Operation *op) {
  if (isa<arith::AddFOp>(op))
    return vector::CombiningKind::ADD;
  if (isa<arith::MaximumFOp>(op))
    return vector::CombiningKind::MAXIMUMF;
  if (isa<arith::MaxNumFOp>(op))
    return vector::CombiningKind::MAXNUMF;
  if (isa<arith::MinimumFOp>(op))
    return vector::CombiningKind::MINIMUMF;
  if (isa<arith::MinNumFOp>(op))
    return vector::CombiningKind::MINNUMF;
  return std::nullopt;
}

std::optional<InnermostReduction>
mlir::tfm::matchInnermostReduction(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  if (loops == 0 || op.getNumReductionLoops() != 1 ||
      !(op.getIteratorTypesArray().back() == utils::IteratorType::reduction) ||
      op.getNumDpsInits() != 1 || op.hasDynamicShape() ||
      !op.hasPureTensorSemantics())
    return std::nullopt;
  unsigned reduced = loops - 1;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    // Scalars and operands that do not vary along the reduction are read
    // once per output; the others must run along it as their innermost,
    // contiguous dimension.
    bool varies = llvm::any_of(map.getResults(), [&](AffineExpr e) {
      return e.isFunctionOfDim(reduced);
    });
    if (!varies)
      continue;
    if (map.getNumResults() == 0 ||
        map.getResults().back() != getAffineDimExpr(reduced, op.getContext()))
      return std::nullopt;
    for (AffineExpr e : map.getResults().drop_back())
      if (e.isFunctionOfDim(reduced))
        return std::nullopt;
    if (!isa<RankedTensorType>(input->get().getType()))
      return std::nullopt;
  }
  OpOperand *init = op.getDpsInitOperand(0);
  for (AffineExpr e : op.getMatchingIndexingMap(init).getResults())
    if (e.isFunctionOfDim(reduced))
      return std::nullopt;
  // yield combine(out, value) where value does not read out.
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  Operation *combiner = yield.getOperand(0).getDefiningOp();
  if (!combiner || combiner->getBlock() != body ||
      combiner->getNumOperands() != 2)
    return std::nullopt;
  std::optional<vector::CombiningKind> kind = combiningKind(combiner);
  if (!kind)
    return std::nullopt;
  BlockArgument out = op.getMatchingBlockArgument(init);
  int accumulatorOperand = combiner->getOperand(0) == out   ? 0
                           : combiner->getOperand(1) == out ? 1
                                                            : -1;
  if (accumulatorOperand < 0)
    return std::nullopt;
  // The accumulator feeds nothing else.
  if (!out.hasOneUse())
    return std::nullopt;
  if (!combiner->getResult(0).getType().isF32())
    return std::nullopt;
  return InnermostReduction{*kind, combiner};
}

/// Whether `offset` elements of a dimension whose stride is `stride`
/// elements keep `elements`-element alignment.
static bool keepsAlignment(OpFoldResult offset, int64_t stride,
                           int64_t elements) {
  if (stride != ShapedType::kDynamic && stride % elements == 0)
    return true;
  std::optional<int64_t> constant = getConstantIntValue(offset);
  return constant && stride != ShapedType::kDynamic &&
         (*constant * stride) % elements == 0;
}

/// Row-major strides of a static shape.
static SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = ShapedType::isDynamic(shape[i + 1]) ||
                         strides[i + 1] == ShapedType::kDynamic
                     ? ShapedType::kDynamic
                     : strides[i + 1] * shape[i + 1];
  return strides;
}

bool mlir::tfm::hasAlignedRows(Value tensor, int64_t elements) {
  if (elements == 1)
    return true;
  auto type = dyn_cast<RankedTensorType>(tensor.getType());
  if (!type || type.getRank() == 0)
    return false;
  // Allocations are at least 16-byte aligned (buffers, weight slots), and
  // no load is wider than 16 bytes: wider vectors are split into aligned
  // 16-byte pieces.
  int64_t bitWidth = type.getElementTypeBitWidth();
  if (elements * bitWidth > 128) {
    if ((128 % bitWidth) != 0 || elements % (128 / bitWidth) != 0)
      return false;
    if (type.getShape().back() % elements != 0)
      return false;
    return hasAlignedRows(tensor, 128 / bitWidth);
  }
  // Every row's length keeps the next row aligned.
  int64_t row = type.getShape().back();
  if (ShapedType::isDynamic(row) || row % elements != 0)
    return false;
  Operation *def = tensor.getDefiningOp();
  if (!def)
    return true; // A function argument: a whole, aligned buffer.
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def)) {
    RankedTensorType source = slice.getSourceType();
    if (ShapedType::isDynamic(source.getShape().back()) ||
        source.getShape().back() % elements != 0)
      return false;
    // Rows of the slice are rows of the source: unit strides, and a
    // rank-reducing slice keeps the source's innermost dimension.
    if (!llvm::all_of(slice.getMixedStrides(), [](OpFoldResult s) {
          return getConstantIntValue(s) == 1;
        }))
      return false;
    SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
    if (getConstantIntValue(sizes.back()) != row)
      return false;
    SmallVector<int64_t> strides = rowMajorStrides(source.getShape());
    SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
    for (size_t i = 0; i < offsets.size(); ++i)
      if (!keepsAlignment(offsets[i], strides[i], elements))
        return false;
    return hasAlignedRows(slice.getSource(), elements);
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def))
    return hasAlignedRows(expand.getSrc(), elements);
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def))
    return hasAlignedRows(collapse.getSrc(), elements);
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(def))
    return hasAlignedRows(insert.getDest(), elements);
  // A weight: a view at a 64-byte aligned slot of the blob.
  if (isa<bufferization::ToTensorOp, tensor::EmptyOp>(def))
    return true;
  // A kernel's result lives in its init's buffer.
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(def))
    return hasAlignedRows(dps.getTiedOpOperand(cast<OpResult>(tensor))->get(),
                          elements);
  return false;
}

int64_t mlir::tfm::largestDividing(int64_t size, ArrayRef<int64_t> candidates) {
  for (int64_t c : candidates)
    if (c > 0 && size % c == 0)
      return c;
  return 1;
}

int64_t mlir::tfm::largestDivisorAtMost(int64_t size, int64_t limit) {
  for (int64_t d = std::min(size, limit); d > 1; --d)
    if (size % d == 0)
      return d;
  return 1;
}
