//===- TfmOps.h - The tfm dialect and its operations ------------*- C++ -*-===//
#ifndef TFMC_DIALECT_TFMOPS_H
#define TFMC_DIALECT_TFMOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"

#include <cmath>

#include "dialect/TfmDialect.h.inc"
#include "dialect/TfmEnums.h.inc"

#include "dialect/TfmAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/TfmAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialect/TfmOps.h.inc"

namespace mlir::tfm {

/// Whether the block format `format` (tfm.global_weight's `block_quant`)
/// holds two values a byte: q4_0 and kquant4.
bool blockFormatHoldsNibbles(StringRef format);

/// Whether the blocks of `format` may have minimums: the k-quants' kquant
/// and kquant4.
bool blockFormatHasMins(StringRef format);

/// Values of a row that one element of `format`'s quants holds: 1 for
/// q8_0 and kquant, 2 for q4_0 and kquant4 (nibbles), 4 for q8_0x4 (an
/// i32 of four int8), 8 for q4_0x4 (an i32 of four Q4_0 bytes); 0 for a
/// name that is no block format.
int64_t blockFormatValuesPerQuant(StringRef format);

/// The element type of `format`'s quants: i32 for q8_0x4 and q4_0x4, else
/// i8.
Type blockFormatQuantType(MLIRContext *context, StringRef format);

} // namespace mlir::tfm

#endif // TFMC_DIALECT_TFMOPS_H
