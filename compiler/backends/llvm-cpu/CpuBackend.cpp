//===- CpuBackend.cpp - tfmc --target=cpu ---------------------------------===//
//
// fused tfm -> (configuration: tfm-cpu-select-kernel-config,
// tfm-cpu-pack-weights) laid-out weights ->
// linalg -> LLVM dialect -> LLVM IR -> object. The driver takes the blob
// layout once the weights are laid out, before tfm-cpu-bind-weights binds
// the code to it, so the package writer and the code read the same one.
//
//===----------------------------------------------------------------------===//
#include "compiler/backends/llvm-cpu/CpuBackend.h"

#include "compiler/backends/common/HostObject.h"
#include "compiler/backends/halide/HalideKernels.h"
#include "compiler/backends/llvm-cpu/CpuTarget.h"
#include "dialect/TfmContracts.h"
#include "passes/Codegen/CPU/Passes.h"
#include "runtime/PackageKeys.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace tfmc;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

using Kind = BackendStage::Kind;
constexpr BackendStage kStages[] = {
    {"linalg", "linalg and vector ops on tensors (weights laid out and bound)",
     Kind::Module},
    {"llvm", "the LLVM dialect", Kind::Module},
    {"llvm-ir", "LLVM IR", Kind::Artifact},
    {"asm", "assembly", Kind::Artifact},
    {"obj", "an object file", Kind::Artifact},
    {"halide", "each Halide kernel's lowered statements", Kind::Artifact},
};

/// Allows reassociation and contraction of floating-point arithmetic, which
/// is what lets LLVM vectorise the reductions of matmuls, norms and softmax
/// (partial sums per vector lane, fused multiply-adds). No other fast-math
/// assumption (NaN/Inf-free, reciprocal) is made.
void allowReassociation(llvm::Module &module) {
  for (llvm::Function &function : module)
    for (llvm::Instruction &instruction : llvm::instructions(function))
      if (llvm::isa<llvm::FPMathOperator>(instruction)) {
        instruction.setHasAllowReassoc(true);
        instruction.setHasAllowContract(true);
      }
}

/// tfm_set_num_threads: parallel code (--parallel, the default) forks
/// OpenMP teams, whose size the OpenMP runtime holds; serial code forks
/// nothing and refers to no OpenMP symbol.
void setOpenMPThreads(llvm::IRBuilderBase &builder, llvm::Value *threads) {
  llvm::Module &module = *builder.GetInsertBlock()->getModule();
  if (!module.getFunction("__kmpc_fork_call"))
    return;
  llvm::FunctionCallee setter = module.getOrInsertFunction(
      "omp_set_num_threads", builder.getVoidTy(), builder.getInt32Ty());
  builder.CreateCall(setter, {threads});
}

} // namespace

CpuBackend::CpuBackend()
    : codegenGroup("CPU code generation (--target=cpu)", codegen),
      targetGroup("CPU target (--target=cpu)", target),
      generatorGroup("Code generators (--target=cpu)", generators) {}

std::vector<mlir::tfm::OptionGroup *> CpuBackend::optionGroups() {
  return {&targetGroup, &generatorGroup, &codegenGroup};
}

llvm::ArrayRef<BackendStage> CpuBackend::stages() const { return kStages; }

llvm::Expected<mlir::tfm::TargetAttr>
CpuBackend::describeTarget(mlir::MLIRContext &context) {
  auto kinds = halideKernelKinds(generators);
  if (!kinds)
    return kinds.takeError();
  halideKinds = *kinds;
  return describeCpuTarget(context, target.targetCpu);
}

LinkInputs CpuBackend::linkInputs() const {
  // Kernels work-share loops through the LLVM OpenMP runtime.
  LinkInputs inputs{
      {"-L" TFMC_OPENMP_LIB_DIR, "-lomp", "-Wl,-rpath," TFMC_OPENMP_LIB_DIR}};
  // Instrumented code calls the ThreadSanitizer runtime.
  if (target.sanitizeThread)
    inputs.arguments.push_back("-fsanitize=thread");
  return inputs;
}

