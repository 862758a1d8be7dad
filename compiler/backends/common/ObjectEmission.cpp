//===- ObjectEmission.cpp - LLVM IR -> optimised object or assembly -------===//
#include "compiler/backends/common/ObjectEmission.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/Instrumentation/ThreadSanitizer.h"

using namespace tfmc;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<const llvm::Target *>
tfmc::lookupTarget(const llvm::Triple &triple) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return makeError("no LLVM target for " + triple.str() + ": " + error);
  return target;
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
tfmc::createTargetMachine(const MachineDescription &machine) {
  llvm::Triple triple(machine.triple);
  auto target = lookupTarget(triple);
  if (!target)
    return target.takeError();
  llvm::TargetOptions options;
  // Every loop starts on a cache line. With the default 16-byte alignment a
  // micro-kernel's loop could straddle instruction-fetch windows or not
  // depending on unrelated code before it, and a model's decode speed moved
  // with changes elsewhere in the program (bench/README.md).
  options.LoopAlignment = 64;
  std::unique_ptr<llvm::TargetMachine> targetMachine(
      (*target)->createTargetMachine(triple, machine.cpu, machine.features,
                                     options, llvm::Reloc::PIC_, std::nullopt,
                                     llvm::CodeGenOptLevel::Aggressive));
  if (!targetMachine)
    return makeError("cannot create a target machine for " + triple.str() +
                     " cpu " + machine.cpu);
  return targetMachine;
}

/// The standard -O3 module pipeline, tuned for `machine`; with
/// `sanitizeThread`, ThreadSanitizer's instrumentation last, as clang's
/// -fsanitize=thread places it.
static void optimize(llvm::Module &module, llvm::TargetMachine &machine,
                     bool sanitizeThread) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  if (sanitizeThread) {
    for (llvm::Function &function : module)
      if (!function.isDeclaration())
        function.addFnAttr(llvm::Attribute::SanitizeThread);
    builder.registerOptimizerLastEPCallback([](llvm::ModulePassManager &passes,
                                               llvm::OptimizationLevel,
                                               llvm::ThinOrFullLTOPhase) {
      passes.addPass(llvm::ModuleThreadSanitizerPass());
      passes.addPass(
          llvm::createModuleToFunctionPassAdaptor(llvm::ThreadSanitizerPass()));
    });
  }
  llvm::ModulePassManager passes =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  passes.run(module, modules);
}

llvm::Error tfmc::emitMachineCode(llvm::Module &module, ObjectKind kind,
                                  const std::string &path,
                                  const MachineDescription &machine,
                                  bool sanitizeThread) {
  auto targetMachine = createTargetMachine(machine);
  if (!targetMachine)
    return targetMachine.takeError();
  module.setDataLayout((*targetMachine)->createDataLayout());
  module.setTargetTriple((*targetMachine)->getTargetTriple());
  optimize(module, **targetMachine, sanitizeThread);

  std::error_code ec;
  llvm::ToolOutputFile out(path, ec,
                           kind == ObjectKind::Object ? llvm::sys::fs::OF_None
                                                      : llvm::sys::fs::OF_Text);
  if (ec)
    return makeError("cannot open '" + path + "': " + ec.message());
  llvm::legacy::PassManager codegen;
  auto fileType = kind == ObjectKind::Object
                      ? llvm::CodeGenFileType::ObjectFile
                      : llvm::CodeGenFileType::AssemblyFile;
  if ((*targetMachine)
          ->addPassesToEmitFile(codegen, out.os(), nullptr, fileType))
    return makeError("the target cannot emit this file type");
  codegen.run(module);
  out.keep();
  return llvm::Error::success();
}

llvm::Error tfmc::writeHostArtifact(llvm::Module &module, llvm::StringRef stage,
                                    const std::string &path,
                                    const MachineDescription &machine,
                                    llvm::StringRef backend,
                                    bool sanitizeThread) {
  if (stage == "llvm-ir") {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return makeError("cannot open '" + path + "': " + ec.message());
    module.print(os, nullptr);
    return llvm::Error::success();
  }
  if (stage == "asm" || stage == "obj")
    return emitMachineCode(
        module, stage == "asm" ? ObjectKind::Assembly : ObjectKind::Object,
        path, machine, sanitizeThread);
  return makeError("the " + backend + " backend has no artifact '" + stage +
                   "'");
}
