//===- ModelInfoFields.h - tfm_model_info, field by field -------*- C++ -*-===//
//
// The one description of `tfm_model_info` (runtime/ModelABI.h) that the
// host-object emitter writes `tfm_model` from: each field's name, offset
// and size, taken from the C struct itself. The static_asserts below prove
// at compile time that the table covers the struct: fields in order, each
// starting where the previous one ends, the last ending at its size. A
// field added to ModelABI.h without a row here, or a row in the wrong
// place, fails the build instead of shifting every later field.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BACKENDS_COMMON_MODELINFOFIELDS_H
#define TFMC_COMPILER_BACKENDS_COMMON_MODELINFOFIELDS_H

#include "runtime/ModelABI.h"

#include <cstddef>
#include <cstdint>
#include <iterator>

namespace tfmc {

/// One field of tfm_model_info.
struct ModelInfoField {
  const char *name;
  size_t offset;
  size_t size; ///< 4 (uint32_t) or 8 (uint64_t)
};

#define TFMC_MODEL_INFO_FIELD(field)                                           \
  ModelInfoField {                                                             \
    #field, offsetof(tfm_model_info, field), sizeof(tfm_model_info::field)     \
  }

/// Every field of tfm_model_info, in declaration order.
inline constexpr ModelInfoField kModelInfoFields[] = {
    TFMC_MODEL_INFO_FIELD(abi_version),
    TFMC_MODEL_INFO_FIELD(vocab_size),
    TFMC_MODEL_INFO_FIELD(context_length),
    TFMC_MODEL_INFO_FIELD(prefill_chunk),
    TFMC_MODEL_INFO_FIELD(weights_bytes),
    TFMC_MODEL_INFO_FIELD(cache_bytes),
    TFMC_MODEL_INFO_FIELD(weights_hash),
    TFMC_MODEL_INFO_FIELD(scratch_bytes),
    TFMC_MODEL_INFO_FIELD(scratch_alignment),
    TFMC_MODEL_INFO_FIELD(kind),
    TFMC_MODEL_INFO_FIELD(hidden_size),
    TFMC_MODEL_INFO_FIELD(encode_logits),
    TFMC_MODEL_INFO_FIELD(cache_element_bytes),
    TFMC_MODEL_INFO_FIELD(decoder_start_token),
    TFMC_MODEL_INFO_FIELD(device),
    TFMC_MODEL_INFO_FIELD(weights_alignment),
};

#undef TFMC_MODEL_INFO_FIELD

/// Whether the table tiles the struct: no gap (a missing field or
/// padding), no overlap, every field a uint32_t or uint64_t on its natural
/// alignment, nothing after the last.
constexpr bool modelInfoFieldsTileTheStruct() {
  size_t end = 0;
  for (const ModelInfoField &field : kModelInfoFields) {
    if (field.offset != end || (field.size != 4 && field.size != 8) ||
        field.offset % field.size != 0)
      return false;
    end = field.offset + field.size;
  }
  return end == sizeof(tfm_model_info);
}

static_assert(modelInfoFieldsTileTheStruct(),
              "kModelInfoFields must list every field of tfm_model_info "
              "(runtime/ModelABI.h) in order, and the struct must have no "
              "padding");
// A new field is a new ABI: this fails until both are updated together.
static_assert(std::size(kModelInfoFields) == 16 && TFM_ABI_VERSION == 8,
              "tfm_model_info changed: bump TFM_ABI_VERSION, then update "
              "this check");

} // namespace tfmc

#endif // TFMC_COMPILER_BACKENDS_COMMON_MODELINFOFIELDS_H
