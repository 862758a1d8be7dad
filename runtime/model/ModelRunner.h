//===- ModelRunner.h - Run a compiled decoder over its device ---*- C++ -*-===//
//
// Glue between the decoder entries of ModelABI.h (tfm_prefill/tfm_decode,
// or an encoder-decoder's tfm_seq2seq_*) and their callers (generation,
// --bench, --dump-logits, the C library): owns the model's memory on its
// device and the host logits, and decides between prefill chunks and
// decode steps.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_MODEL_MODELRUNNER_H
#define TFMC_RUNTIME_MODEL_MODELRUNNER_H

#include "runtime/ModelABI.h"
#include "runtime/model/ModelEntries.h"
#include "runtime/model/ModelMemory.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tfm::rt {

class ModelRunner {
public:
  /// A runner of the model `info` describes, calling `entries`.
  ModelRunner(const tfm_model_info &info, const ModelEntries &entries);

  /// Makes the weights blob (`weights`, the package's mapping) available on
  /// the model's device and allocates the zeroed KV cache, the entries'
  /// scratch and the logits. Returns false with `error` set (a message that
  /// starts with "error: ") when an entry or the device is missing or memory
  /// is short (openFailure() says which).
  bool open(const uint8_t *weights, std::string &error);
  /// Why open() failed.
  ModelMemory::Failure openFailure() const { return memory_.failure(); }

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

  /// Waits for the work queued so far and says whether all of it ran: on
  /// a device whose launches can fail (CUDA), the logits since a failure
  /// are meaningless. False with `error` set.
  bool finish(std::string &error) {
    return memory_.device().synchronize(error);
  }

private:
  void prefill(int64_t pos, int64_t count);
  void decode(const int32_t *token, int64_t pos);

  tfm_model_info info_;
  ModelEntries entries_;
  ModelMemory memory_;                ///< weights, cache and scratch
  std::vector<float> logits_;         ///< [vocab], host memory
  std::vector<int32_t> chunkTokens_;  ///< One prefill chunk, zero-padded.
  std::vector<int32_t> sourceTokens_; ///< An encoder-decoder's, padded.
  int64_t sourceLength_ = 0;          ///< Its real tokens.
};

} // namespace tfm::rt

#endif // TFMC_RUNTIME_MODEL_MODELRUNNER_H
