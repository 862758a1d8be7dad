//===- KQuantPanels.h - k-quant weights as column panels --------*- C++ -*-===//
//
// The layout the generated kernels read GGUF's k-quants (Q4_K, Q5_K, Q6_K)
// in, `kquant` (see #tfm_cpu.panels): each super-block is
// unpacked to one int8 quant per value and one f32 scale and f32 minimum
// per sub-block of B values (B = 32 for tensors whose sub-blocks are 32
// values, Q4_K and Q5_K; 16 when a Q6_K tensor is among them: its scales
// cover 16), so that value `v = scale * q - min` is exactly the value ggml's
// dequantizer gives. A `[rows, columns]` matrix of `KB = columns / B`
// sub-blocks per row and panels of `W` rows becomes three arrays:
//   quants  [P, KB, B, W] i8   byte [p, b, i, j] is the quant of row
//                              p * W + j, column b * B + i;
//   scales  [P, KB, W] f32     the scale of row p * W + j, sub-block b;
//   mins    [P, KB, W] f32     its minimum.
// Rows past the matrix are zero. The quants take a byte each where Q4_K
// packs two: 1.5 bytes per weight with B = 16, 1.25 with B = 32, against
// 4 for f32. A matrix of Q4_K tensors only, `kquant4`, keeps them two a
// byte (0.75 bytes per weight): quants [P, KB, 16, W] for B = 32, in
// Q4_0's order (column b * 32 + i low, b * 32 + 16 + i high). For the
// kernels over int8 inputs the same bytes go four of a row in each i32 lane
// (kquantx4, kquant4x4: quants [P, KB, Q / 4, W] i32), kquantx4's quants
// biased by 32 to unsigned bytes (PanelLayout.h's quantBias), and the
// scales and minimums stay the integers GGUF stores, with the f16
// super-block scales they multiply widened to f32 once per super-block of
// 256 values (KS = columns / 256 per row):
//   scales  [P, KB, W] i8      sub-block scale (Q4_K, Q5_K: 0..63; Q6_K:
//                              -128..127) of row p * W + j, sub-block b;
//   mins    [P, KB, W] i8      its minimum (0..63);
//   factors [P, KS, F, W] f32  the row's d (f = 0) and, with minimums, dmin
//                              (f = 1) of super-block k: F = 2, or 1;
// so that `d * scale` and `dmin * min` are the f32 scale and minimum above,
// bit for bit, at 1 + 1 bytes a sub-block and 8 a super-block where f32
// scales and minimums take 8 a sub-block (kquant4x4: 0.59 bytes a weight
// instead of 0.75).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_WEIGHTS_KQUANTPANELS_H
#define TFMC_COMPILER_WEIGHTS_KQUANTPANELS_H

#include "compiler/weights/TensorView.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tfmc::weights {

/// The rows of one or more stacked k-quant matrices, unpacked.
struct KQuantRows {
  int64_t columns = 0;
  int64_t subBlock = 0; ///< values per scale: 16 or 32
  int64_t rows = 0;
  std::vector<int8_t> quants;      ///< [rows, columns]
  std::vector<float> scales, mins; ///< [rows, columns / subBlock]
  /// The integers `scales` and `mins` are made of, [rows, columns /
  /// subBlock], and the f32 factors they multiply, [rows, columns / 256, 2]
  /// (d, dmin): `scales` is `d * subScales`, `mins` is `dmin * subMins`.
  std::vector<int8_t> subScales, subMins;
  std::vector<float> factors;
};

/// Appends the rows of the 2-D Q4_K, Q5_K or Q6_K `matrix` to `out` (whose
/// `columns` and `subBlock` are set). Errors when the matrix is not a
/// k-quant, has other columns, or has coarser scales than `subBlock`.
llvm::Error appendKQuantRows(const TensorView &matrix, KQuantRows &out);

/// Quants a byte each (kquant), quants two a byte (kquant4: the low nibble
/// of byte [p, b, i, j] is column b * 32 + i, the high one column
/// b * 32 + 16 + i; blocks of 32 values of 0..15), f32 scales or minimums,
/// their integers (kquantx4, kquant4x4), or the super-block factors d
/// alone or d and dmin (`[P, KS, 1 or 2, W]` f32).
enum class KQuantPart {
  Quants,
  Nibbles,
  Scales,
  Mins,
  SubScales,
  SubMins,
  ScaleFactors,
  ScaleAndMinFactors
};

/// The bytes of one part of the `[panels, KB, ...]` panels of `rows`. With
/// `bytesPerLane` > 1 (4 for kquantx4 and kquant4x4) each lane holds that
/// many consecutive quant bytes of its row, the quants `[panels, KB,
/// Q / bytesPerLane, width, bytesPerLane]` (Q the bytes of a block: B
/// quants, or 16 nibble pairs); `bias` is added to each quant (not to
/// nibbles). Errors when the rows do not fit the panels, a block's bytes do
/// not fill whole lanes, or a biased quant is not a byte.
llvm::Expected<std::string>
packKQuantPanels(const KQuantRows &rows, int64_t panels, int64_t width,
                 KQuantPart part, int64_t bytesPerLane = 1, int64_t bias = 0);

} // namespace tfmc::weights

#endif // TFMC_COMPILER_WEIGHTS_KQUANTPANELS_H
