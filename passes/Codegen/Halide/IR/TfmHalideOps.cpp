//===- TfmHalideOps.cpp - Halide kernels and their calls ------------------===//
#include "passes/Codegen/Halide/IR/TfmHalideOps.h"

#include "compiler/backends/halide/KernelDescription.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tfm::halide;

#include "passes/Codegen/Halide/IR/TfmHalideDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "passes/Codegen/Halide/IR/TfmHalideAttrs.cpp.inc"

void TfmHalideDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "passes/Codegen/Halide/IR/TfmHalideOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "passes/Codegen/Halide/IR/TfmHalideAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// #tfm_halide.block_rows
//===----------------------------------------------------------------------===//

LogicalResult
BlockRowsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      tfmc::weights::ElementType type) {
  using tfmc::weights::ElementType;
  if (type != ElementType::Q8_0 && type != ElementType::Q4_0 &&
      type != ElementType::Q4_K && type != ElementType::Q5_K &&
      type != ElementType::Q6_K)
    return emitError() << "block rows are of a GGUF block type (q8_0, q4_0, "
                          "q4_k, q5_k, q6_k), not "
                       << tfmc::weights::elementTypeName(type);
  return success();
}

std::optional<tfmc::weights::ElementType> BlockRowsAttr::getBlockRows() const {
  return getType();
}

LogicalResult BlockRowsAttr::verifyDeclaredType(
    RankedTensorType type, function_ref<InFlightDiagnostic()> emitError) const {
  if (type.getRank() != 2 || !type.getElementType().isInteger(8))
    return emitError() << "block rows are [rows, row bytes] i8 tensors, got "
                       << type;
  return success();
}

#define GET_OP_CLASSES
#include "passes/Codegen/Halide/IR/TfmHalideOps.cpp.inc"

//===----------------------------------------------------------------------===//
// tfm_halide.kernel
//===----------------------------------------------------------------------===//

LogicalResult KernelOp::verify() {
  std::vector<tfmc::halide::KernelDescription> kernels;
  std::string error;
  if (!tfmc::halide::parseKernelDescriptions(getDescription().str(), kernels,
                                             error))
    return emitOpError("has an invalid description: ") << error;
  if (kernels.size() != 1)
    return emitOpError("describes one kernel, got ") << kernels.size();
  if (kernels.front().name != getSymName())
    return emitOpError("describes kernel '")
           << kernels.front().name << "', not @" << getSymName();
  if (tfmc::halide::kernelKindName(kernels.front().kind()) != getKind())
    return emitOpError("is a '")
           << getKind() << "' kernel whose description is a '"
           << tfmc::halide::kernelKindName(kernels.front().kind()) << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// tfm_halide.call
//===----------------------------------------------------------------------===//

LogicalResult CallOp::verify() {
  for (Value input : getInputs())
    if (!isa<RankedTensorType, MemRefType, IndexType>(input.getType()))
      return emitOpError("inputs are ranked tensors, buffers or indices, got ")
             << input.getType();
  bool tensors = hasPureTensorSemantics();
  if (!tensors && !hasPureBufferSemantics())
    return emitOpError("takes tensors or buffers, not both");
  if (!tensors && !getResults().empty())
    return emitOpError("on buffers has no results");
  return success();
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (!symbolTable.lookupNearestSymbolFrom<KernelOp>(*this, getKernelAttr()))
    return emitOpError("calls '")
           << getKernel() << "', which is no tfm_halide.kernel";
  return success();
}

void CallOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &input : getInputsMutable())
    if (isa<MemRefType>(input.get().getType()))
      effects.emplace_back(MemoryEffects::Read::get(), &input,
                           SideEffects::DefaultResource::get());
  for (OpOperand &output : getOutputsMutable())
    if (isa<MemRefType>(output.get().getType()))
      effects.emplace_back(MemoryEffects::Write::get(), &output,
                           SideEffects::DefaultResource::get());
}

bool CallOp::bufferizesToMemoryRead(OpOperand &operand,
                                    const bufferization::AnalysisState &) {
  // The kernel writes its outputs whole: their old values are never read.
  return !isDpsInit(&operand);
}

bool CallOp::bufferizesToMemoryWrite(OpOperand &operand,
                                     const bufferization::AnalysisState &) {
  return isDpsInit(&operand);
}

bufferization::AliasingValueList
CallOp::getAliasingValues(OpOperand &operand,
                          const bufferization::AnalysisState &) {
  if (isDpsInit(&operand))
    return {
        {getTiedOpResult(&operand), bufferization::BufferRelation::Equivalent}};
  return {};
}

/// Whether `type` is laid out row-major without gaps, as a kernel's
/// buffers are (any offset: the adapter passes the element it starts at).
static bool isDenseRowMajor(MemRefType type) {
  if (type.getLayout().isIdentity())
    return true;
  auto [strides, offset] = type.getStridesAndOffset();
  int64_t expected = 1;
  for (int64_t dim = type.getRank() - 1; dim >= 0; --dim) {
    int64_t size = type.getDimSize(dim);
    if (ShapedType::isDynamic(size) || (size != 1 && strides[dim] != expected))
      return false;
    expected *= size;
  }
  return true;
}

/// A dense copy of `buffer` (copying its values when `copy`).
static FailureOr<Value>
denseCopy(RewriterBase &rewriter, Location loc, Value buffer, bool copy,
          const bufferization::BufferizationOptions &options) {
  auto type = cast<MemRefType>(buffer.getType());
  auto denseType = MemRefType::get(type.getShape(), type.getElementType());
  FailureOr<Value> dense = options.createAlloc(rewriter, loc, denseType, {});
  if (failed(dense))
    return failure();
  if (copy && failed(options.createMemCpy(rewriter, loc, buffer, *dense)))
    return failure();
  return dense;
}

LogicalResult
CallOp::bufferize(RewriterBase &rewriter,
                  const bufferization::BufferizationOptions &options,
                  bufferization::BufferizationState &state) {
  Location loc = getLoc();
  SmallVector<Value> inputs;
  for (Value input : getInputs()) {
    if (!isa<RankedTensorType>(input.getType())) {
      inputs.push_back(input);
      continue;
    }
    FailureOr<Value> buffer =
        bufferization::getBuffer(rewriter, input, options, state);
    if (failed(buffer))
      return failure();
    if (!isDenseRowMajor(cast<MemRefType>(buffer->getType()))) {
      buffer = denseCopy(rewriter, loc, *buffer, /*copy=*/true, options);
      if (failed(buffer))
        return failure();
    }
    inputs.push_back(*buffer);
  }
  SmallVector<Value> destinations, outputs;
  for (Value output : getOutputs()) {
    FailureOr<Value> buffer =
        bufferization::getBuffer(rewriter, output, options, state);
    if (failed(buffer))
      return failure();
    destinations.push_back(*buffer);
    if (!isDenseRowMajor(cast<MemRefType>(buffer->getType()))) {
      buffer = denseCopy(rewriter, loc, *buffer, /*copy=*/false, options);
      if (failed(buffer))
        return failure();
    }
    outputs.push_back(*buffer);
  }
  CallOp::create(rewriter, loc, TypeRange(), getKernelAttr(), inputs, outputs);
  // A strided destination receives the dense result after the call.
  for (auto [destination, output] : llvm::zip(destinations, outputs))
    if (destination != output &&
        failed(options.createMemCpy(rewriter, loc, output, destination)))
      return failure();
  bufferization::replaceOpWithBufferizedValues(rewriter, *this, destinations);
  return success();
}
