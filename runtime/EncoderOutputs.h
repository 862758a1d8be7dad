//===- EncoderOutputs.h - An encoder's outputs as embeddings, fill-mask ---===//
//
// What the executable's --embed and fill-mask (runtime/Encode.cpp) and the C
// library's tfmc_embed and tfmc_fill_mask (runtime/ModelLibrary.cpp) make of
// an encode call's hidden states and logits: one definition, so the two
// give the same vectors and the same predictions.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_ENCODEROUTPUTS_H
#define TFMC_RUNTIME_ENCODEROUTPUTS_H

#include "runtime/model/EncoderRunner.h"

#include <string>
#include <vector>

namespace tfm::rt {

/// The pooling modes, sentence-transformers' names, in the order of the C
/// API's tfmc_pooling (runtime/ModelLibrary.h); --pooling takes them.
inline constexpr const char *kPoolingModes[] = {"mean", "cls", "max",
                                                "mean_sqrt_len", "last"};
inline constexpr int kPoolingModeCount =
    sizeof(kPoolingModes) / sizeof(*kPoolingModes);

/// The final hidden states of the first `count` positions of the last
/// encode pooled into one vector: "cls" the first row, "last" the last,
/// "max" the largest value of each feature, "mean" their mean and
/// "mean_sqrt_len" their sum divided by sqrt(count), as
/// sentence-transformers' Pooling modes (kPoolingModes); with
/// `normalize`, divided by max(||x||, 1e-12), as its Normalize module.
std::vector<double> poolHiddenStates(const EncoderRunner &runner, int count,
                                     const std::string &pooling,
                                     bool normalize);

/// The `k` ids of `logits` (`vocab` of them) with the largest values,
/// largest first; the lower id first among equal values.
std::vector<int> topLogits(const float *logits, int vocab, int k);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_ENCODEROUTPUTS_H
