//===- TfmDialect.cpp - tfm dialect registration --------------------------===//
#include "dialect/TfmOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tfm;

#include "dialect/TfmDialect.cpp.inc"
#include "dialect/TfmEnums.cpp.inc"

#include "dialect/TfmAttrInterfaces.cpp.inc"
#include "dialect/TfmWeightAttrInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/TfmAttrs.cpp.inc"

void TfmDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/TfmOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/TfmAttrs.cpp.inc"
      >();
}
