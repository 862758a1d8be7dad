//===- LLVMEmission.cpp - LLVM dialect -> LLVM IR -> CPU object -----------===//
#include "compiler/backends/llvm-cpu/LLVMEmission.h"

#include "dialect/TfmContracts.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/Transforms/Instrumentation/ThreadSanitizer.h"

using namespace tfmc;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Defines `const tfm_model_info tfm_model = {...}` in `module`.
static void defineModelInfo(llvm::Module &module, const tfm_model_info &info) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *i32 = llvm::Type::getInt32Ty(context);
  llvm::Type *i64 = llvm::Type::getInt64Ty(context);
  auto *type = llvm::StructType::create(
      context,
      {i32, i32, i32, i32, i64, i64, i64, i64, i64, i32, i32, i32, i32, i32},
      "tfm_model_info");
  llvm::Constant *value = llvm::ConstantStruct::get(
      type, {llvm::ConstantInt::get(i32, info.abi_version),
             llvm::ConstantInt::get(i32, info.vocab_size),
             llvm::ConstantInt::get(i32, info.context_length),
             llvm::ConstantInt::get(i32, info.prefill_chunk),
             llvm::ConstantInt::get(i64, info.weights_bytes),
             llvm::ConstantInt::get(i64, info.cache_bytes),
             llvm::ConstantInt::get(i64, info.weights_hash),
             llvm::ConstantInt::get(i64, info.scratch_bytes),
             llvm::ConstantInt::get(i64, info.scratch_alignment),
             llvm::ConstantInt::get(i32, info.kind),
             llvm::ConstantInt::get(i32, info.hidden_size),
             llvm::ConstantInt::get(i32, info.encode_logits),
             llvm::ConstantInt::get(i32, info.cache_element_bytes),
             llvm::ConstantInt::get(i32, info.decoder_start_token)});
  new llvm::GlobalVariable(module, type, /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, value,
                           "tfm_model");
}

/// The entry points' buffers (weights, tokens, cache, logits) never overlap
/// (runtime/ModelABI.h says so); telling LLVM lets it keep accumulators in
/// registers instead of re-loading them after every store.
static void markEntryArgumentsNoAlias(llvm::Function &entry) {
  for (llvm::Argument &argument : entry.args())
    if (argument.getType()->isPointerTy())
      argument.addAttr(llvm::Attribute::NoAlias);
}

/// Allows reassociation and contraction of floating-point arithmetic, which
/// is what lets LLVM vectorise the reductions of matmuls, norms and softmax
/// (partial sums per vector lane, fused multiply-adds). No other fast-math
/// assumption (NaN/Inf-free, reciprocal) is made.
static void allowReassociation(llvm::Module &module) {
  for (llvm::Function &function : module)
    for (llvm::Instruction &instruction : llvm::instructions(function))
      if (llvm::isa<llvm::FPMathOperator>(instruction)) {
        instruction.setHasAllowReassoc(true);
        instruction.setHasAllowContract(true);
      }
}

llvm::Expected<std::unique_ptr<llvm::Module>>
tfmc::translateToModelIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                         const tfm_model_info &info) {
  mlir::registerBuiltinDialectTranslation(*module.getContext());
  mlir::registerLLVMDialectTranslation(*module.getContext());
  mlir::registerOpenMPDialectTranslation(*module.getContext());
  mlir::tfm::EntriesAttr entries = mlir::tfm::getEntries(module);
  if (!entries)
    return makeError("the lowered module has no #tfm.entries");
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context, "tfm_model");
  if (!llvmModule)
    return makeError("failed to translate the LLVM dialect to LLVM IR");

  // An encoder-decoder's entries take the source length too: other names.
  bool seq2seq = entries.isEncoderDecoder();
  for (auto [symbol, abiName] :
       {std::pair{entries.getPrefill(),
                  seq2seq ? "tfm_seq2seq_prefill" : "tfm_prefill"},
        std::pair{entries.getDecode(),
                  seq2seq ? "tfm_seq2seq_decode" : "tfm_decode"},
        std::pair{entries.getEncode(),
                  seq2seq ? "tfm_seq2seq_encode" : "tfm_encode"}}) {
    if (!symbol)
      continue;
    llvm::Function *function = llvmModule->getFunction(symbol.getValue());
    if (!function)
      return makeError("the lowered module has no entry point '" +
                       symbol.getValue() + "'");
    function->setName(abiName);
    markEntryArgumentsNoAlias(*function);
  }
  for (llvm::Function &function : *llvmModule) {
    if (function.isDeclaration() || function.getName().starts_with("tfm_"))
      continue;
    function.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  allowReassociation(*llvmModule);
  defineModelInfo(*llvmModule, info);
  if (llvm::verifyModule(*llvmModule, &llvm::errs()))
    return makeError("the generated LLVM IR does not verify");
  return llvmModule;
}

