//===- PanelLayout.td - Panel layouts of weights -----------*- tablegen -*-===//
//
// The layouts the package writer can lay a projection's matrix out in
// (PanelLayout.h): which values one declaration of the matrix's panels
// holds. A backend chooses one per weight and records it in its layout
// attribute (the CPU's `#tfm_cpu.panels<...>`); the package writer
// materialises it (SlotContents.cpp). A new block format adds a case here,
// its packing in compiler/weights, and the kernels of the backends that
// read it.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_WEIGHTS_PANELLAYOUT_TD
#define TFMC_COMPILER_WEIGHTS_PANELLAYOUT_TD

include "mlir/IR/EnumAttr.td"

class Weights_PanelCase<string name, int value> : EnumCase<name, value, name, 8>;

// The names are part of the weights layout hash (WeightLayout.cpp): keep
// them.
def Weights_PanelFormat : IntEnum<"PanelFormat",
    "what the panels of a projection's matrix hold", [
  // The matrix's values in the panels' element type, `[P, columns, W]`.
  Weights_PanelCase<"f32", 0>,
  Weights_PanelCase<"f16", 1>,
  Weights_PanelCase<"bf16", 2>,
  // GGUF's Q8_0 and Q4_0 blocks of 32 values, `[P, KB, Q, W]` i8 quants and
  // `[P, KB, W]` f16 scales (BlockPanels.h).
  Weights_PanelCase<"q8_0", 3>,
  Weights_PanelCase<"q4_0", 4>,
  // The same bytes, four of a row in each i32 lane (the kernels over int8
  // inputs that sum byte quads).
  Weights_PanelCase<"q8_0x4", 5>,
  Weights_PanelCase<"q4_0x4", 6>,
  // GGUF's k-quants unpacked: i8 quants (kquant) or Q4_K's nibbles two a
  // byte (kquant4), f32 scales and minimums (KQuantPanels.h).
  Weights_PanelCase<"kquant", 7>,
  Weights_PanelCase<"kquant4", 8>,
  // Their quants four of a row in each i32 lane (the kernels over int8
  // inputs): kquant's bytes biased by 32 to unsigned 0..63 (kquantx4), or
  // kquant4's bytes of two nibbles (kquant4x4), with the scales and
  // minimums as GGUF stores them: i8 per sub-block, and the f32 factors
  // they multiply per super-block (KQuantPanels.h).
  Weights_PanelCase<"kquantx4", 9>,
  Weights_PanelCase<"kquant4x4", 10>,
  ], 8> {
  let cppNamespace = "::tfmc::weights";
}

def Weights_PanelPart : IntEnum<"PanelPart",
    "which of a projection's panel declarations a weight is", [
  // The values of value panels, or the quants of block panels.
  Weights_PanelCase<"quants", 0>,
  // The per-block scales and the per-block minimums of block panels.
  Weights_PanelCase<"scales", 1>,
  Weights_PanelCase<"mins", 2>,
  // The per-super-block f32 factors of kquantx4's and kquant4x4's integer
  // scales and minimums.
  Weights_PanelCase<"factors", 3>,
  ], 8> {
  let cppNamespace = "::tfmc::weights";
}

#endif // TFMC_COMPILER_WEIGHTS_PANELLAYOUT_TD
