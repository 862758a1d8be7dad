//===- EncoderRunner.h - Run a compiled encoder over its device -*- C++ -*-===//
//
// An encoder (tfm_model.kind == TFM_KIND_ENCODER) has one entry,
// tfm_encode, over a padded sequence of context_length tokens. The runner
// owns the model's memory on its device and the host outputs (hidden
// states, and masked-LM logits where the model has the head) that
// fill-mask, --embed, --dump-logits and --bench read.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_MODEL_ENCODERRUNNER_H
#define TFMC_RUNTIME_MODEL_ENCODERRUNNER_H

#include "runtime/ModelABI.h"
#include "runtime/model/ModelEntries.h"
#include "runtime/model/ModelMemory.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tfm::rt {

/// Runs an encoder over up to context_length tokens.
class EncoderRunner {
public:
  EncoderRunner(const tfm_model_info &info, const ModelEntries &entries);

  /// Makes the weights blob (`weights`, the package's mapping) available on
  /// the model's device and allocates the entry's scratch and the outputs;
  /// false with a message that starts with "error: ".
  bool open(const uint8_t *weights, std::string &error);
  /// Why open() failed: the package or memory (ModelMemory::Failure).
  ModelMemory::Failure openFailure() const { return memory_.failure(); }

  int sequence() const { return static_cast<int>(info_.context_length); }
  int vocab() const { return static_cast<int>(info_.vocab_size); }
  int hiddenSize() const { return static_cast<int>(info_.hidden_size); }
  bool hasLogits() const { return info_.encode_logits != 0; }

  /// Checks that `ids` fits the compiled sequence and the vocabulary;
  /// `what` names them in the message ("the prompt", "--token-ids").
  bool check(const std::vector<int32_t> &ids, const std::string &what,
             std::string &error) const;
  /// Runs `ids` (checked) padded to the compiled sequence.
  void encode(const std::vector<int32_t> &ids);

  /// Row `position` of the last encode's final hidden states.
  const float *hidden(int position) const {
    return hidden_.data() + size_t(position) * info_.hidden_size;
  }
  /// Row `position` of the last encode's masked-LM logits (hasLogits()).
  const float *logits(int position) const {
    return logits_.data() + size_t(position) * info_.vocab_size;
  }

private:
  tfm_model_info info_;
  ModelEntries entries_;
  ModelMemory memory_; ///< weights and scratch
  std::vector<int32_t> padded_;
  std::vector<float> hidden_; ///< host memory, as the outputs of every entry
  std::vector<float> logits_; ///< empty without a masked-LM head
};

} // namespace tfm::rt

#endif // TFMC_RUNTIME_MODEL_ENCODERRUNNER_H