std::map<std::string, std::string>
CpuBackend::targetMetadata(mlir::tfm::TargetAttr target) const {
  mlir::tfm::CpuTargetAttr cpu = mlir::tfm::getCpuTarget(target);
  if (!cpu)
    return {};
  // The features the code may use: the runtime checks them on the machine
  // it runs on (runtime/CpuFeatures.h).
  std::string enabled;
  llvm::SmallVector<llvm::StringRef> features;
  cpu.getFeatures().split(features, ',', -1, false);
  for (llvm::StringRef feature : features)
    if (feature.consume_front("+"))
      enabled += (enabled.empty() ? "" : ",") + feature.str();
  return {{tfm::rt::keys::kTargetCpu, cpu.getCpu().str()},
          {tfm::rt::keys::kTargetFeatures, enabled}};
}

llvm::Error CpuBackend::buildConfigurationPipeline(mlir::OpPassManager &pm,
                                                   mlir::tfm::TargetAttr) {
  // Without --weights, each projection keeps the type the file stores its
  // matrix in (tfm.global_weight's `stored`); without --int8-inputs, Q8_0,
  // Q4_0 and the k-quants take the target's default.
  // tfm-cpu-select-kernel-config decides both (docs/weight-types.md), once, for
  // every pass after it.
  codegenOptions.copyOptionValuesFrom(codegen);
  if (!codegenOptions.packWeights && codegenOptions.weights.type &&
      *codegenOptions.weights.type != tfmc::weights::ElementType::F32)
    return makeError(
        "--weights=" +
        tfmc::weights::elementTypeName(*codegenOptions.weights.type) +
        " stores the projection panels in that type and needs "
        "--pack-weights");
  // --weights chooses LLVM's panels; Halide's projections read the matrices
  // as the model file stores them.
  if (codegenOptions.weights.type &&
      llvm::any_of(halideKinds, [](const std::string &kind) {
        return kind == "projection" || kind == "lm-head";
      }))
    return makeError("--weights sets the element type of LLVM's projection "
                     "panels; Halide's projections and LM heads read the "
                     "weights as the model file stores them (drop --weights, "
                     "or give those kinds to LLVM with --kernel-backend)");
  // Halide's kernels first: the CPU's choices are for the kernels left.
  addHalideOutlining(pm, halideKinds, generators);
  mlir::tfm::buildCpuWeightLayoutPipeline(pm, codegenOptions);
  return llvm::Error::success();
}

llvm::Error CpuBackend::buildStagePipeline(llvm::StringRef stage,
                                           mlir::OpPassManager &pm) {
  if (stage == "linalg") {
    mlir::tfm::buildCpuToLinalgPipeline(pm, codegenOptions);
    return llvm::Error::success();
  }
  if (stage == "llvm") {
    mlir::tfm::buildCpuToLLVMPipeline(pm, codegenOptions);
    return llvm::Error::success();
  }
  return makeError("the cpu backend has no stage '" + stage + "' of passes");
}

llvm::Expected<std::unique_ptr<llvm::Module>>
CpuBackend::translate(mlir::ModuleOp module, const tfm_model_info &info,
                      llvm::LLVMContext &context) {
  HostObjectOptions options;
  options.setNumThreads = setOpenMPThreads;
  auto llvmModule = translateToHostModule(module, context, info, options);
  if (!llvmModule)
    return llvmModule.takeError();
  allowReassociation(**llvmModule);
  return llvmModule;
}

llvm::Error CpuBackend::serializeArtifact(llvm::StringRef stage,
                                          mlir::ModuleOp module,
                                          const tfm_model_info &info,
                                          const std::string &path) {
  if (stage == "halide")
    return printHalideStatements(module, path);
  mlir::tfm::CpuTargetAttr cpu = mlir::tfm::getCpuTarget(module);
  if (!cpu)
    return makeError("the module has no cpu #tfm.target");
  llvm::LLVMContext context;
  auto llvmModule = translate(module, info, context);
  if (!llvmModule)
    return llvmModule.takeError();
  return writeHostArtifact(**llvmModule, stage, path, machineOf(cpu), name(),
                           target.sanitizeThread);
}

llvm::Expected<ObjectSet>
CpuBackend::serializeObjects(mlir::ModuleOp module, const tfm_model_info &info,
                             const std::string &directory) {
  llvm::SmallString<128> object(directory);
  llvm::sys::path::append(object, "tfmc_model.o");
  if (auto error = serializeArtifact("obj", module, info, std::string(object)))
    return std::move(error);
  ObjectSet code{{std::string(object)}, {}};
  if (auto error = generateHalideKernels(module, directory, code))
    return std::move(error);
  return code;
}
