//===- Encode.h - Drive a compiled encoder: fill-mask, embeddings ---------===//
//
// An encoder (tfm_model.kind == TFM_KIND_ENCODER) has one entry,
// tfm_encode, over a padded sequence of context_length tokens. This file
// owns its output buffers and implements what an encoder's executable
// does: fill-mask predictions at [MASK] tokens, sentence embeddings
// (--embed), --dump-logits and --bench.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_ENCODE_H
#define TFMC_RUNTIME_ENCODE_H

#include "runtime/Cli.h"
#include "runtime/ModelABI.h"
#include "runtime/Scratch.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tfm::rt {

class Tokenizer;

/// Runs an encoder over up to context_length tokens.
class EncoderRunner {
public:
  EncoderRunner(const tfm_model_info &info, const uint8_t *weights);
  /// Allocates the entry's scratch; false with a message.
  bool init(std::string &error) {
    return allocateScratch(info_, scratch_, error);
  }

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
  const uint8_t *weights_;
  std::vector<int32_t> padded_;
  std::vector<float> hidden_;
  std::vector<float> logits_;
  ScratchBuffer scratch_; ///< the entry's intermediates
};

/// Fill-mask (--prompt with [MASK]): the top --top-k ids at each mask.
int runFillMask(EncoderRunner &runner, const Tokenizer &tokenizer,
                const CliOptions &options);
/// --embed: the pooled final hidden states as one JSON line. `tokenizer`
/// may be null when the ids come from --token-ids.
int runEmbed(EncoderRunner &runner, const Tokenizer *tokenizer,
             const CliOptions &options);
/// --dump-logits: float32 [n][vocab] masked-LM logits of the given ids, or
/// [n][hidden_size] hidden states for an encoder without a head.
int runEncoderDump(EncoderRunner &runner, const CliOptions &options);
/// --bench: encode calls of --prompt-tokens tokens; a JSON line last.
int runEncoderBench(EncoderRunner &runner, const CliOptions &options,
                    int threads);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_ENCODE_H
