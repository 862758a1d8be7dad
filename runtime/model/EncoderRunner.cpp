//===- EncoderRunner.cpp - Run a compiled encoder over its device ---------===//
#include "runtime/model/EncoderRunner.h"

#include <algorithm>

namespace tfm::rt {

EncoderRunner::EncoderRunner(const tfm_model_info &info,
                             const ModelEntries &entries)
    : info_(info), entries_(entries) {}

bool EncoderRunner::open(const uint8_t *weights, std::string &error) {
  if (!checkEntries(info_, entries_, error) ||
      !memory_.open(info_, weights, error))
    return false;
  padded_.assign(info_.context_length, 0);
  hidden_.assign(size_t(info_.context_length) * info_.hidden_size, 0.0f);
  logits_.assign(
      info_.encode_logits ? size_t(info_.context_length) * info_.vocab_size : 0,
      0.0f);
  return true;
}

bool EncoderRunner::check(const std::vector<int32_t> &ids,
                          const std::string &what, std::string &error) const {
  if (ids.empty()) {
    error = "error: " + what + " has no tokens";
    return false;
  }
  if (ids.size() > size_t(sequence())) {
    error = "error: " + what + " is " + std::to_string(ids.size()) +
            " tokens but this encoder was compiled for sequences of at most " +
            std::to_string(sequence()) + " (tfmc --context)";
    return false;
  }
  for (int32_t id : ids)
    if (id < 0 || id >= vocab()) {
      error = "error: " + what + ": id " + std::to_string(id) +
              " is outside the model's vocabulary of " +
              std::to_string(vocab());
      return false;
    }
  return true;
}

void EncoderRunner::encode(const std::vector<int32_t> &ids) {
  // Padding positions may hold any id: no real position attends to them.
  std::fill(padded_.begin(), padded_.end(), 0);
  std::copy(ids.begin(), ids.end(), padded_.begin());
  // Without a masked-LM head the entry writes no logits: it takes NULL.
  entries_.encode(memory_.weights(), padded_.data(),
                  static_cast<int64_t>(ids.size()), hidden_.data(),
                  hasLogits() ? logits_.data() : nullptr, memory_.scratch(),
                  memory_.stream());
}

} // namespace tfm::rt
