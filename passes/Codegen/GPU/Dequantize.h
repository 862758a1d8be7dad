//===- Dequantize.h - Reading a matrix from its GGUF blocks -----*- C++ -*-===//
//
// The ways the GPU code generation computes tfm_gpu.dequantize: inside
// the warp reduction that reads the matrix (a decode GEMV reads the blocks
// of its rows, 16 bytes a lane, and dequantizes them in registers), one
// element where a kernel gathers it (an embedding's rows), or, for any
// other reader, as an elementwise kernel that writes the matrix out in f32
// first.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_CODEGEN_GPU_DEQUANTIZE_H
#define TFMC_PASSES_CODEGEN_GPU_DEQUANTIZE_H

#include "passes/Codegen/GPU/KernelConfig.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace mlir::tfm {

/// Values of a row that a lane of a warp reduction over `op`'s matrix
/// reads a step: a 16-byte load of its quants (16 Q8_0 values, or one
/// whole Q4_0 block of 32). The reduction's vector width must be this.
int64_t dequantizedLaneWidth(DequantizeOp op);

/// `tensor` as rows of a tfm_gpu.dequantize's matrix: the op, and the
/// offsets of its first row (tensor.extract_slice's of whole rows, unit
/// strides, on the way from the op's result to `tensor`).
struct DequantizedRows {
  DequantizeOp op;
  SmallVector<OpFoldResult> rowOffsets;
};
std::optional<DequantizedRows> traceDequantizedRows(Value tensor);

/// The f32 values `[offset, offset + width)` of row `row` of `op`'s matrix
/// as one warp-wide vector: the quants' bytes (Q4_0's nibbles unpacked,
/// each block's low then high ones) times each block's scale, read as a
/// broadcast along the block. `offset` is a multiple of `width`, itself a
/// multiple of 32 lanes times dequantizedLaneWidth; with `partial`, the
/// reads past the row's end are masked.
Value readDequantizedSlice(OpBuilder &b, Location loc, DequantizeOp op,
                           Value row, Value offset, int64_t width,
                           bool partial);

/// Element `[row, column]` of `op`'s matrix, read from its blocks as a
/// scalar: what a gather of a few rows (an embedding's) reads instead of
/// the whole matrix written out.
Value extractDequantized(OpBuilder &b, Location loc, DequantizeOp op, Value row,
                         Value column);

/// `op`'s matrix computed as linalg on tensors: one elementwise op over its
/// blocks that writes every value out in f32.
Value materializeDequantize(OpBuilder &b, DequantizeOp op);

} // namespace mlir::tfm

#endif // TFMC_PASSES_CODEGEN_GPU_DEQUANTIZE_H
