//===- CpuTarget.cpp - The CPU code is generated for ----------------------===//
#include "compiler/backends/llvm-cpu/CpuTarget.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

using namespace tfmc;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
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
  auto machine = createTargetMachine({triple, name, featureString});
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
  auto config = mlir::tfm::CpuTargetAttr::get(&context, triple, name,
                                              featureString, bits, registers);
  return mlir::tfm::TargetAttr::get(
      &context, config.getBackendName(),
      mlir::cast<mlir::tfm::TargetConfigAttrInterface>(config));
}

MachineDescription tfmc::machineOf(mlir::tfm::CpuTargetAttr cpu) {
  return {cpu.getTriple().str(), cpu.getCpu().str(), cpu.getFeatures().str()};
}
