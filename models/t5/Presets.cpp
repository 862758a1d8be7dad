//===- Presets.cpp - T5 presets and their Unigram tokenizer ---------------===//
//
// t5-tiny for tests: v1.1's blocks (gated GELU, untied head), a head size
// that is not d_model / heads (as in t5-small's d_kv), more decoder than
// encoder layers, and a maximum relative distance short enough that tests
// reach beyond it. It carries a small Unigram tokenizer of single
// characters, so that --prompt works.
//
//===----------------------------------------------------------------------===//
#include "models/t5/T5.h"

#include "runtime/Tokenizer.h"

#include "llvm/Support/JSON.h"

using namespace tfmc;

std::vector<Preset> tfmc::t5::presets() {
  DecoderConfig c = architecture();
  c.dim = 64;
  c.hiddenDim = 128;
  c.numLayers = 2;
  c.numDecoderLayers = 3;
  c.attention.numHeads = c.attention.numKVHeads = 4;
  c.attention.headDim = 8;
  c.attention.relativeBuckets = 16;
  c.attention.relativeMaxDistance = 24;
  c.mlp = MlpKind::GeGLU;
  c.tiedEmbeddings = false;
  c.vocabSize = 512;
  c.contextLength = 128;
  return {{"t5-tiny", c}};
}

/// <pad> </s> <unk> (T5's ids 0, 1, 2), the word boundary ▁, then each
/// printable ASCII character alone and after ▁: every text encodes, and
/// the post-processor appends </s> as T5's does.
TokenizerSpec tfmc::t5::presetTokenizer() {
  const std::string boundary = "\xE2\x96\x81"; // U+2581
  llvm::json::Array vocab;
  llvm::json::Array added;
  int64_t next = 0;
  for (const char *special : {"<pad>", "</s>", "<unk>"}) {
    added.push_back(llvm::json::Object{{"id", next},
                                       {"content", special},
                                       {"single_word", false},
                                       {"lstrip", false},
                                       {"rstrip", false},
                                       {"normalized", false},
                                       {"special", true}});
    vocab.push_back(llvm::json::Array{special, 0.0});
    ++next;
  }
  vocab.push_back(llvm::json::Array{boundary, -2.0});
  for (char ch = '!'; ch <= '~'; ++ch) {
    vocab.push_back(llvm::json::Array{boundary + std::string(1, ch), -3.0});
    vocab.push_back(llvm::json::Array{std::string(1, ch), -4.0});
  }
  llvm::json::Object metaspace{{"type", "Metaspace"},
                               {"replacement", boundary},
                               {"prepend_scheme", "always"},
                               {"split", true}};
  llvm::json::Object tokenizer{
      {"version", "1.0"},
      {"truncation", nullptr},
      {"padding", nullptr},
      {"added_tokens", std::move(added)},
      {"normalizer", nullptr},
      {"pre_tokenizer",
       llvm::json::Object{
           {"type", "Sequence"},
           {"pretokenizers",
            llvm::json::Array{llvm::json::Object{{"type", "WhitespaceSplit"}},
                              llvm::json::Object(metaspace)}}}},
      {"post_processor",
       llvm::json::Object{
           {"type", "TemplateProcessing"},
           {"single",
            llvm::json::Array{
                llvm::json::Object{
                    {"Sequence",
                     llvm::json::Object{{"id", "A"}, {"type_id", 0}}}},
                llvm::json::Object{
                    {"SpecialToken",
                     llvm::json::Object{{"id", "</s>"}, {"type_id", 0}}}}}},
           {"pair", llvm::json::Array{}},
           {"special_tokens",
            llvm::json::Object{
                {"</s>",
                 llvm::json::Object{{"id", "</s>"},
                                    {"ids", llvm::json::Array{1}},
                                    {"tokens", llvm::json::Array{"</s>"}}}}}}}},
      {"decoder", llvm::json::Object(metaspace)},
      {"model", llvm::json::Object{{"type", "Unigram"},
                                   {"unk_id", 2},
                                   {"byte_fallback", false},
                                   {"vocab", std::move(vocab)}}}};
  std::string json;
  llvm::raw_string_ostream(json) << llvm::json::Value(std::move(tokenizer));
  TokenizerSpec spec;
  std::string error;
  if (!tfm::rt::hfBlobFromJson(json, "", spec.blob, error))
    llvm::report_fatal_error(llvm::Twine("the t5 preset tokenizer: ") + error);
  spec.kind = "hf";
  spec.eos = 1;
  spec.pad = 0;
  return spec;
}
