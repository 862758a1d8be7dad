//===- TfmCpuDialect.cpp - The tfm_cpu dialect and its attributes ---------===//
#include "passes/Codegen/CPU/IR/TfmCpuOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tfm::cpu;
using tfmc::weights::PanelFormat;
using tfmc::weights::PanelPart;

#include "passes/Codegen/CPU/IR/TfmCpuDialect.cpp.inc"
#include "passes/Codegen/CPU/IR/TfmCpuEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "passes/Codegen/CPU/IR/TfmCpuAttrs.cpp.inc"

void TfmCpuDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "passes/Codegen/CPU/IR/TfmCpuOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "passes/Codegen/CPU/IR/TfmCpuAttrs.cpp.inc"
      >();
}

LogicalResult TfmCpuDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() == kKernelAttrName) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitError()
             << kKernelAttrName << " is a unit attribute of a function";
    return success();
  }
  if (attr.getName() != kConfigAttrName)
    return op->emitError() << "unknown tfm_cpu attribute '"
                           << attr.getName().getValue() << "'";
  if (!isa<ProjectionConfigAttr, AttentionConfigAttr>(attr.getValue()))
    return op->emitError() << kConfigAttrName
                           << " is a #tfm_cpu.projection or #tfm_cpu.attention "
                              "kernel configuration, got "
                           << attr.getValue();
  return success();
}

//===----------------------------------------------------------------------===//
// #tfm_cpu.panels
//===----------------------------------------------------------------------===//

LogicalResult PanelsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 PanelFormat format, PanelPart part) {
  if (!tfmc::weights::isBlockFormat(format) && part != PanelPart::quants)
    return emitError() << stringifyEnum(format) << " panels hold values: no "
                       << stringifyEnum(part);
  if (part == PanelPart::mins && !tfmc::weights::hasMins(format))
    return emitError() << "only the k-quant layouts have mins";
  if (part == PanelPart::factors &&
      !tfmc::weights::hasSuperBlockFactors(format))
    return emitError() << "only kquantx4 and kquant4x4 have super-block "
                          "factors, not "
                       << stringifyEnum(format);
  return success();
}

std::optional<tfmc::weights::PanelLayout> PanelsAttr::getPanelLayout() const {
  return tfmc::weights::PanelLayout{getFormat(), getPart()};
}

Type mlir::tfm::cpu::blockScaleType(MLIRContext *context, PanelFormat format) {
  if (tfmc::weights::hasSuperBlockFactors(format))
    return IntegerType::get(context, 8);
  if (tfmc::weights::hasMins(format))
    return Float32Type::get(context);
  return Float16Type::get(context);
}

/// The element type of value panels of `format`.
static Type valueType(MLIRContext *context, PanelFormat format) {
  switch (*tfmc::weights::panelElementType(format)) {
  case tfmc::weights::ElementType::F16:
    return Float16Type::get(context);
  case tfmc::weights::ElementType::BF16:
    return BFloat16Type::get(context);
  default:
    return Float32Type::get(context);
  }
}

