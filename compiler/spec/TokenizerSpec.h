//===- TokenizerSpec.h - The tokenizer a produced executable carries ------===//
#ifndef TFMC_COMPILER_SPEC_TOKENIZERSPEC_H
#define TFMC_COMPILER_SPEC_TOKENIZERSPEC_H

#include <string>

namespace tfmc {

struct TokenizerSpec {
  std::string kind; ///< "spm" or "gpt2-bpe" (runtime/Tokenizer.h); empty: none
  std::string blob; ///< the runtime's tokenizer blob of that kind
  int bos = -1;
  int eos = -1;
  /// The padding id the model's files name (-1: none); --info shows it.
  int pad = -1;
};

/// Beginning- and end-of-sequence ids; -1 when a model has none.
struct SpecialTokens {
  int bos = -1;
  int eos = -1;
};

} // namespace tfmc

#endif // TFMC_COMPILER_SPEC_TOKENIZERSPEC_H
