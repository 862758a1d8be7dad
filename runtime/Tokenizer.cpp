//===- Tokenizer.cpp - Tokenizer construction by kind ---------------------===//
//
// Maps a package's "tokenizer.kind" to its implementation, and gives the
// kinds whose tokens print on their own ("spm", "gpt2-bpe") their streaming
// decoder.
//
//===----------------------------------------------------------------------===//
#include "runtime/Tokenizer.h"

#include "runtime/Gpt2Tokenizer.h"
#include "runtime/SpmTokenizer.h"
#include "runtime/hf/HfTokenizer.h"

namespace tfm::rt {

namespace {

/// Prints each id with Tokenizer::decode given its predecessor; the BOS id
/// prints nothing but still counts as the predecessor of the next token.
class PairwiseDetokenizer : public Detokenizer {
public:
  explicit PairwiseDetokenizer(const Tokenizer &tokenizer)
      : tokenizer_(tokenizer) {}
  std::string step(int id) override {
    int prev = prev_;
    prev_ = id;
    if (id == tokenizer_.beginOfSequence())
      return std::string();
    return tokenizer_.decode(prev, id);
  }
  std::string finish() override { return std::string(); }

private:
  const Tokenizer &tokenizer_;
  int prev_ = -1;
};

} // namespace

std::vector<int> Tokenizer::encode(std::string_view text,
                                   bool addSpecialTokens) const {
  std::vector<int> ids;
  std::string error;
  if (!encode(text, addSpecialTokens, ids, error))
    ids.clear();
  return ids;
}

std::unique_ptr<Detokenizer> Tokenizer::detokenizer() const {
  return std::make_unique<PairwiseDetokenizer>(*this);
}

std::unique_ptr<Tokenizer> loadTokenizer(std::string_view kind,
                                         std::string_view data, int bos,
                                         int eos, std::string &error) {
  if (kind == "spm")
    return SpmTokenizer::create(data, bos, error);
  if (kind == "gpt2-bpe")
    return Gpt2Tokenizer::create(data, bos, eos, error);
  if (kind == "hf") {
    auto tokenizer = hf::HfTokenizer::create(data, bos, eos, error);
    if (!tokenizer)
      error = "hf tokenizer: " + error;
    return tokenizer;
  }
  error = "unknown tokenizer kind '" + std::string(kind) +
          "' (expected 'spm', 'gpt2-bpe' or 'hf')";
  return nullptr;
}

} // namespace tfm::rt
