//===- Llama2c.h - llama2.c checkpoints -------------------------*- C++ -*-===//
//
// The legacy (v0) llama2.c format: a header of 7 int32 (dim, hidden_dim,
// n_layers, n_heads, n_kv_heads, vocab_size, seq_len) followed by raw f32
// tensors in a fixed order, each per-layer tensor stacked over the layers. A
// negative vocab_size means a separate classifier follows the RoPE frequency
// tables. The header's fields are the config keys (vocab_size as its
// magnitude, plus the flag `shared_classifier`); the tensors are named after
// the fields of llama2.c's TransformerWeights (`wq` is [n_layers, n_heads *
// head_size, dim]).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_FRONTENDS_LLAMA2C_H
#define TFMC_COMPILER_FRONTENDS_LLAMA2C_H

#include "compiler/spec/ConfigSource.h"
#include "compiler/spec/TensorTable.h"

#include <array>
#include <memory>
#include <string>

namespace tfmc::frontends {

class Llama2cCheckpoint final : public ConfigSource {
public:
  /// Maps and validates the checkpoint: header fields, the divisibility and
  /// even head size the tensor sizes rely on, every tensor inside the file
  /// and no bytes left after the last one.
  static llvm::Expected<std::unique_ptr<Llama2cCheckpoint>>
  open(const std::string &path);

  TensorTable &tensors() { return table_; }

  std::string describe() const override;
  bool isSet(llvm::StringRef key) const override;
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
  std::optional<uint64_t> arraySize(llvm::StringRef) const override {
    return std::nullopt;
  }

private:
  explicit Llama2cCheckpoint(std::string path);
  llvm::Error missingField(llvm::StringRef key) const;

  std::string path_;
  std::array<int64_t, 7> header_{};
  TensorTable table_;
};

} // namespace tfmc::frontends

#endif // TFMC_COMPILER_FRONTENDS_LLAMA2C_H
