//===- GenerationSpec.h - How a model's files say to generate -------------===//
//
// What a produced executable needs besides the network and the tokenizer to
// generate as the model's authors configured it: every id that ends a
// generation (Llama-3.x-Instruct lists three, Gemma-2-it two), the sampling
// defaults of a Hugging Face generation_config.json, and for an encoder of
// sentence embeddings how its hidden states become one vector
// (sentence-transformers' Pooling and Normalize modules). The package
// carries them; the executable's flags override them.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_SPEC_GENERATIONSPEC_H
#define TFMC_COMPILER_SPEC_GENERATIONSPEC_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfmc {

/// generation_config.json's sampling fields, as present.
struct SamplingDefaults {
  /// `do_sample`; transformers decodes greedily when it is absent or false.
  bool sample = false;
  std::optional<double> temperature;
  std::optional<int64_t> topK;
  std::optional<double> topP;
  std::optional<double> minP;
  std::optional<double> repetitionPenalty;
};

struct GenerationSpec {
  /// Ids that end a generation besides the tokenizer's EOS: the rest of a
  /// config's `eos_token_id` list, generation_config.json's, a GGUF's
  /// end-of-turn and end-of-message ids. Without duplicates.
  std::vector<int> extraStopIds;
  /// From generation_config.json, when the model has one.
  std::optional<SamplingDefaults> sampling;
};

/// How `--embed` turns an encoder's hidden states into one vector.
struct EmbeddingSpec {
  /// "mean", "cls", "max", "mean_sqrt_len" or "last".
  std::string pooling = "mean";
  /// Divide the pooled vector by its L2 norm (sentence-transformers'
  /// Normalize module).
  bool normalize = false;
  /// Where the two came from, for --info ("1_Pooling/config.json").
  std::string source;
};

} // namespace tfmc

#endif // TFMC_COMPILER_SPEC_GENERATIONSPEC_H
