//===- ModelEntries.h - The entry points of a compiled model ----*- C++ -*-===//
//
// An object defines the entries of its kind only (runtime/ModelABI.h): the
// runners call them through this table, which the program fills from the
// entries it links (linkedEntries) and a test from its own functions.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_MODEL_MODELENTRIES_H
#define TFMC_RUNTIME_MODEL_MODELENTRIES_H

#include "runtime/ModelABI.h"

#include <string>

namespace tfm::rt {

/// The ABI entries, null where the object does not define one.
struct ModelEntries {
  decltype(&tfm_prefill) prefill = nullptr;
  decltype(&tfm_decode) decode = nullptr;
  decltype(&tfm_encode) encode = nullptr;
  decltype(&tfm_seq2seq_encode) seq2seqEncode = nullptr;
  decltype(&tfm_seq2seq_prefill) seq2seqPrefill = nullptr;
  decltype(&tfm_seq2seq_decode) seq2seqDecode = nullptr;
};

/// The entries of the compiled model linked into this program.
ModelEntries linkedEntries();

/// False, with `error` set, when `entries` lacks one that a model of
/// `info.kind` needs (or the kind is unknown).
bool checkEntries(const tfm_model_info &info, const ModelEntries &entries,
                  std::string &error);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_MODEL_MODELENTRIES_H
