//===- ElementType.td - The element types of weights -------*- tablegen -*-===//
//
// The one list of the element types a weight can be stored in. It generates
// the C++ enum `tfmc::weights::ElementType` (ElementType.h.inc, needing only
// LLVM Support and header-only MLIR support types) with its names, which the
// tfm dialect's `#tfm.stored<...>`, the passes' weight-type options and the
// package writer all use: adding an element type starts here.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_WEIGHTS_ELEMENTTYPE_TD
#define TFMC_COMPILER_WEIGHTS_ELEMENTTYPE_TD

include "mlir/IR/EnumAttr.td"

class Weights_ElementTypeCase<string sym, int value, string name>
    : EnumCase<sym, value, name, 8>;

// The values are part of the weights layout hash (WeightLayout.cpp): keep
// them.
def Weights_ElementType : IntEnum<"ElementType",
    "the element type a weight is stored in", [
  // IEEE binary32, binary16, and bfloat16 (the top half of a binary32).
  Weights_ElementTypeCase<"F32", 0, "f32">,
  Weights_ElementTypeCase<"F16", 1, "f16">,
  Weights_ElementTypeCase<"BF16", 2, "bf16">,
  // GGUF Q8_0: blocks of 32 values, an f16 scale d then 32 int8 q; the
  // value is q * d (34 bytes per block).
  Weights_ElementTypeCase<"Q8_0", 3, "q8_0">,
  // GGUF Q4_0: blocks of 32 values, an f16 scale d then 16 bytes whose low
  // nibbles are values 0..15 and high nibbles values 16..31; the value is
  // (nibble - 8) * d (18 bytes per block).
  Weights_ElementTypeCase<"Q4_0", 4, "q4_0">,
  // GGUF's k-quants: super-blocks of 256 values with quantized sub-block
  // scales (see KQuants.h). Read and dequantized exactly; never a
  // conversion target.
  Weights_ElementTypeCase<"Q4_K", 5, "q4_k">,
  Weights_ElementTypeCase<"Q5_K", 6, "q5_k">,
  Weights_ElementTypeCase<"Q6_K", 7, "q6_k">,
  ], 8> {
  let cppNamespace = "::tfmc::weights";
}

#endif // TFMC_COMPILER_WEIGHTS_ELEMENTTYPE_TD
