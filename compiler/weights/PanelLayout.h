//===- PanelLayout.h - The panel layouts of projection weights --*- C++ -*-===//
//
// A projection's `[rows, columns]` matrix laid out for its kernels is one
// declaration of column panels of W rows (value panels, `[P, columns, W]`)
// or, for block formats, two or three: the quants `[P, KB, Q, W]`, the
// per-block scales `[P, KB, W]` and, for the k-quants, the per-block
// minimums (see Panels.h, BlockPanels.h, KQuantPanels.h). A PanelLayout
// says which declaration a weight is and in which format; backends record
// it in their layout attribute (the CPU's `#tfm_cpu.panels<...>`), the
// package writer materialises it (SlotContents.h). The formats are listed
// once, in PanelLayout.td.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_WEIGHTS_PANELLAYOUT_H
#define TFMC_COMPILER_WEIGHTS_PANELLAYOUT_H

#include "compiler/weights/ElementType.h"

#include "llvm/ADT/ArrayRef.h"

/// `enum class PanelFormat` (f32, f16, bf16, q8_0, q4_0, q8_0x4, q4_0x4,
/// kquant, kquant4) and `enum class PanelPart` (quants, scales, mins), with
/// their names, generated from PanelLayout.td.
#include "compiler/weights/PanelLayout.h.inc"

namespace tfmc::weights {

/// Which of a projection's panel declarations a weight is, in which format.
struct PanelLayout {
  PanelFormat format = PanelFormat::f32;
  PanelPart part = PanelPart::quants;

  bool operator==(const PanelLayout &other) const {
    return format == other.format && part == other.part;
  }
};

/// Whether `format` holds blocks of values that share a scale (all but the
/// value panels f32, f16 and bf16).
bool isBlockFormat(PanelFormat format);

/// The value panels of element type `type` (f32, f16 or bf16), if any.
std::optional<PanelFormat> valuePanelFormat(ElementType type);

/// The element type of value panels (f32, f16, bf16), or the GGUF block type
/// whose bytes a block format holds (q8_0 and q8_0x4: Q8_0; q4_0 and
/// q4_0x4: Q4_0); none for the k-quant layouts, which hold values unpacked
/// from several types.
std::optional<ElementType> panelElementType(PanelFormat format);

/// Values of a row that one element of the quants of `format` holds: 1 for
/// q8_0 and kquant, 2 for q4_0 and kquant4 (nibbles), 4 for q8_0x4 (an i32
/// of four int8), 8 for q4_0x4 (an i32 of four Q4_0 bytes); 1 for value
/// panels.
int64_t valuesPerQuant(PanelFormat format);

/// The bit width of one element of the quants: 32 for q8_0x4 and q4_0x4
/// (four bytes a lane), 8 for the other block formats.
unsigned quantBits(PanelFormat format);

/// Whether `format` holds two values a byte (q4_0, kquant4).
bool holdsNibbles(PanelFormat format);

/// Whether `format`'s blocks have minimums and f32 scales: the k-quants'
/// kquant and kquant4 (GGUF's Q8_0 and Q4_0 have f16 scales and no
/// minimums).
bool hasMins(PanelFormat format);

/// Values per block of `format` for a matrix whose model tensors are stored
/// as `stored` (one type shared by all, or one per stacked tensor): 32 for
/// Q8_0, Q4_0 and kquant4 (Q4_K's sub-blocks); for kquant, 32 when every
/// tensor is Q5_K (sub-blocks of 32), else 16 (Q6_K's scales cover 16
/// values, and so must those of a stack that holds one). 1 for value
/// panels.
int64_t blockValues(PanelFormat format, llvm::ArrayRef<ElementType> stored);

/// Whether a `format` matrix stored as `stored` has no minimums: kquant of
/// Q6_K tensors only, whose minimums are all zero.
bool hasZeroMins(PanelFormat format, llvm::ArrayRef<ElementType> stored);

} // namespace tfmc::weights

#endif // TFMC_COMPILER_WEIGHTS_PANELLAYOUT_H
