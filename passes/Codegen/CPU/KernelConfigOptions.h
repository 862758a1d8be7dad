//===- KernelConfigOptions.h - Options of the kernel choices ---*- C++ -*-===//
//
// Values of the options that tfm-cpu-select-kernel-config chooses by
// (tfmc's --weights and --int8-inputs, the tfm-cpu pipelines' `weights`
// and `int8-inputs`), parsed by llvm::cl as typed values: an element type
// from compiler/weights' one list (ElementType.td), and a switch whose
// absence means "the target's default".
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_CODEGEN_CPU_KERNELCONFIGOPTIONS_H
#define TFMC_PASSES_CODEGEN_CPU_KERNELCONFIGOPTIONS_H

#include "compiler/weights/ElementType.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace mlir::tfm::cpu {

/// The element type the projection panels are asked to take (a conversion
/// target: f32, f16, bf16, q8_0, q4_0), or none: each projection keeps the
/// type the model file stores its matrix in (when the kernels read it).
struct WeightTypeOption {
  std::optional<tfmc::weights::ElementType> type;

  bool operator==(const WeightTypeOption &other) const {
    return type == other.type;
  }
};

/// A switch that is on, off, or left to the target (unset).
struct TargetDefaultSwitch {
  std::optional<bool> value;

  bool operator==(const TargetDefaultSwitch &other) const {
    return value == other.value;
  }
};

/// The spellings the parsers read back: the type's name or nothing; true,
/// false or `default`.
llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                              const WeightTypeOption &option);
llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                              const TargetDefaultSwitch &option);

} // namespace mlir::tfm::cpu

namespace llvm::cl {

/// Parses `f32`, `f16`, `bf16`, `q8_0` or `q4_0` (or nothing: as stored),
/// refusing every other name, the k-quants included (they are read, never
/// produced).
template <>
class parser<mlir::tfm::cpu::WeightTypeOption>
    : public basic_parser<mlir::tfm::cpu::WeightTypeOption> {
public:
  parser(Option &option) : basic_parser(option) {}
  bool parse(Option &option, StringRef argName, StringRef arg,
             mlir::tfm::cpu::WeightTypeOption &value);
  StringRef getValueName() const override { return "type"; }
  void printOptionDiff(const Option &option,
                       const mlir::tfm::cpu::WeightTypeOption &value,
                       const OptionValue<mlir::tfm::cpu::WeightTypeOption> &,
                       size_t globalWidth) const;
};

/// Parses `true`/`false` (`1`/`0`), a bare flag as true, and `default` as
/// unset (the target's choice).
template <>
class parser<mlir::tfm::cpu::TargetDefaultSwitch>
    : public basic_parser<mlir::tfm::cpu::TargetDefaultSwitch> {
public:
  parser(Option &option) : basic_parser(option) {}
  enum ValueExpected getValueExpectedFlagDefault() const {
    return ValueOptional;
  }
  bool parse(Option &option, StringRef argName, StringRef arg,
             mlir::tfm::cpu::TargetDefaultSwitch &value);
  StringRef getValueName() const override { return "bool"; }
  void printOptionDiff(const Option &option,
                       const mlir::tfm::cpu::TargetDefaultSwitch &value,
                       const OptionValue<mlir::tfm::cpu::TargetDefaultSwitch> &,
                       size_t globalWidth) const;
};

} // namespace llvm::cl

#endif // TFMC_PASSES_CODEGEN_CPU_KERNELCONFIGOPTIONS_H
