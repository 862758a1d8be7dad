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
/// kquant, kquant4, kquantx4, kquant4x4) and `enum class PanelPart` (quants,
/// scales, mins, factors), with their names, generated from PanelLayout.td.
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
/// q8_0 and kquant, 2 for q4_0 and kquant4 (nibbles), 4 for q8_0x4 and
/// kquantx4 (an i32 of four bytes of one value each), 8 for q4_0x4 and
/// kquant4x4 (an i32 of four bytes of two nibbles); 1 for value panels.
int64_t valuesPerQuant(PanelFormat format);

/// Whether `format`'s quants hold four bytes of a row in each i32 lane (the
/// byte quads the kernels over int8 inputs read): q8_0x4, q4_0x4, kquantx4,
/// kquant4x4.
bool holdsByteQuads(PanelFormat format);

/// The byte-quad form of the block format `format` (q8_0x4 for q8_0,
/// q4_0x4 for q4_0, kquantx4 for kquant, kquant4x4 for kquant4): the same
/// values, reordered (and, for kquantx4, biased; quantBias).
std::optional<PanelFormat> byteQuadFormat(PanelFormat format);

/// The bit width of one element of the quants: 32 for the byte quads, 8 for
/// the other block formats.
unsigned quantBits(PanelFormat format);

/// What `format` adds to each quant it stores: kquantx4 stores kquant's
/// int8 quants (-32..31: Q6_K's q - 32, Q5_K's 0..31, Q4_K's 0..15) plus
/// kKQuantx4Bias, as unsigned bytes 0..63 that VNNI's `vpdpbusd` (and
/// AVX2's `vpmaddubsw`, without saturating) multiply as they are; 0 for the
/// other formats.
constexpr int64_t kKQuantx4Bias = 32;
int64_t quantBias(PanelFormat format);

/// Whether `format` holds two values a byte (q4_0, kquant4).
bool holdsNibbles(PanelFormat format);

/// Whether `format`'s blocks have minimums and f32 scales: the k-quant
/// layouts (GGUF's Q8_0 and Q4_0 have f16 scales and no minimums).
bool hasMins(PanelFormat format);

/// Whether `format` is a k-quant layout: kquant, kquant4, kquantx4,
/// kquant4x4.
bool isKQuantFormat(PanelFormat format);

/// Whether `format`'s scales and minimums are GGUF's integers, i8 per
/// sub-block, with per-super-block f32 factors (the `factors` part):
/// kquantx4, kquant4x4 (KQuantPanels.h).
bool hasSuperBlockFactors(PanelFormat format);

/// Whether `format` holds k-quants a byte a value (kquant, kquantx4), in
/// blocks of 16 or 32 (blockValues), where kquant4 and kquant4x4 hold
/// Q4_K's nibbles in blocks of 32.
bool holdsKQuantBytes(PanelFormat format);

/// Values per block of `format` for a matrix whose model tensors are stored
/// as `stored` (one type shared by all, or one per stacked tensor): 32 for
/// Q8_0, Q4_0 and kquant4 (Q4_K's sub-blocks); for kquant (and kquantx4),
/// 32 when every
/// tensor is Q5_K (sub-blocks of 32), else 16 (Q6_K's scales cover 16
/// values, and so must those of a stack that holds one). 1 for value
/// panels.
int64_t blockValues(PanelFormat format, llvm::ArrayRef<ElementType> stored);

/// The block panels that hold a matrix stored as `stored` (one type shared
/// by all its tensors, or one per stacked tensor) as the file holds it:
/// q8_0 and q4_0 for Q8_0 and Q4_0, kquant4 for Q4_K, kquant for Q5_K,
/// Q6_K and any mix of k-quants (unpacked exactly); none for other types
/// and other mixes. The backends' layouts of stored blocks (the CPU's
/// panels, the GPU's rows of blocks) take it.
std::optional<PanelFormat>
storedBlockFormat(llvm::ArrayRef<ElementType> stored);

/// Whether a `format` matrix stored as `stored` has no minimums: kquant (or
/// kquantx4) of Q6_K tensors only, whose minimums are all zero.
bool hasZeroMins(PanelFormat format, llvm::ArrayRef<ElementType> stored);

} // namespace tfmc::weights

#endif // TFMC_COMPILER_WEIGHTS_PANELLAYOUT_H
