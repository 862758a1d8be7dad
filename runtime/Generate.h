//===- Generate.h - Drive the compiled model: generation, bench, dumps ----===//
//
// The three run modes of a produced decoder (or encoder-decoder) over its
// ModelRunner (runtime/model/), which owns the model's buffers and calls
// its entries.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_GENERATE_H
#define TFMC_RUNTIME_GENERATE_H

#include "runtime/Cli.h"
#include "runtime/GenerationSettings.h"
#include "runtime/model/ModelRunner.h"

namespace tfm::rt {

class Tokenizer;

/// Text generation: prints the prompt, then streams sampled pieces (an
/// encoder-decoder encodes the prompt and streams the decoder's text from
/// decoder_start_token). Returns the process exit code; errors go to
/// stderr.
/// Generation ends at any of `generation`'s stop ids, and samples as it
/// says where `options` give no sampling flag.
int runGenerate(ModelRunner &runner, const Tokenizer &tokenizer, int bos,
                int eos, const ModelGeneration &generation,
                const CliOptions &options);

/// --bench: prints human-readable lines, then a JSON object as the last line.
int runBench(ModelRunner &runner, const CliOptions &options, int threads);

/// --dump-logits: writes float32 [n][vocab] for the given ids.
int runDumpLogits(ModelRunner &runner, const CliOptions &options);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_GENERATE_H
