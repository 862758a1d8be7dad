//===- Presets.cpp - BERT presets and their WordPiece tokenizer -----------===//
//
// bert-tiny for tests; bert-base has the shape of bert-base-uncased, a
// benchmark shape. Both carry a small WordPiece tokenizer of single
// characters (the vocabulary's first ids), so that --prompt works.
//
//===----------------------------------------------------------------------===//
#include "models/bert/Bert.h"

#include "runtime/Tokenizer.h"

#include "llvm/Support/JSON.h"

using namespace tfmc;

std::vector<Preset> tfmc::bert::presets() {
  struct Shape {
    const char *name;
    int64_t dim, hidden, layers, heads, vocab, context;
  };
  static const Shape kShapes[] = {
      {"bert-tiny", 64, 256, 2, 4, 512, 128},
      {"bert-base", 768, 3072, 12, 12, 30522, 512},
  };
  std::vector<Preset> presets;
  for (const Shape &shape : kShapes) {
    DecoderConfig c = architecture();
    c.dim = shape.dim;
    c.hiddenDim = shape.hidden;
    c.numLayers = shape.layers;
    c.attention.numHeads = c.attention.numKVHeads = shape.heads;
    c.attention.headDim = shape.dim / shape.heads;
    c.vocabSize = shape.vocab;
    c.contextLength = shape.context;
    presets.push_back({shape.name, c});
  }
  return presets;
}

/// [PAD] [UNK] [CLS] [SEP] [MASK], then each printable ASCII character
/// alone and as a continuation ("##a"): every text encodes, one piece per
/// character, and [CLS] ... [SEP] surround it.
TokenizerSpec tfmc::bert::presetTokenizer() {
  llvm::json::Object vocab;
  llvm::json::Array added;
  int64_t next = 0;
  for (const char *special : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}) {
    added.push_back(llvm::json::Object{{"id", next},
                                       {"content", special},
                                       {"single_word", false},
                                       {"lstrip", false},
                                       {"rstrip", false},
                                       {"normalized", false},
                                       {"special", true}});
    vocab[special] = next++;
  }
  for (char ch = '!'; ch <= '~'; ++ch) {
    if (ch >= 'A' && ch <= 'Z')
      continue; // lower-cased by the normalizer
    vocab[std::string(1, ch)] = next++;
    vocab["##" + std::string(1, ch)] = next++;
  }
  auto special = [](const char *name, int64_t id) {
    return llvm::json::Object{{"id", name},
                              {"ids", llvm::json::Array{id}},
                              {"tokens", llvm::json::Array{name}}};
  };
  llvm::json::Object tokenizer{
      {"version", "1.0"},
      {"truncation", nullptr},
      {"padding", nullptr},
      {"added_tokens", std::move(added)},
      {"normalizer", llvm::json::Object{{"type", "BertNormalizer"},
                                        {"clean_text", true},
                                        {"handle_chinese_chars", true},
                                        {"strip_accents", nullptr},
                                        {"lowercase", true}}},
      {"pre_tokenizer", llvm::json::Object{{"type", "BertPreTokenizer"}}},
      {"post_processor",
       llvm::json::Object{
           {"type", "TemplateProcessing"},
           {"single",
            llvm::json::Array{
                llvm::json::Object{
                    {"SpecialToken",
                     llvm::json::Object{{"id", "[CLS]"}, {"type_id", 0}}}},
                llvm::json::Object{
                    {"Sequence",
                     llvm::json::Object{{"id", "A"}, {"type_id", 0}}}},
                llvm::json::Object{
                    {"SpecialToken",
                     llvm::json::Object{{"id", "[SEP]"}, {"type_id", 0}}}}}},
           {"pair", llvm::json::Array{}},
           {"special_tokens",
            llvm::json::Object{{"[CLS]", special("[CLS]", 2)},
                               {"[SEP]", special("[SEP]", 3)}}}}},
      {"decoder", llvm::json::Object{{"type", "WordPiece"},
                                     {"prefix", "##"},
                                     {"cleanup", true}}},
      {"model", llvm::json::Object{{"type", "WordPiece"},
                                   {"unk_token", "[UNK]"},
                                   {"continuing_subword_prefix", "##"},
                                   {"max_input_chars_per_word", 100},
                                   {"vocab", std::move(vocab)}}}};
  std::string json;
  llvm::raw_string_ostream(json) << llvm::json::Value(std::move(tokenizer));
  TokenizerSpec spec;
  std::string error;
  if (!tfm::rt::hfBlobFromJson(json, "", spec.blob, error))
    llvm::report_fatal_error(llvm::Twine("the bert preset tokenizer: ") +
                             error);
  spec.kind = "hf";
  spec.pad = 0; // [PAD], as BERT's config.json pad_token_id
  return spec;
}
