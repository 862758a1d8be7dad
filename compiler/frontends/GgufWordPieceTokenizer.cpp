//===- GgufWordPieceTokenizer.cpp - GGUF's BERT WordPiece vocabularies ----===//
//
// llama.cpp stores a BERT WordPiece tokenizer as the `bert` tokenizer model:
// the vocabulary in "phantom space" form (a word-initial piece "▁the", a
// continuation piece "##ing" as "ing", control tokens such as [CLS] as they
// are), one token type per token, and the ids of [UNK], [CLS], [SEP],
// [MASK] and [PAD]. The file records nothing else of the tokenizer.json it
// came from, so this reader writes back the one BERT's uncased tokenizers
// use (BertNormalizer lower-casing and stripping accents, BertPreTokenizer,
// WordPiece with "##" continuations, [CLS] $A [SEP]) and runs it in the
// runtime's "hf" kind, as GgufBpeTokenizer.cpp does for byte-level BPE.
// llama.cpp's own WordPiece always lower-cases too: a GGUF carries no
// cased BERT tokenizer.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Tokenizers.h"

#include "compiler/frontends/Gguf.h"
#include "compiler/frontends/GgufTokenizerSupport.h"

#include "llvm/Support/JSON.h"

using namespace tfmc;
using namespace tfmc::frontends;

namespace {

/// U+2581, which marks a word-initial piece.
constexpr llvm::StringLiteral kPhantomSpace = "\xE2\x96\x81";

/// The piece as the tokenizer.json had it: "▁the" -> "the", "ing" ->
/// "##ing".
std::string wordPiece(llvm::StringRef phantom) {
  if (phantom.consume_front(kPhantomSpace))
    return phantom.str();
  return "##" + phantom.str();
}

} // namespace

llvm::Expected<TokenizerSpec>
tfmc::frontends::readGgufWordPieceTokenizer(const GgufFile &file) {
  auto tokens = file.array("tokenizer.ggml.tokens", kGgufString);
  if (!tokens)
    return tokens.takeError();
  std::vector<std::string> texts;
  texts.reserve((*tokens)->count);
  (*tokens)->forEachElement(
      [&](const GgufValue &token) { texts.push_back(token.string.str()); });
  auto types = readGgufTokenTypes(file, texts.size());
  if (!types)
    return types.takeError();

  // The special tokens' ids, which the file must give (no id is BERT's by
  // default).
  struct Special {
    const char *key;
    int64_t id = -1;
  };
  Special unknown{"tokenizer.ggml.unknown_token_id"},
      cls{"tokenizer.ggml.cls_token_id"},
      separator{"tokenizer.ggml.seperator_token_id"}, // llama.cpp's spelling
      mask{"tokenizer.ggml.mask_token_id"};
  for (Special *special : {&unknown, &cls, &separator, &mask}) {
    auto id = file.integer(special->key);
    if (!id)
      return id.takeError();
    if (*id < 0 || uint64_t(*id) >= texts.size())
      return ggufMetadataError(file, special->key,
                               "is " + llvm::Twine(*id) +
                                   ", not a token id (the vocabulary has " +
                                   llvm::Twine(texts.size()) + " tokens)");
    special->id = *id;
  }

  // Control tokens are special added tokens, user-defined ones added
  // tokens; every other piece is WordPiece's (the first id of a piece
  // wins, as only one can be looked up).
  llvm::json::Object vocab;
  llvm::json::Array added;
  for (size_t id = 0; id < texts.size(); ++id) {
    int64_t type = (*types)[id];
    if (type != kTokenControl)
      texts[id] = wordPiece(texts[id]);
    const std::string &text = texts[id];
    if (type == kTokenControl || type == kTokenUserDefined)
      added.push_back(llvm::json::Object{{"id", int64_t(id)},
                                         {"content", text},
                                         {"single_word", false},
                                         {"lstrip", false},
                                         {"rstrip", false},
                                         {"normalized", false},
                                         {"special", type == kTokenControl}});
    if (!vocab.get(text))
      vocab[text] = int64_t(id);
  }
  const std::string &unknownText = texts[unknown.id];
  auto specialEntry = [&](const Special &special) {
    const std::string &text = texts[special.id];
    return llvm::json::Object{{"id", text},
                              {"ids", llvm::json::Array{special.id}},
                              {"tokens", llvm::json::Array{text}}};
  };
  auto piece = [](const char *id, int64_t typeId) {
    return llvm::json::Object{
        {"Sequence", llvm::json::Object{{"id", id}, {"type_id", typeId}}}};
  };
  auto token = [&](const Special &special, int64_t typeId) {
    return llvm::json::Object{
        {"SpecialToken",
         llvm::json::Object{{"id", texts[special.id]}, {"type_id", typeId}}}};
  };
  llvm::json::Object specials{{texts[cls.id], specialEntry(cls)},
                              {texts[separator.id], specialEntry(separator)}};
  llvm::json::Object postProcessor{
      {"type", "TemplateProcessing"},
      {"single",
       llvm::json::Array{token(cls, 0), piece("A", 0), token(separator, 0)}},
      {"pair",
       llvm::json::Array{token(cls, 0), piece("A", 0), token(separator, 0),
                         piece("B", 1), token(separator, 1)}},
      {"special_tokens", std::move(specials)}};
  llvm::json::Object model{{"type", "WordPiece"},
                           {"unk_token", unknownText},
                           {"continuing_subword_prefix", "##"},
                           {"max_input_chars_per_word", 100},
                           {"vocab", std::move(vocab)}};
  llvm::json::Object tokenizerJson{
      {"version", "1.0"},
      {"added_tokens", std::move(added)},
      {"normalizer", llvm::json::Object{{"type", "BertNormalizer"},
                                        {"clean_text", true},
                                        {"handle_chinese_chars", true},
                                        {"strip_accents", nullptr},
                                        {"lowercase", true}}},
      {"pre_tokenizer", llvm::json::Object{{"type", "BertPreTokenizer"}}},
      {"post_processor", std::move(postProcessor)},
      {"decoder", llvm::json::Object{{"type", "WordPiece"},
                                     {"prefix", "##"},
                                     {"cleanup", true}}},
      {"model", std::move(model)}};
  llvm::json::Object config{{"clean_up_tokenization_spaces", true},
                            {"mask_token", texts[mask.id]}};

  // An encoder generates nothing: no BOS or EOS of its own; [CLS] and
  // [SEP] come from the post-processor.
  return hfTokenizerFromJson(file, "the WordPiece vocabulary",
                             std::move(tokenizerJson), std::move(config),
                             /*bos=*/-1, /*eos=*/-1);
}
