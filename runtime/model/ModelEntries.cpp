//===- ModelEntries.cpp - The entry points of a compiled model ------------===//
#include "runtime/model/ModelEntries.h"

// Each kind of model defines its own entries (tfm_model.kind): the
// references are weak, and a missing one reads as null.
#pragma weak tfm_prefill
#pragma weak tfm_decode
#pragma weak tfm_encode
#pragma weak tfm_seq2seq_encode
#pragma weak tfm_seq2seq_prefill
#pragma weak tfm_seq2seq_decode

namespace tfm::rt {

ModelEntries linkedEntries() {
  ModelEntries entries;
  entries.prefill = &tfm_prefill;
  entries.decode = &tfm_decode;
  entries.encode = &tfm_encode;
  entries.seq2seqEncode = &tfm_seq2seq_encode;
  entries.seq2seqPrefill = &tfm_seq2seq_prefill;
  entries.seq2seqDecode = &tfm_seq2seq_decode;
  return entries;
}

bool checkEntries(const tfm_model_info &info, const ModelEntries &entries,
                  std::string &error) {
  const char *missing = nullptr;
  switch (info.kind) {
  case TFM_KIND_DECODER:
    missing = !entries.prefill  ? "tfm_prefill"
              : !entries.decode ? "tfm_decode"
                                : nullptr;
    break;
  case TFM_KIND_ENCODER:
    missing = !entries.encode ? "tfm_encode" : nullptr;
    break;
  case TFM_KIND_ENCODER_DECODER:
    missing = !entries.seq2seqEncode    ? "tfm_seq2seq_encode"
              : !entries.seq2seqPrefill ? "tfm_seq2seq_prefill"
              : !entries.seq2seqDecode  ? "tfm_seq2seq_decode"
                                        : nullptr;
    break;
  default:
    error = "error: the compiled model is of kind " +
            std::to_string(info.kind) +
            ", which this runtime does not know; rebuild with a matching tfmc";
    return false;
  }
  if (!missing)
    return true;
  error = std::string("error: the compiled model of kind ") +
          std::to_string(info.kind) + " does not define " + missing;
  return false;
}

} // namespace tfm::rt
