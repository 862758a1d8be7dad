//===- EncoderOutputs.cpp - An encoder's outputs as embeddings, fill-mask -===//
#include "runtime/EncoderOutputs.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tfm::rt {

namespace {

std::vector<double> pool(const EncoderRunner &runner, int count,
                         const std::string &pooling) {
  int dim = runner.hiddenSize();
  std::vector<double> pooled(dim, 0.0);
  if (pooling == "cls" || pooling == "last") {
    const float *row = runner.hidden(pooling == "cls" ? 0 : count - 1);
    std::copy(row, row + dim, pooled.begin());
    return pooled;
  }
  if (pooling == "max") {
    const float *first = runner.hidden(0);
    std::copy(first, first + dim, pooled.begin());
    for (int row = 1; row < count; ++row) {
      const float *hidden = runner.hidden(row);
      for (int i = 0; i < dim; ++i)
        pooled[i] = std::max<double>(pooled[i], hidden[i]);
    }
    return pooled;
  }
  for (int row = 0; row < count; ++row) {
    const float *hidden = runner.hidden(row);
    for (int i = 0; i < dim; ++i)
      pooled[i] += hidden[i];
  }
  double divisor =
      pooling == "mean_sqrt_len" ? std::sqrt(double(count)) : double(count);
  for (double &value : pooled)
    value /= divisor;
  return pooled;
}

} // namespace

std::vector<double> poolHiddenStates(const EncoderRunner &runner, int count,
                                     const std::string &pooling,
                                     bool normalize) {
  std::vector<double> pooled = pool(runner, count, pooling);
  if (!normalize)
    return pooled;
  double norm = 0;
  for (double value : pooled)
    norm += value * value;
  norm = std::max(std::sqrt(norm), 1e-12);
  for (double &value : pooled)
    value /= norm;
  return pooled;
}

std::vector<int> topLogits(const float *logits, int vocab, int k) {
  k = std::max(0, std::min(k, vocab));
  std::vector<int> order(vocab);
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(
      order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
        return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
      });
  order.resize(k);
  return order;
}

} // namespace tfm::rt
