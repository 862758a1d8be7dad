//===- LowerCalls.cpp - Halide kernel calls through the runtime's adapter -===//
//
// A kernel's C ABI takes halide_buffer_t pointers; the host code has
// memref descriptors. Rather than building Halide's structs in generated
// code, each call fills a table of i64 words on the stack and calls
// tfmrt_halide_call (runtime/halide/HalideCalls.h), which builds the
// buffers, checks them against the kernel's metadata and calls NAME_argv.
// The table, in the kernel's argument order:
//   [argument count, then per argument:
//    0, value                                     an index (the kernel's
//                                                  int32_t `pos`)
//    1, address of the first element, element bytes, rank,
//       sizes[rank], strides[rank] (in elements)  a buffer]
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/Halide/Passes.h"

#include "mlir/IR/SymbolTable.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMHALIDELOWERCALLS
#include "passes/Codegen/Halide/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

constexpr llvm::StringLiteral kAdapterName = "tfmrt_halide_call";

/// Words the table takes for `value`.
int64_t tableWords(Value value) {
  if (auto type = dyn_cast<MemRefType>(value.getType()))
    return 4 + 2 * type.getRank();
  return 2;
}

class LowerCalls : public mlir::tfm::impl::TfmHalideLowerCallsBase<LowerCalls> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<halide::KernelOp> kernels(module.getOps<halide::KernelOp>());
    if (kernels.empty())
      return;
    MLIRContext *context = &getContext();
    auto pointer = LLVM::LLVMPointerType::get(context);
    auto i32 = IntegerType::get(context, 32);

    // The descriptions move to the module's dictionary; each kernel's
    // symbols are declared for the calls to take their addresses.
    NamedAttrList descriptions;
    if (auto existing = module->getAttrOfType<DictionaryAttr>(
            halide::TfmHalideDialect::kKernelsAttrName))
      descriptions.append(existing.getValue());
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    for (halide::KernelOp kernel : kernels) {
      descriptions.set(kernel.getSymName(), kernel.getDescriptionAttr());
      LLVM::LLVMFuncOp::create(b, kernel.getLoc(),
                               (kernel.getSymName() + "_argv").str(),
                               LLVM::LLVMFunctionType::get(i32, {pointer}));
      LLVM::LLVMFuncOp::create(b, kernel.getLoc(),
                               (kernel.getSymName() + "_metadata").str(),
                               LLVM::LLVMFunctionType::get(pointer, {}));
    }
    module->setAttr(halide::TfmHalideDialect::kKernelsAttrName,
                    descriptions.getDictionary(context));
    auto adapterType = b.getFunctionType({pointer, pointer, pointer}, {i32});
    auto adapter =
        func::FuncOp::create(b, module.getLoc(), kAdapterName, adapterType);
    adapter.setPrivate();

    WalkResult walked = module.walk([&](halide::CallOp call) {
      if (!call.hasPureBufferSemantics()) {
        call.emitOpError("must be bufferized before its call is lowered");
        return WalkResult::interrupt();
      }
      lower(call, adapter);
      return WalkResult::advance();
    });
    if (walked.wasInterrupted())
      return signalPassFailure();
    for (halide::KernelOp kernel : kernels)
      kernel.erase();
  }

private:
  void lower(halide::CallOp call, func::FuncOp adapter) {
    MLIRContext *context = &getContext();
    Location loc = call.getLoc();
    auto pointer = LLVM::LLVMPointerType::get(context);
    auto i64 = IntegerType::get(context, 64);
    SmallVector<Value> arguments(call.getInputs());
    arguments.append(call.getOutputs().begin(), call.getOutputs().end());
    int64_t words = 1;
    for (Value argument : arguments)
      words += tableWords(argument);

    // The table lives in the entry block's frame, not a dynamic alloca.
    auto function = call->getParentOfType<FunctionOpInterface>();
    OpBuilder entry(&function.getFunctionBody().front(),
                    function.getFunctionBody().front().begin());
    Value table =
        memref::AllocaOp::create(entry, loc, MemRefType::get({words}, i64));

    OpBuilder b(call);
    int64_t next = 0;
    auto store = [&](Value word) {
      if (word.getType().isIndex())
        word = arith::IndexCastOp::create(b, loc, i64, word);
      Value slot = arith::ConstantIndexOp::create(b, loc, next++);
      memref::StoreOp::create(b, loc, word, table, slot);
    };
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantIntOp::create(b, loc, i64, value);
    };
    store(constant(static_cast<int64_t>(arguments.size())));
    for (Value argument : arguments) {
      auto type = dyn_cast<MemRefType>(argument.getType());
      if (!type) {
        store(constant(0));
        store(argument);
        continue;
      }
      int64_t elementBytes = type.getElementTypeBitWidth() / 8;
      auto metadata =
          memref::ExtractStridedMetadataOp::create(b, loc, argument);
      Value aligned =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, argument);
      Value offsetBytes = arith::MulIOp::create(
          b, loc, metadata.getOffset(),
          arith::ConstantIndexOp::create(b, loc, elementBytes));
      store(constant(1));
      store(arith::AddIOp::create(b, loc, aligned, offsetBytes));
      store(constant(elementBytes));
      store(constant(type.getRank()));
      for (Value size : metadata.getSizes())
        store(size);
      for (Value stride : metadata.getStrides())
        store(stride);
    }

    Value tableAddress = arith::IndexCastOp::create(
        b, loc, i64,
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, table));
    Value tablePointer =
        LLVM::IntToPtrOp::create(b, loc, pointer, tableAddress);
    StringRef kernel = call.getKernel();
    Value argv =
        LLVM::AddressOfOp::create(b, loc, pointer, (kernel + "_argv").str());
    Value metadata = LLVM::AddressOfOp::create(b, loc, pointer,
                                               (kernel + "_metadata").str());
    func::CallOp::create(b, loc, adapter,
                         ValueRange{argv, metadata, tablePointer});
    call.erase();
  }
};

} // namespace
