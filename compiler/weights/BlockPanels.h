//===- BlockPanels.h - Q8_0 / Q4_0 weights as column panels -----*- C++ -*-===//
//
// Compile-time quantization of f32 matrices to GGUF's Q8_0 and Q4_0 (ggml's
// reference quantize_row_q8_0 / quantize_row_q4_0, round to nearest as the
// format defines it) and the panel layout the generated kernels read them
// in. A `[rows, columns]` matrix of `KB = columns / 32` blocks per row and
// panels of `W` rows becomes two arrays (see #tfm_cpu.panels):
//   quants  [P, KB, Q, W] bytes   Q8_0: Q = 32, byte [p, b, i, j] is the
//                                 int8 of row p * W + j, column b * 32 + i;
//                                 Q4_0: Q = 16, byte [p, b, i, j] holds the
//                                 nibble of column b * 32 + i low and of
//                                 column b * 32 + 16 + i high (as ggml);
//   scales  [P, KB, W] f16        the scale of row p * W + j, block b.
// Rows past the matrix are zero (scale 0, quants of value 0).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_WEIGHTS_BLOCKPANELS_H
#define TFMC_COMPILER_WEIGHTS_BLOCKPANELS_H

#include "compiler/weights/TensorView.h"

#include "llvm/Support/Error.h"

#include <string>

namespace tfmc::weights {

/// Values per block of Q8_0 and Q4_0.
constexpr int64_t kQuantBlock = 32;

/// Quants per block as the panels store them: 32 bytes for Q8_0, 16 for
/// Q4_0 (two nibbles a byte).
int64_t quantBytesPerBlock(ElementType format);

/// The 2-D f32 `matrix` quantized to `format` (Q8_0 or Q4_0), row by row,
/// as ggml's quantize_row_*_ref. Errors when a row is not whole blocks.
llvm::Expected<TensorView> quantizeRows(const TensorView &matrix,
                                        ElementType format);

/// The bytes of the `[panels, KB, Q, width]` quants (or, with `scales`, the
/// `[panels, KB, width]` f16 scales) of the 2-D block-quantized `blocks`.
/// With `bytesPerLane` > 1 (4 for tfm's q8_0x4 and q4_0x4), each lane
/// holds that many consecutive quant bytes of its row, the quants
/// `[panels, KB, Q / bytesPerLane, width, bytesPerLane]`. Errors when the
/// rows do not fit the panels or a block's bytes do not fill whole lanes.
llvm::Expected<std::string> packBlockPanels(const TensorView &blocks,
                                            int64_t panels, int64_t width,
                                            bool scales,
                                            int64_t bytesPerLane = 1);

} // namespace tfmc::weights

#endif // TFMC_COMPILER_WEIGHTS_BLOCKPANELS_H
