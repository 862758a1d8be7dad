//===- HfConfig.h - A Hugging Face config.json as config keys ---*- C++ -*-===//
#ifndef TFMC_COMPILER_FRONTENDS_HFCONFIG_H
#define TFMC_COMPILER_FRONTENDS_HFCONFIG_H

#include "compiler/spec/ConfigSource.h"

#include "llvm/Support/JSON.h"

#include <memory>
#include <string>

namespace tfmc::frontends {

/// The fields of config.json, `outer.inner` for nested ones. Absent and
/// null fields are alike.
class HfConfig final : public ConfigSource {
public:
  /// Reads `directory`/config.json, which must hold a JSON object.
  static llvm::Expected<std::unique_ptr<HfConfig>>
  open(const std::string &directory);

  const std::string &path() const { return path_; }
  const llvm::json::Object &json() const { return *json_.getAsObject(); }

  std::string describe() const override;
  bool isSet(llvm::StringRef key) const override;
  bool isNull(llvm::StringRef key) const override;
  llvm::Expected<int64_t>
  positive(llvm::StringRef key, std::optional<int64_t> fallback) const override;
  llvm::Expected<int64_t>
  nonNegative(llvm::StringRef key,
              std::optional<int64_t> fallback) const override;
  llvm::Expected<double>
  positiveReal(llvm::StringRef key,
               std::optional<double> fallback) const override;
  llvm::Expected<std::string>
  string(llvm::StringRef key,
         std::optional<std::string> fallback) const override;
  llvm::Expected<bool> flag(llvm::StringRef key, bool fallback) const override;
  std::optional<uint64_t> arraySize(llvm::StringRef key) const override;
  llvm::Expected<std::vector<double>> reals(llvm::StringRef key) const override;

private:
  HfConfig(std::string path, llvm::json::Value json)
      : path_(std::move(path)), json_(std::move(json)) {}
  /// The value of `key` (dots separate the fields of nested objects), or
  /// null when it is absent or null.
  const llvm::json::Value *value(llvm::StringRef key) const;
  /// The value of `key` as stored, a JSON null included; null when absent.
  const llvm::json::Value *stored(llvm::StringRef key) const;
  /// The integer under `key`, at least `minimum` (`kind` names the bound in
  /// the message: "positive"); absent as for positive().
  llvm::Expected<int64_t> integerFrom(llvm::StringRef key,
                                      std::optional<int64_t> fallback,
                                      int64_t minimum,
                                      llvm::StringRef kind) const;

  std::string path_;
  llvm::json::Value json_;
};

} // namespace tfmc::frontends

#endif // TFMC_COMPILER_FRONTENDS_HFCONFIG_H
