//===- TargetBackend.h - What a code generator provides to tfmc -*- C++ -*-===//
//
// tfmc compiles in two phases. The target-independent one (frontend ->
// tfm -> KV-cached, fused tfm; stages tfm, kv-cache, fused) is the driver's;
// everything after it belongs to the backend that `--target` selects: its
// options, the machine description it records in the IR (#tfm.target, which
// its passes read instead of guessing), the stages it adds to
// `--compile-to`, its pass pipelines, the artifacts it emits and what a
// produced executable links. docs/adding-a-backend.md walks through one.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BACKENDS_TARGETBACKEND_H
#define TFMC_COMPILER_BACKENDS_TARGETBACKEND_H

#include "compiler/link/Link.h"
#include "compiler/spec/ModelSpec.h"
#include "dialect/TfmOps.h"
#include "passes/PipelineOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace tfmc {

/// A stage a backend adds to `--compile-to`, after `fused`.
struct BackendStage {
  const char *name;
  const char *summary;
};

/// The driver's side of a compilation, as a backend sees it.
class BackendSession {
public:
  virtual ~BackendSession() = default;
  /// The module: the fused tfm network with #tfm.target set on entry.
  virtual mlir::ModuleOp module() = 0;
  /// The model being compiled (its weights and tokenizer go into the
  /// executable's package).
  virtual const ModelSpec &model() const = 0;
  /// Runs the passes `build` adds, with the driver's pass-manager flags
  /// (--mlir-print-ir-after-all, --mlir-timing, ...).
  virtual llvm::Error
  runPasses(llvm::function_ref<void(mlir::OpPassManager &)> build) = 0;
  /// True when the user asked to stop after `stage` (--compile-to).
  virtual bool stopsAfter(llvm::StringRef stage) const = 0;
  /// Prints the module to the output (the result of an IR stage).
  virtual llvm::Error printModule() = 0;
  /// -o, or empty (stdout for printed stages).
  virtual llvm::StringRef outputPath() const = 0;
  /// True for `--emit=lib`: the output is a directory with a static library
  /// and its C header (Link.h, writeModelLibrary) instead of an executable.
  virtual bool emitsLibrary() const = 0;
  /// Frees the module and returns the freed heap to the system; a backend
  /// calls it once it has emitted its code, before it writes the package.
  virtual void releaseModule() = 0;
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
  /// The stages it adds to `--compile-to`, in order.
  virtual llvm::ArrayRef<BackendStage> stages() const = 0;
  /// The machine code is generated for, from the backend's options.
  virtual llvm::Expected<mlir::tfm::TargetAttr>
  describeTarget(mlir::MLIRContext &context) = 0;
  /// Compiles the session's module stage by stage. After the stage the
  /// session stops after it prints the module (IR stages) or writes the
  /// artifact to the output, and returns; otherwise it produces the
  /// executable at the output path (or, with emitsLibrary(), the library).
  virtual llvm::Error compile(BackendSession &session) = 0;
  /// What the executables it produces link.
  virtual LinkInputs linkInputs() const = 0;
};

/// The backend `--target=name` selects, or null.
std::unique_ptr<TargetBackend> createTargetBackend(llvm::StringRef name);
/// Every name createTargetBackend accepts.
std::vector<std::string> targetBackendNames();

} // namespace tfmc

#endif // TFMC_COMPILER_BACKENDS_TARGETBACKEND_H
