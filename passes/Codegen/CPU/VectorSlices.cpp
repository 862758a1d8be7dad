//===- VectorSlices.cpp - A vector updated one slice at a time ------------===//
#include "passes/Codegen/CPU/VectorSlices.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

Value mlir::tfm::updateInSlices(
    OpBuilder &b, Location loc, Value flat, int64_t lanes,
    function_ref<Value(function_ref<Value(Value)> sliceOf)> updateSlice) {
  int64_t count = cast<VectorType>(flat.getType()).getNumElements();
  Value result = flat;
  for (int64_t offset = 0; offset < count; offset += lanes) {
    auto sliceOf = [&](Value value) -> Value {
      if (count == lanes)
        return value;
      return vector::ExtractStridedSliceOp::create(
          b, loc, value, ArrayRef<int64_t>{offset}, ArrayRef<int64_t>{lanes},
          ArrayRef<int64_t>{1});
    };
    Value updated = updateSlice(sliceOf);
    result = count == lanes
                 ? updated
                 : vector::InsertStridedSliceOp::create(
                       b, loc, updated, result, ArrayRef<int64_t>{offset},
                       ArrayRef<int64_t>{1})
                       .getResult();
  }
  return result;
}
