//===- SafetensorsFuzzer.cpp - Fuzz safetensors files and shard indexes ---===//
//
// Input: one model.safetensors file, or a sharded checkpoint: a
// model.safetensors.index.json and up to three shards, as parts (see
// FuzzSupport.h). The shards are written as shard1.safetensors,
// shard2.safetensors, ... for the index to name. Opens the checkpoint as the
// Hugging Face frontend does and reads every tensor's bytes.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Safetensors.h"
#include "test/fuzz/FuzzSupport.h"

#include "llvm/Support/Error.h"

using namespace tfmc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<std::string_view> parts = tfm::fuzz::splitParts(data, size, 4);
  static const char *const kShards[] = {
      "shard1.safetensors", "shard2.safetensors", "shard3.safetensors"};
  tfm::fuzz::removeScratch("model.safetensors");
  tfm::fuzz::removeScratch("model.safetensors.index.json");
  for (const char *shard : kShards)
    tfm::fuzz::removeScratch(shard);
  bool sharded = parts.size() > 1 || (size > 0 && data[0] == '{');
  if (sharded) {
    tfm::fuzz::writeScratch("model.safetensors.index.json", parts[0]);
    for (size_t i = 1; i < parts.size(); ++i)
      tfm::fuzz::writeScratch(kShards[i - 1], parts[i]);
  } else {
    tfm::fuzz::writeScratch("model.safetensors", parts[0]);
  }
  auto table = frontends::openSafetensorsCheckpoint(tfm::fuzz::scratchDir());
  if (!table) {
    llvm::consumeError(table.takeError());
    return 0;
  }
  for (const TensorEntry &entry : table->entries())
    if (entry.unreadable.empty())
      (void)tfm::fuzz::touchBytes(entry.view.data(), entry.view.bytes());
  return 0;
}
