//===- TargetBackend.h - What a code generator provides to tfmc -*- C++ -*-===//
//
// tfmc compiles in two phases. The target-independent one (frontend ->
// tfm -> KV-cached, fused tfm; stages tfm, kv-cache, fused) is the driver's;
// after it, the backend that `--target` selects provides, as IREE's target
// plugins do, the pieces the driver runs in order:
//   - its options and the machine description it records in the IR
//     (#tfm.target, which its passes read instead of guessing);
//   - configuration: the passes that choose for the target (weight layouts,
//     kernel configs) before anything is lowered;
//   - its stages, each a pass pipeline that lowers the previous stage's
//     module, down to a host module in the LLVM dialect;
//   - serialisation: that module as a textual or binary artifact
//     (`--compile-to` llvm-ir, asm, obj; ptx), or as the objects and
//     archives of the model's code;
//   - what the produced executables link besides (its runtime libraries).
// The driver owns everything else: running passes with the user's flags,
// stopping after a stage and printing or writing it, the model's facts
// (tfm_model), the link and the package. docs/adding-a-backend.md walks
// through one.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BACKENDS_TARGETBACKEND_H
#define TFMC_COMPILER_BACKENDS_TARGETBACKEND_H

#include "compiler/link/LinkInputs.h"
#include "dialect/TfmOps.h"
#include "passes/PipelineOptions.h"
#include "runtime/ModelABI.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tfmc {

/// A stage a backend adds to `--compile-to`, after `fused`.
struct BackendStage {
  enum class Kind {
    /// The module after the stage's passes (buildStagePipeline), which the
    /// driver prints.
    Module,
    /// The last Module stage's module serialised (serializeArtifact).
    Artifact,
  };
  const char *name;
  const char *summary;
  Kind kind;
};

class TargetBackend {
public:
  virtual ~TargetBackend() = default;

  /// The `--target` name.
  virtual llvm::StringRef name() const = 0;
  virtual llvm::StringRef summary() const = 0;
  /// The backend's option structs, bound to tfmc's command line (and, as
  /// pipeline options, to tfmc-opt).
  virtual std::vector<mlir::tfm::OptionGroup *> optionGroups() = 0;
  /// The machine code is generated for, from the backend's options.
  virtual llvm::Expected<mlir::tfm::TargetAttr>
  describeTarget(mlir::MLIRContext &context) = 0;
  /// Where the code runs (tfm_model_info.device, TFM_DEVICE_*).
  virtual uint32_t device() const = 0;

  /// The stages it adds to `--compile-to`, in order: its Module stages,
  /// then its Artifact stages.
  virtual llvm::ArrayRef<BackendStage> stages() const = 0;

  /// Adds the passes that make the target's choices on the fused module
  /// (#tfm.target set to `target`): the weights' layouts and element types,
  /// kernel configs. After them the module's tfm.global_weight ops describe
  /// the blob the code reads, which the driver takes as the package's
  /// layout (computeWeightLayout) before any stage binds the code to it.
  virtual llvm::Error
  buildConfigurationPipeline(mlir::OpPassManager &pm,
                             mlir::tfm::TargetAttr target) = 0;

  /// Adds the passes that lower the previous stage's module (the
  /// configured one for the first) to Module stage `stage`. The last one
  /// leaves the host module in the LLVM dialect: the entries that
  /// #tfm.entries names, their arguments marked (tfm.entry_arg), the
  /// scratch argument's `llvm.dereferenceable` and `llvm.align` saying what
  /// the code needs (common/ModelInfo.h, describeScratch).
  virtual llvm::Error buildStagePipeline(llvm::StringRef stage,
                                         mlir::OpPassManager &pm) = 0;

  /// Writes Artifact stage `stage` of `module` (the last Module stage's),
  /// whose code `info` describes, to `path` ("-": stdout).
  virtual llvm::Error serializeArtifact(llvm::StringRef stage,
                                        mlir::ModuleOp module,
                                        const tfm_model_info &info,
                                        const std::string &path) = 0;

  /// Writes the model's code, `module` as serializeArtifact has it, into
  /// `directory` (fresh, removed by the driver after the link) as the
  /// objects and archives the executable or library links: the host
  /// object defining runtime/ModelABI.h's symbols (common/HostObject.h),
  /// and whatever it calls.
  virtual llvm::Expected<ObjectSet>
  serializeObjects(mlir::ModuleOp module, const tfm_model_info &info,
                   const std::string &directory) = 0;

  /// What the executables it produces link besides its objects and the
  /// tfmc runtime.
  virtual LinkInputs linkInputs() const = 0;

  /// What the package records about the machine the code was generated
  /// for (runtime/PackageKeys.h's target.* keys), which the runtime checks
  /// before it runs the code; none by default.
  virtual std::map<std::string, std::string>
  targetMetadata(mlir::tfm::TargetAttr target) const {
    return {};
  }
};

/// The backend `--target=name` selects, or null.
std::unique_ptr<TargetBackend> createTargetBackend(llvm::StringRef name);
/// Every name createTargetBackend accepts.
std::vector<std::string> targetBackendNames();

} // namespace tfmc

#endif // TFMC_COMPILER_BACKENDS_TARGETBACKEND_H
