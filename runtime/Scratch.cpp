//===- Scratch.cpp - The entries' scratch buffer ------------------------===//
#include "runtime/Scratch.h"

#include <algorithm>

namespace tfm::rt {

bool allocateScratch(const tfm_model_info &info, ScratchBuffer &scratch,
                     std::string &error) {
  // aligned_alloc wants a size that is a multiple of the alignment, and
  // a non-zero one.
  uint64_t alignment = std::max<uint64_t>(info.scratch_alignment, 1);
  uint64_t bytes = std::max<uint64_t>(
      (info.scratch_bytes + alignment - 1) / alignment * alignment, alignment);
  scratch.reset(static_cast<uint8_t *>(std::aligned_alloc(alignment, bytes)));
  if (!scratch) {
    error = "error: cannot allocate " + std::to_string(bytes) +
            " bytes of scratch for the model's intermediates";
    return false;
  }
  return true;
}

} // namespace tfm::rt
