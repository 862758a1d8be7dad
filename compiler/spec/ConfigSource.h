//===- ConfigSource.h - Typed access to a model file's hyperparameters ----===//
//
// The format-neutral way a model family reads hyperparameters: config.json
// fields, GGUF metadata and the llama2.c header all implement it (in
// compiler/frontends), and the family (in models/) asks for its keys by name.
// Errors name the file and the key in each format's own words.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_SPEC_CONFIGSOURCE_H
#define TFMC_COMPILER_SPEC_CONFIGSOURCE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfmc {

class ConfigSource {
public:
  virtual ~ConfigSource();

  /// How messages name the file: "'dir/config.json'", "GGUF file 'm.gguf'",
  /// "llama2.c checkpoint 'm.bin'".
  virtual std::string describe() const = 0;

  /// True when `key` holds a value (for config.json: one that is neither
  /// null nor false).
  virtual bool isSet(llvm::StringRef key) const = 0;

  /// True when `key` is there and explicitly null (config.json's way of
  /// turning off what an absent key defaults to: Gemma 2's soft caps).
  /// Formats without nulls (GGUF, llama2.c) never have one.
  virtual bool isNull(llvm::StringRef key) const { return false; }

  /// A positive integer. An absent key gives `fallback`, or an error naming
  /// the file and the key when there is none.
  virtual llvm::Expected<int64_t>
  positive(llvm::StringRef key,
           std::optional<int64_t> fallback = std::nullopt) const = 0;

  /// A non-negative integer (a count that may be zero); absent as for
  /// positive().
  virtual llvm::Expected<int64_t>
  nonNegative(llvm::StringRef key,
              std::optional<int64_t> fallback = std::nullopt) const = 0;

  /// A positive finite number (never NaN or infinity); absent as for
  /// positive().
  virtual llvm::Expected<double>
  positiveReal(llvm::StringRef key,
               std::optional<double> fallback = std::nullopt) const = 0;

  /// A string; absent as for positive().
  virtual llvm::Expected<std::string>
  string(llvm::StringRef key,
         std::optional<std::string> fallback = std::nullopt) const = 0;

  /// A boolean; `fallback` when the key is absent, an error naming the file
  /// and the key when it holds anything else (`"yes"` is not true).
  virtual llvm::Expected<bool> flag(llvm::StringRef key,
                                    bool fallback) const = 0;

  /// Elements of the array under `key`; nullopt when there is none.
  virtual std::optional<uint64_t> arraySize(llvm::StringRef key) const = 0;

  /// The array of finite numbers under `key`; an error naming the file and
  /// the key when it is absent or holds anything else. Files whose configs
  /// hold no such arrays (GGUF, llama2.c) say so.
  virtual llvm::Expected<std::vector<double>> reals(llvm::StringRef key) const;

  /// The largest size or count the read helpers return (2^31 - 1): the
  /// network indexes every shape, position and token id with 32 bits, and
  /// arithmetic on sizes stays far from overflowing. The one checked
  /// conversion of sizes from files: families read through these.
  static constexpr int64_t kMaxInteger = 2147483647;

  /// positive() into `out`, at most kMaxInteger, for reading a family's
  /// keys one per line.
  llvm::Error read(llvm::StringRef key, int64_t &out,
                   std::optional<int64_t> fallback = std::nullopt) const;
  /// nonNegative() into `out`, at most kMaxInteger.
  llvm::Error readCount(llvm::StringRef key, int64_t &out,
                        std::optional<int64_t> fallback = std::nullopt) const;
  /// A context length: positive() without the limit, since a context
  /// beyond any KV cache (a broken file) may still be compiled with
  /// `--context N`, which the driver checks.
  llvm::Error
  readContextLength(llvm::StringRef key, int64_t &out,
                    std::optional<int64_t> fallback = std::nullopt) const;
  /// positiveReal() into `out`; a value beyond the f32 range is an error.
  llvm::Error read(llvm::StringRef key, float &out,
                   std::optional<double> fallback = std::nullopt) const;

private:
  /// `value` of `key` into `out` when it is at most kMaxInteger, else an
  /// error that names the file, the key, the value and the limit.
  llvm::Error withinLimit(llvm::StringRef key, llvm::Expected<int64_t> value,
                          int64_t &out) const;
};

} // namespace tfmc

#endif // TFMC_COMPILER_SPEC_CONFIGSOURCE_H