static llvm::Expected<const llvm::Target *>
lookupTarget(const llvm::Triple &triple) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return makeError("no LLVM target for " + triple.str() + ": " + error);
  return target;
}

static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(llvm::StringRef tripleName, llvm::StringRef cpu,
                    llvm::StringRef features) {
  llvm::Triple triple(tripleName);
  auto target = lookupTarget(triple);
  if (!target)
    return target.takeError();
  llvm::TargetOptions options;
  // Every loop starts on a cache line. With the default 16-byte alignment a
  // micro-kernel's loop could straddle instruction-fetch windows or not
  // depending on unrelated code before it, and a model's decode speed moved
  // with changes elsewhere in the program (bench/README.md).
  options.LoopAlignment = 64;
  std::unique_ptr<llvm::TargetMachine> machine((*target)->createTargetMachine(
      triple, cpu, features, options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return makeError("cannot create a target machine for " + triple.str() +
                     " cpu " + cpu);
  return machine;
}

llvm::Expected<mlir::tfm::TargetAttr>
tfmc::describeCpuTarget(mlir::MLIRContext &context, const std::string &cpu) {
  std::string triple = llvm::sys::getProcessTriple();
  std::string name = cpu.empty() ? llvm::sys::getHostCPUName().str() : cpu;
  // Checked on a generic subtarget first: a target machine for an unknown
  // CPU prints LLVM's own warning and falls back to generic code.
  auto target = lookupTarget(llvm::Triple(triple));
  if (!target)
    return target.takeError();
  std::unique_ptr<llvm::MCSubtargetInfo> generic(
      (*target)->createMCSubtargetInfo(llvm::Triple(triple), "", ""));
  if (!generic || !generic->isCPUStringValid(name))
    return makeError("unknown --target-cpu '" + name + "' for " + triple);
  llvm::SubtargetFeatures features;
  if (cpu.empty())
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features.AddFeature(feature.first(), feature.second);
  std::string featureString = features.getString();
  auto machine = createTargetMachine(triple, name, featureString);
  if (!machine)
    return machine.takeError();
  const llvm::MCSubtargetInfo *subtarget = (*machine)->getMCSubtargetInfo();
  // A named CPU's features are implied by its name; spelled out, the passes
  // that read #tfm.target's features (AVX2's vpmaddubsw) see them as they
  // see this machine's.
  if (!cpu.empty()) {
    llvm::SubtargetFeatures implied;
    for (const llvm::SubtargetFeatureKV &feature :
         subtarget->getAllProcessorFeatures())
      if (subtarget->checkFeatures(std::string("+") + feature.Key))
        implied.AddFeature(feature.Key);
    featureString = implied.getString();
  }
  int64_t bits = 128, registers = 16;
  if (subtarget->checkFeatures("+avx512f"))
    bits = 512, registers = 32;
  else if (subtarget->checkFeatures("+avx"))
    bits = 256;
  return mlir::tfm::TargetAttr::get(&context, "cpu", triple, name,
                                    featureString, bits, registers);
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
                                  mlir::tfm::TargetAttr target,
                                  bool sanitizeThread) {
  auto machine = createTargetMachine(target.getTriple(), target.getCpu(),
                                     target.getFeatures());
  if (!machine)
    return machine.takeError();
  module.setDataLayout((*machine)->createDataLayout());
  module.setTargetTriple((*machine)->getTargetTriple());
  optimize(module, **machine, sanitizeThread);

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
  if ((*machine)->addPassesToEmitFile(codegen, out.os(), nullptr, fileType))
    return makeError("the target cannot emit this file type");
  codegen.run(module);
  out.keep();
  return llvm::Error::success();
}
