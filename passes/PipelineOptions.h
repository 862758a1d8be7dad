//===- PipelineOptions.h - One options struct per phase, bound everywhere -===//
//
// Each compilation phase declares its options once, as a
// PassPipelineOptions struct (its registered pipeline's options in
// tfmc-opt). tfmc's command line and the combined pipelines hand each
// `name[=value]` to the phase struct that declares `name`, so no option is
// declared twice and every phase parses its own values.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_PIPELINEOPTIONS_H
#define TFMC_PASSES_PIPELINEOPTIONS_H

#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mlir::tfm {

/// A phase's options struct: PassPipelineOptions that can say which options
/// it declares.
template <typename T> struct PhaseOptions : public PassPipelineOptions<T> {
  /// The option this struct declares as `name`, or null.
  const llvm::cl::Option *lookup(StringRef name) const {
    auto found = this->OptionsMap.find(name);
    return found == this->OptionsMap.end() ? nullptr : found->second;
  }
};

/// Type-erased view of one phase's options struct.
class OptionGroup {
public:
  virtual ~OptionGroup() = default;
  /// Shown above the group's options in --help.
  virtual StringRef title() const = 0;
  virtual const llvm::cl::Option *lookup(StringRef name) const = 0;
  /// Parses `name=value name2=value2 ...`; errors go to `errors`.
  virtual LogicalResult parse(StringRef text, raw_ostream &errors) = 0;
  virtual void printHelp() const = 0;
};

template <typename T> class OptionGroupOf : public OptionGroup {
public:
  OptionGroupOf(StringRef title, T &options)
      : groupTitle(title), options(options) {}
  StringRef title() const override { return groupTitle; }
  const llvm::cl::Option *lookup(StringRef name) const override {
    return options.lookup(name);
  }
  LogicalResult parse(StringRef text, raw_ostream &errors) override {
    return options.parseFromString(text, errors);
  }
  // cl::Option pads the description to a column and underflows when an
  // option is wider than it, so the column clears the widest option.
  void printHelp() const override { options.printHelp(4, 48); }

private:
  std::string groupTitle;
  T &options;
};

/// How the arguments of routeOptions are spelled.
enum class OptionSpelling {
  /// A pipeline's option string: every argument is `name` or `name=value`.
  Pipeline,
  /// A command line: options start with dashes (`--name`, `--name=value`,
  /// `--name value` for an option that requires a value); anything else is
  /// a positional argument or another option's value.
  CommandLine,
};

/// Hands each option among `arguments` to the group that declares its name
/// and parses every group's share. Arguments no group declares are
/// appended, in order, to `unclaimed` when it is given, and are an error
/// otherwise.
LogicalResult routeOptions(ArrayRef<std::string> arguments,
                           ArrayRef<OptionGroup *> groups,
                           OptionSpelling spelling,
                           std::vector<std::string> *unclaimed,
                           raw_ostream &errors);

/// Splits a pipeline's option string (`a=1 b={x=2 y=3}`) into arguments.
std::vector<std::string> splitPipelineOptions(StringRef text);

} // namespace mlir::tfm

#endif // TFMC_PASSES_PIPELINEOPTIONS_H
