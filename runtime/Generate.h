//===- Generate.h - Drive the compiled model: generation, bench, dumps ----===//
//
// Glue between the C ABI in ModelABI.h and the command line: owns the KV cache
// and logits buffers, decides between tfm_prefill chunks and tfm_decode steps,
// and implements the three run modes of a produced executable.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_GENERATE_H
#define TFMC_RUNTIME_GENERATE_H

#include "runtime/Cli.h"
#include "runtime/ModelABI.h"
#include "runtime/Scratch.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace tfm::rt {

class Tokenizer;

/// Owns the buffers the generated entries write into; allocated once.
class ModelRunner {
public:
  ModelRunner(const tfm_model_info &info, const uint8_t *weights);

  /// Allocates the zeroed, 64-byte aligned KV cache, the entries' scratch
  /// and the logits buffer.
  /// Returns false with `error` set when memory is short.
  bool allocate(std::string &error);

  const tfm_model_info &info() const { return info_; }
  int vocab() const { return static_cast<int>(info_.vocab_size); }
  int context() const { return static_cast<int>(info_.context_length); }

  /// Runs `count` tokens at positions [pos, pos + count) and returns the
  /// logits of the last one. Uses tfm_prefill chunks while >= 2 tokens remain
  /// and a whole chunk fits in the context, else tfm_decode. When `allLogits`
  /// is given, the logits of every position are appended to it (a prefill
  /// call yields one row, so each chunk then runs once per row). Requires
  /// pos + count <= context().
  const float *feed(const int32_t *tokens, int count, int64_t pos,
                    bool decodeOnly, std::vector<float> *allLogits = nullptr);

  /// An encoder-decoder (T5): whether feed() runs the decoder, which needs
  /// encodeSource() first.
  bool isSeq2Seq() const { return info_.kind == TFM_KIND_ENCODER_DECODER; }
  /// Runs the encoder over the `count` source ids (padded to the context)
  /// and stores every cross-attention's keys and values, which later
  /// feed() calls read. Returns false with `error` set when the ids do not
  /// fit the context or the vocabulary.
  bool encodeSource(const int32_t *ids, int count, std::string &error);

private:
  void prefill(int64_t pos, int64_t count);
  void decode(const int32_t *token, int64_t pos);

  tfm_model_info info_;
  const uint8_t *weights_;
  std::unique_ptr<void, FreeDeleter> cache_; ///< f32 or f16, cache_bytes
  ScratchBuffer scratch_;                    ///< the entries' intermediates
  std::vector<float> logits_;         ///< [prefill_chunk][vocab] or [vocab].
  std::vector<int32_t> chunkTokens_;  ///< One prefill chunk, zero-padded.
  std::vector<int32_t> sourceTokens_; ///< An encoder-decoder's, padded.
  int64_t sourceLength_ = 0;          ///< Its real tokens.
};

/// Text generation: prints the prompt, then streams sampled pieces (an
/// encoder-decoder encodes the prompt and streams the decoder's text from
/// decoder_start_token). Returns the process exit code; errors go to
/// stderr.
int runGenerate(ModelRunner &runner, const Tokenizer &tokenizer, int bos,
                int eos, const CliOptions &options);

/// --bench: prints human-readable lines, then a JSON object as the last line.
int runBench(ModelRunner &runner, const CliOptions &options, int threads);

/// --dump-logits: writes float32 [n][vocab] for the given ids.
int runDumpLogits(ModelRunner &runner, const CliOptions &options);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_GENERATE_H
