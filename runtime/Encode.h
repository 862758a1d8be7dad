//===- Encode.h - Drive a compiled encoder: fill-mask, embeddings ---------===//
//
// What an encoder's executable does over its EncoderRunner
// (runtime/model/): fill-mask predictions at [MASK] tokens, sentence
// embeddings (--embed), --dump-logits and --bench.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_ENCODE_H
#define TFMC_RUNTIME_ENCODE_H

#include "runtime/Cli.h"
#include "runtime/model/EncoderRunner.h"

#include <string_view>

namespace tfm::rt {

class Tokenizer;

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
/// --bench: encode calls of --prompt-tokens tokens; a JSON line last, which
/// says how many rows the entry those calls run computes (`encodeRows`, the
/// package's encode.rows).
int runEncoderBench(EncoderRunner &runner, const CliOptions &options,
                    int threads, std::string_view encodeRows);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_ENCODE_H