LogicalResult PanelsAttr::verifyDeclaredType(
    RankedTensorType type, function_ref<InFlightDiagnostic()> emitError) const {
  MLIRContext *context = getContext();
  PanelFormat format = getFormat();
  if (!tfmc::weights::isBlockFormat(format)) {
    Type element = valueType(context, format);
    if (type.getRank() != 3 || type.getElementType() != element)
      return emitError() << stringifyEnum(format)
                         << " panels are [panels, columns, width] " << element
                         << " tensors, got " << type;
    return success();
  }
  if (getPart() == PanelPart::factors) {
    Type f32 = Float32Type::get(context);
    if (type.getRank() != 4 || type.getElementType() != f32 ||
        (type.getDimSize(2) != 1 && type.getDimSize(2) != 2))
      return emitError() << stringifyEnum(format)
                         << " factors are [panels, super-blocks, 1 or 2, "
                            "width] f32 tensors, got "
                         << type;
    return success();
  }
  if (getPart() != PanelPart::quants) {
    Type element = blockScaleType(context, format);
    if (type.getRank() != 3 || type.getElementType() != element)
      return emitError() << stringifyEnum(format) << " block "
                         << stringifyEnum(getPart())
                         << " are [panels, blocks, width] " << element
                         << " tensors, got " << type;
    return success();
  }
  if (tfmc::weights::holdsKQuantBytes(format)) {
    // Blocks of 16 or 32 values, one or four a quant.
    int64_t perQuant = tfmc::weights::valuesPerQuant(format);
    unsigned bits = tfmc::weights::quantBits(format);
    if (type.getRank() != 4 || !type.getElementType().isInteger(bits) ||
        (type.getDimSize(2) != 16 / perQuant &&
         type.getDimSize(2) != 32 / perQuant))
      return emitError() << stringifyEnum(format) << " quants are [panels, "
                         << "blocks, " << 16 / perQuant << " or "
                         << 32 / perQuant << ", width] i" << bits
                         << " tensors, got " << type;
    return success();
  }
  int64_t quants = 32 / tfmc::weights::valuesPerQuant(format);
  Type element = IntegerType::get(context, tfmc::weights::quantBits(format));
  if (type.getRank() != 4 || type.getElementType() != element ||
      type.getDimSize(2) != quants)
    return emitError() << stringifyEnum(format)
                       << " quants are [panels, blocks, " << quants
                       << ", width] " << element << " tensors, got " << type;
  return success();
}

//===----------------------------------------------------------------------===//
// Kernel configurations
//===----------------------------------------------------------------------===//

/// Whether the int8-input kernels read `format` (Q4_0's nibble pairs and
/// the byte quads).
static bool readsInt8Inputs(PanelFormat format) {
  return format == PanelFormat::q4_0 || tfmc::weights::holdsByteQuads(format);
}

LogicalResult
ProjectionConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                             PanelFormat panels, InputScheme inputs,
                             int64_t accumulators, DotInstruction dot,
                             int64_t streamDistance, bool nonTemporal) {
  if (accumulators < 1)
    return emitError() << "accumulators must be positive, got " << accumulators;
  if (streamDistance < 0)
    return emitError() << "stream_distance must not be negative, got "
                       << streamDistance;
  bool quads = tfmc::weights::holdsByteQuads(panels);
  if (quads && inputs != InputScheme::int8)
    return emitError() << stringifyEnum(panels)
                       << " panels are read with int8 inputs";
  if (inputs == InputScheme::int8 && !readsInt8Inputs(panels))
    return emitError() << "int8 inputs read q4_0 panels or byte quads "
                          "(q8_0x4, q4_0x4, kquantx4, kquant4x4), not "
                       << stringifyEnum(panels);
  if (inputs == InputScheme::bf16 && panels != PanelFormat::bf16)
    return emitError() << "bf16 inputs read bf16 panels, not "
                       << stringifyEnum(panels);
  switch (dot) {
  case DotInstruction::none:
    break;
  case DotInstruction::vpdpbusd16:
  case DotInstruction::vpdpbusd8:
    if (!quads)
      return emitError() << stringifyEnum(dot)
                         << " sums the byte quads of q8_0x4, q4_0x4, "
                         << "kquantx4 and kquant4x4 panels, not "
                         << stringifyEnum(panels);
    break;
  case DotInstruction::vpmaddubsw:
    // Its 16-bit sums of two products saturate for q8_0x4's bytes (up to
    // 255), not for nibbles or kquantx4's bytes (below 64).
    if (inputs != InputScheme::int8 ||
        (panels != PanelFormat::q4_0 &&
         (!quads || panels == PanelFormat::q8_0x4)))
      return emitError() << "vpmaddubsw sums the nibble pairs of q4_0 panels "
                            "or the byte quads of q4_0x4, kquantx4 and "
                            "kquant4x4 panels over int8 inputs";
    break;
  case DotInstruction::vdpbf16ps:
    if (inputs != InputScheme::bf16)
      return emitError() << "vdpbf16ps sums the pairs of bf16 inputs";
    break;
  }
  return success();
}

LogicalResult
AttentionConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            int64_t blockKeys, int64_t cachePrefetch) {
  if (blockKeys < 1)
    return emitError() << "block_keys must be positive, got " << blockKeys;
  if (cachePrefetch < 0)
    return emitError() << "cache_prefetch must not be negative, got "
                       << cachePrefetch;
  return success();
}
