//===- UseEntryStream.cpp - An entry's device work on the caller's stream -===//
//
// Upstream's host code gives every function that launches kernels a stream
// it creates and destroys itself. A model's entries run on the stream the
// runtime owns (one per context, ABI 8's trailing `stream`), so that calls
// on one context are ordered and different contexts run side by side.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/GPU/Passes.h"

#include "dialect/TfmContracts.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMGPUUSEENTRYSTREAM
#include "passes/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

constexpr StringLiteral kStreamCreate = "mgpuStreamCreate";
constexpr StringLiteral kStreamDestroy = "mgpuStreamDestroy";

bool calls(LLVM::CallOp call, StringRef callee) {
  std::optional<StringRef> name = call.getCallee();
  return name && *name == callee;
}

struct TfmGpuUseEntryStream
    : mlir::tfm::impl::TfmGpuUseEntryStreamBase<TfmGpuUseEntryStream> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      if (func.isExternal() || !hasEntryArgs(func))
        continue;
      if (findEntryArg(func, EntryArg::stream)) {
        func.emitOpError("already takes a stream");
        return signalPassFailure();
      }
      SmallVector<LLVM::CallOp> creations, destructions;
      func.walk([&](LLVM::CallOp call) {
        if (calls(call, kStreamCreate))
          creations.push_back(call);
        else if (calls(call, kStreamDestroy))
          destructions.push_back(call);
      });

      // Every entry takes the stream, also one that launches nothing.
      // (FunctionOpInterface's insertArgument rebuilds the type without
      // its void result, which LLVM function types need.)
      auto pointer = LLVM::LLVMPointerType::get(&getContext());
      LLVM::LLVMFunctionType type = func.getFunctionType();
      SmallVector<Type> params(type.getParams());
      params.push_back(pointer);
      SmallVector<DictionaryAttr> argAttrs;
      func.getAllArgAttrs(argAttrs);
      argAttrs.push_back(DictionaryAttr::get(&getContext()));
      func.setFunctionType(LLVM::LLVMFunctionType::get(
          type.getReturnType(), params, type.isVarArg()));
      func.getBody().addArgument(pointer, func.getLoc());
      func.setAllArgAttrs(argAttrs);
      unsigned index = func.getNumArguments() - 1;
      setEntryArg(func, index, EntryArg::stream);
      // Work queued in program order on one in-order stream keeps every
      // order that events between several streams kept.
      Value stream = func.getArgument(index);
      for (LLVM::CallOp destruction : destructions)
        destruction.erase();
      for (LLVM::CallOp creation : creations) {
        creation.getResult().replaceAllUsesWith(stream);
        creation.erase();
      }
    }
    // The declarations no entry calls any more.
    for (StringRef name : {kStreamCreate, kStreamDestroy}) {
      auto declaration = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
      if (declaration && declaration.isExternal() &&
          SymbolTable::symbolKnownUseEmpty(declaration, module))
        declaration.erase();
    }
  }
};

} // namespace
