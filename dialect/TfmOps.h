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

// The element types and panel layouts of weights (#tfm.stored and
// WeightLayoutAttrInterface speak them).
#include "compiler/weights/ElementType.h"
#include "compiler/weights/PanelLayout.h"

#include "dialect/TfmDialect.h.inc"
#include "dialect/TfmEnums.h.inc"

#include "dialect/TfmAttrInterfaces.h.inc"
#include "dialect/TfmWeightAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/TfmAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialect/TfmOps.h.inc"

#endif // TFMC_DIALECT_TFMOPS_H
