//===- Scratch.h - The entries' scratch buffer --------------------------===//
//
// Every entry of a compiled model keeps its intermediates in the caller's
// scratch (runtime/ModelABI.h): tfm_model_info gives its size and alignment.
// Each runner (and so each library context) owns one.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_SCRATCH_H
#define TFMC_RUNTIME_SCRATCH_H

#include "runtime/ModelABI.h"

#include <cstdlib>
#include <memory>
#include <string>

namespace tfm::rt {

struct FreeDeleter {
  void operator()(void *p) const { std::free(p); }
};

using ScratchBuffer = std::unique_ptr<uint8_t, FreeDeleter>;

/// Allocates `info`'s scratch (at least one alignment unit, so the pointer
/// is never null); false with a message when memory runs out.
bool allocateScratch(const tfm_model_info &info, ScratchBuffer &scratch,
                     std::string &error);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_SCRATCH_H
