//===- KernelConfigOptions.cpp - Option values of the kernel choices ------===//
#include "passes/Codegen/CPU/KernelConfigOptions.h"

using namespace mlir::tfm::cpu;

llvm::raw_ostream &mlir::tfm::cpu::operator<<(llvm::raw_ostream &os,
                                              const WeightTypeOption &option) {
  if (option.type)
    os << tfmc::weights::elementTypeName(*option.type);
  return os;
}

llvm::raw_ostream &
mlir::tfm::cpu::operator<<(llvm::raw_ostream &os,
                           const TargetDefaultSwitch &option) {
  if (!option.value)
    return os << "default";
  return os << (*option.value ? "true" : "false");
}

bool llvm::cl::parser<WeightTypeOption>::parse(Option &option,
                                               StringRef argName, StringRef arg,
                                               WeightTypeOption &value) {
  if (arg.empty()) {
    value.type = std::nullopt;
    return false;
  }
  std::optional<tfmc::weights::ElementType> type =
      tfmc::weights::symbolizeElementType(arg);
  if (!type || !tfmc::weights::isConversionTarget(*type))
    return option.error("unknown weight type '" + arg + "' (expected " +
                            tfmc::weights::conversionTargetNames() + ")",
                        argName);
  value.type = type;
  return false;
}

void llvm::cl::parser<WeightTypeOption>::printOptionDiff(
    const Option &option, const WeightTypeOption &value,
    const OptionValue<WeightTypeOption> &, size_t globalWidth) const {
  printOptionName(option, globalWidth);
  outs() << "= " << value << "\n";
}

bool llvm::cl::parser<TargetDefaultSwitch>::parse(Option &option,
                                                  StringRef argName,
                                                  StringRef arg,
                                                  TargetDefaultSwitch &value) {
  // A bare flag (`--int8-inputs`) turns the switch on.
  if (arg.empty() || arg == "true" || arg == "1") {
    value.value = true;
    return false;
  }
  if (arg == "false" || arg == "0") {
    value.value = false;
    return false;
  }
  if (arg == "default") {
    value.value = std::nullopt;
    return false;
  }
  return option.error("'" + arg + "' is not true, false or default", argName);
}

void llvm::cl::parser<TargetDefaultSwitch>::printOptionDiff(
    const Option &option, const TargetDefaultSwitch &value,
    const OptionValue<TargetDefaultSwitch> &, size_t globalWidth) const {
  printOptionName(option, globalWidth);
  outs() << "= " << value << "\n";
}
