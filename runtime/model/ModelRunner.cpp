//===- ModelRunner.cpp - Run a compiled decoder over its device -----------===//
#include "runtime/model/ModelRunner.h"

#include <algorithm>

namespace tfm::rt {

ModelRunner::ModelRunner(const tfm_model_info &info,
                         const ModelEntries &entries)
    : info_(info), entries_(entries) {}

bool ModelRunner::open(const uint8_t *weights, std::string &error) {
  if (!checkEntries(info_, entries_, error) ||
      !memory_.open(info_, weights, error))
    return false;
  logits_.assign(info_.vocab_size, 0.0f);
  chunkTokens_.assign(std::max<uint32_t>(info_.prefill_chunk, 1), 0);
  return true;
}

bool ModelRunner::encodeSource(const int32_t *ids, int count,
                               std::string &error) {
  if (count < 1 || count > context()) {
    error = "error: the source is " + std::to_string(count) +
            " tokens but the encoder's context is " +
            std::to_string(context()) + " tokens";
    return false;
  }
  for (int i = 0; i < count; ++i) {
    if (ids[i] < 0 || ids[i] >= vocab()) {
      error = "error: source token " + std::to_string(ids[i]) +
              " is outside the model's vocabulary of " +
              std::to_string(vocab());
      return false;
    }
  }
  // Padding ids are harmless: no real position attends to them (ModelABI.h).
  sourceTokens_.assign(info_.context_length, 0);
  std::copy(ids, ids + count, sourceTokens_.begin());
  sourceLength_ = count;
  entries_.seq2seqEncode(memory_.weights(), sourceTokens_.data(), sourceLength_,
                         memory_.cache(), memory_.scratch(), memory_.stream());
  return true;
}

void ModelRunner::prefill(int64_t pos, int64_t count) {
  if (isSeq2Seq())
    entries_.seq2seqPrefill(memory_.weights(), chunkTokens_.data(), pos, count,
                            sourceLength_, memory_.cache(), logits_.data(),
                            memory_.scratch(), memory_.stream());
  else
    entries_.prefill(memory_.weights(), chunkTokens_.data(), pos, count,
                     memory_.cache(), logits_.data(), memory_.scratch(),
                     memory_.stream());
}

void ModelRunner::decode(const int32_t *token, int64_t pos) {
  if (isSeq2Seq())
    entries_.seq2seqDecode(memory_.weights(), token, pos, sourceLength_,
                           memory_.cache(), logits_.data(), memory_.scratch(),
                           memory_.stream());
  else
    entries_.decode(memory_.weights(), token, pos, memory_.cache(),
                    logits_.data(), memory_.scratch(), memory_.stream());
}

const float *ModelRunner::feed(const int32_t *tokens, int count, int64_t pos,
                               bool decodeOnly, std::vector<float> *allLogits) {
  const int64_t chunk = info_.prefill_chunk;
  auto keep = [&] {
    if (allLogits)
      allLogits->insert(allLogits->end(), logits_.begin(), logits_.end());
  };
  int done = 0;
  while (done < count) {
    int remaining = count - done;
    int64_t at = pos + done;
    if (!decodeOnly && chunk > 0 && remaining >= 2 &&
        at + chunk <= static_cast<int64_t>(info_.context_length)) {
      // Padding ids are harmless: their cache rows are rewritten before any
      // query attends to them (ModelABI.h).
      int rows = static_cast<int>(std::min<int64_t>(remaining, chunk));
      std::fill(chunkTokens_.begin(), chunkTokens_.end(), 0);
      std::copy(tokens + done, tokens + done + rows, chunkTokens_.begin());
      // A prefill call returns the logits of one row (the last real token).
      // For every row's, the chunk runs once per row, each time with one
      // more real token: the same prefill code, so --dump-logits checks it.
      // A chunk that more tokens follow needs none: count 0 skips them.
      if (!allLogits && rows < remaining) {
        prefill(at, 0);
      } else {
        for (int real = allLogits ? 1 : rows; real <= rows; ++real) {
          prefill(at, real);
          keep();
        }
      }
      done += rows;
    } else {
      decode(tokens + done, at);
      keep();
      done += 1;
    }
  }
  return logits_.data();
}

} // namespace tfm::rt
