//===- Generation.h - Stop ids, sampling and pooling from model files
//------===//
#ifndef TFMC_COMPILER_FRONTENDS_GENERATION_H
#define TFMC_COMPILER_FRONTENDS_GENERATION_H

#include "compiler/frontends/Gguf.h"
#include "compiler/spec/GenerationSpec.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace tfmc::frontends {

/// How a Hugging Face model in `directory` generates: every id of
/// config.json's `eos_token_id` (an integer or a list) and of
/// generation_config.json's besides `eos`, the tokenizer's, and the latter's
/// sampling fields. Ids must lie in [0, vocabSize).
llvm::Expected<GenerationSpec>
readHfGeneration(const std::string &directory, const llvm::json::Object &config,
                 int eos, int64_t vocabSize);

/// The end-of-turn and end-of-message ids of a GGUF file
/// (`tokenizer.ggml.eot_token_id`, `tokenizer.ggml.eom_token_id`; llama.cpp
/// ends generation at them as at EOS) besides `eos`.
llvm::Expected<GenerationSpec> readGgufGeneration(const GgufFile &file, int eos,
                                                  int64_t vocabSize);

/// A sentence-transformers model's pooling and normalisation: its
/// modules.json names a Pooling module (whose config.json sets one
/// `pooling_mode_*`) and possibly a Normalize module. None when the
/// directory has no modules.json.
llvm::Expected<std::optional<EmbeddingSpec>>
readSentenceTransformers(const std::string &directory);

} // namespace tfmc::frontends

#endif // TFMC_COMPILER_FRONTENDS_GENERATION_H
