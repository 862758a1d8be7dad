//===- PipelineOptions.cpp - Route options to the phase declaring them ----===//
#include "passes/PipelineOptions.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tfm;

LogicalResult mlir::tfm::routeOptions(ArrayRef<std::string> arguments,
                                      ArrayRef<OptionGroup *> groups,
                                      OptionSpelling spelling,
                                      std::vector<std::string> *unclaimed,
                                      raw_ostream &errors) {
  std::vector<std::string> shares(groups.size());
  for (size_t i = 0; i < arguments.size(); ++i) {
    StringRef argument = arguments[i];
    if (spelling == OptionSpelling::CommandLine && !argument.starts_with("-")) {
      if (unclaimed)
        unclaimed->push_back(arguments[i]);
      continue;
    }
    StringRef stripped = argument.ltrim('-');
    auto [name, value] = stripped.split('=');
    bool hasValue = stripped.contains('=');
    size_t owner = groups.size();
    const llvm::cl::Option *option = nullptr;
    for (size_t g = 0; g < groups.size() && !option; ++g)
      if ((option = groups[g]->lookup(name)))
        owner = g;
    if (!option) {
      if (!unclaimed) {
        errors << "unknown option '" << argument << "'\n";
        return failure();
      }
      unclaimed->push_back(arguments[i]);
      continue;
    }
    std::string assignment = name.str();
    if (hasValue) {
      assignment += "=" + value.str();
    } else if (option->getValueExpectedFlag() == llvm::cl::ValueRequired) {
      // `--name value`, as a command line may spell it.
      if (i + 1 == arguments.size()) {
        errors << "option '" << argument << "' needs a value\n";
        return failure();
      }
      assignment += "=" + arguments[++i];
    }
    shares[owner] += assignment + " ";
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    if (shares[g].empty())
      continue;
    // A value llvm::cl cannot parse is reported by llvm::cl itself, on
    // stderr; this names the options it was parsing.
    if (succeeded(groups[g]->parse(shares[g], errors)))
      continue;
    errors << "invalid option value in '" << StringRef(shares[g]).rtrim()
           << "'\n";
    return failure();
  }
  return success();
}

std::vector<std::string> mlir::tfm::splitPipelineOptions(StringRef text) {
  std::vector<std::string> arguments;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '{')
      ++depth;
    else if (c == '}')
      --depth;
    if (llvm::isSpace(c) && depth == 0) {
      if (!current.empty())
        arguments.push_back(std::move(current));
      current.clear();
      continue;
    }
    current += c;
  }
  if (!current.empty())
    arguments.push_back(std::move(current));
  return arguments;
}
