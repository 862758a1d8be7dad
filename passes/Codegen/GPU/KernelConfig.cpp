//===- KernelConfig.cpp - The tfm_gpu dialect and its kernel configs ------===//
//
// The dialect and #tfm_gpu.kernel; the block layout and tfm_gpu.dequantize
// are in BlockWeights.cpp.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/GPU/KernelConfig.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tfm;

#include "passes/Codegen/GPU/KernelConfigDialect.cpp.inc"
#include "passes/Codegen/GPU/KernelConfigEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "passes/Codegen/GPU/KernelConfigAttrs.cpp.inc"

void TfmGpuDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "passes/Codegen/GPU/TfmGpuOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "passes/Codegen/GPU/KernelConfigAttrs.cpp.inc"
      >();
}

/// `[a, b, c]`.
static void printSizes(AsmPrinter &printer, ArrayRef<int64_t> sizes) {
  printer << "[";
  llvm::interleaveComma(sizes, printer);
  printer << "]";
}

void GpuKernelConfigAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyGpuKernelKind(getKind()) << ", workgroup = ";
  printSizes(printer, getWorkgroup());
  if (!getSubgroup().empty()) {
    printer << ", subgroup = ";
    printSizes(printer, getSubgroup());
  }
  if (!getThread().empty()) {
    printer << ", thread = ";
    printSizes(printer, getThread());
  }
  printer << ", block = ";
  printSizes(printer, getBlock());
  if (getVectorWidth() != 1)
    printer << ", vector_width = " << getVectorWidth();
  if (getChunk() != 0)
    printer << ", chunk = " << getChunk();
  if (getSplits() != 1)
    printer << ", splits = " << getSplits();
  printer << ">";
}

Attribute GpuKernelConfigAttr::parse(AsmParser &parser, Type) {
  StringRef kindName;
  if (parser.parseLess() || parser.parseKeyword(&kindName))
    return {};
  std::optional<GpuKernelKind> kind = symbolizeGpuKernelKind(kindName);
  if (!kind) {
    parser.emitError(parser.getCurrentLocation(), "unknown kernel kind '")
        << kindName << "'";
    return {};
  }
  SmallVector<int64_t> workgroup, subgroup, thread, block;
  int64_t vectorWidth = 1, chunk = 0, splits = 1;
  bool sawWorkgroup = false, sawBlock = false;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc where = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    auto sizes = [&](SmallVector<int64_t> &into) {
      return parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square,
          [&]() { return parser.parseInteger(into.emplace_back()); });
    };
    ParseResult result = failure();
    if (key == "workgroup") {
      sawWorkgroup = true;
      result = sizes(workgroup);
    } else if (key == "subgroup") {
      result = sizes(subgroup);
    } else if (key == "thread") {
      result = sizes(thread);
    } else if (key == "block") {
      sawBlock = true;
      result = sizes(block);
    } else if (key == "vector_width") {
      result = parser.parseInteger(vectorWidth);
    } else if (key == "chunk") {
      result = parser.parseInteger(chunk);
    } else if (key == "splits") {
      result = parser.parseInteger(splits);
    } else {
      parser.emitError(where, "unknown kernel config key '") << key << "'";
      return {};
    }
    if (failed(result))
      return {};
  }
  if (parser.parseGreater())
    return {};
  if (!sawWorkgroup || !sawBlock) {
    parser.emitError(parser.getCurrentLocation(),
                     "a kernel config needs `workgroup` and `block`");
    return {};
  }
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), *kind, workgroup, subgroup, thread,
                    block, vectorWidth, chunk, splits);
}

int64_t GpuKernelConfigAttr::getNumThreads() const {
  int64_t threads = 1;
  for (int64_t size : getBlock())
    threads *= size;
  return threads;
}

/// Whether `kind` distributes its work over warps (its block is whole warps).
static bool isWarpKind(GpuKernelKind kind) {
  switch (kind) {
  case GpuKernelKind::warp_reduction:
  case GpuKernelKind::gemm_mma:
  case GpuKernelKind::attention_decode:
  case GpuKernelKind::attention_prefill:
    return true;
  default:
    return false;
  }
}

LogicalResult GpuKernelConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, GpuKernelKind kind,
    ArrayRef<int64_t> workgroup, ArrayRef<int64_t> subgroup,
    ArrayRef<int64_t> thread, ArrayRef<int64_t> block, int64_t vectorWidth,
    int64_t chunk, int64_t splits) {
  auto negative = [](int64_t size) { return size < 0; };
  if (llvm::any_of(workgroup, negative) || llvm::any_of(subgroup, negative) ||
      llvm::any_of(thread, negative))
    return emitError() << "tile sizes must not be negative";
  if (block.size() != 3 || llvm::any_of(block, [](int64_t s) { return s < 1; }))
    return emitError() << "block must be three positive thread counts";
  int64_t threads = block[0] * block[1] * block[2];
  if (threads > 1024)
    return emitError() << "block has " << threads
                       << " threads; a CUDA block has at most 1024";
  if (isWarpKind(kind) && (threads % kWarpSize != 0))
    return emitError() << "a " << stringifyGpuKernelKind(kind)
                       << " block must be whole warps, not " << threads
                       << " threads";
  if (isWarpKind(kind) && subgroup.empty() &&
      kind != GpuKernelKind::attention_decode &&
      kind != GpuKernelKind::attention_prefill)
    return emitError() << "a " << stringifyGpuKernelKind(kind)
                       << " needs a subgroup (warp) tile";
  if (!subgroup.empty() && subgroup.size() != workgroup.size())
    return emitError() << "subgroup tile has " << subgroup.size()
                       << " sizes for " << workgroup.size() << " loops";
  if (!thread.empty() && thread.size() != workgroup.size())
    return emitError() << "thread tile has " << thread.size() << " sizes for "
                       << workgroup.size() << " loops";
  if (vectorWidth < 1 || chunk < 0 || splits < 1)
    return emitError() << "vector_width and splits must be positive, chunk "
                          "not negative";
  return success();
}
