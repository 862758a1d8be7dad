//===- Gguf.cpp - LLaMA (and Mixtral) in GGUF files -----------------------===//
//
// Metadata keys `llama.*` and llama.cpp's tensor names (models/GgufLayout.h).
// llama.cpp's converter permutes Q and K for its interleaved RoPE, so GGUF
// rotates adjacent pairs. Mixtral is a `llama` with `llama.expert_count`
// experts (`blk.N.ffn_gate_inp` routes to `blk.N.ffn_*_exps`).
//
//===----------------------------------------------------------------------===//
#include "models/GgufLayout.h"
#include "models/llama/Llama.h"

using namespace tfmc;

llvm::Expected<DecoderConfig>
tfmc::llama::readGgufConfig(const Checkpoint &file) {
  DecoderConfig c = architecture(RopeLayout::Interleaved);
  if (auto err = readGgufDecoderConfig(file, "llama", c))
    return std::move(err);
  return c;
}

llvm::Expected<WeightMap>
tfmc::llama::mapGgufWeights(const Checkpoint &file,
                            const DecoderConfig &config) {
  return mapGgufDecoderWeights(file, config);
}
