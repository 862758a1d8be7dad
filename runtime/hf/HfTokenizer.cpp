//===- HfTokenizer.cpp - The "hf" tokenizer kind: a tokenizer.json --------===//
#include "runtime/hf/HfTokenizer.h"

#include "runtime/Unicode.h"

namespace tfm::rt::hf {

std::unique_ptr<HfTokenizer> HfTokenizer::create(std::string_view blob, int bos,
                                                 int eos, std::string &error) {
  std::string_view factsJson, tokenizerJson;
  if (!splitHfBlob(blob, factsJson, tokenizerJson, error))
    return nullptr;
  JsonValue factsValue;
  ConfigFacts facts;
  if (!parseJson(factsJson, factsValue, error) ||
      !readConfigFacts(factsValue, "tokenizer_config facts", facts, error)) {
    error = "hf tokenizer blob: " + error;
    return nullptr;
  }
  std::unique_ptr<HfTokenizer> tok(new HfTokenizer());
  if (!tok->load(tokenizerJson, facts, error))
    return nullptr;
  for (int id : {bos, eos}) {
    if (id >= tok->vocabSize()) {
      error = "special token id " + std::to_string(id) +
              " is outside the tokenizer's " +
              std::to_string(tok->vocabSize()) + " ids";
      return nullptr;
    }
  }
  return tok;
}

bool HfTokenizer::load(std::string_view tokenizerJson, const ConfigFacts &facts,
                       std::string &error) {
  JsonValue root;
  if (!parseJson(tokenizerJson, root, error)) {
    error = "tokenizer.json is not valid JSON: " + error;
    return false;
  }
  JsonReader reader(root, "");
  if (!reader.expectObject(error))
    return false;
  const JsonValue *model = reader.get("model");
  if (!model) {
    error = "tokenizer.json has no \"model\"";
    return false;
  }
  if (!(model_ = createModel(*model, "model", error)))
    return false;
  if (const JsonValue *config = reader.get("normalizer"))
    if (!(normalizer_ = createNormalizer(*config, "normalizer", error)))
      return false;
  if (const JsonValue *config = reader.get("pre_tokenizer"))
    if (!(preTokenizer_ = createPreTokenizer(*config, "pre_tokenizer", error)))
      return false;
  if (const JsonValue *config = reader.get("decoder"))
    if (!(decoder_ = createDecoder(*config, "decoder", error)))
      return false;
  if (preTokenizer_ && preTokenizer_->isByteLevel() &&
      !model_->checkByteLevelAlphabet(error))
    return false;
  if (!loadAddedTokens(reader.get("added_tokens"), error))
    return false;
  cleanUpSpaces_ = facts.cleanUpSpaces;
  return choosePostProcessor(root, facts, error);
}

bool HfTokenizer::loadAddedTokens(const JsonValue *list, std::string &error) {
  if (!readAddedTokens(list, "added_tokens", added_, error))
    return false;
  vocab_ = model_->vocabulary();
  for (size_t i = 0; i < added_.size(); ++i)
    if (!vocab_.addOrCheck(added_[i].content, added_[i].id, added_.size(),
                           "added_tokens[" + std::to_string(i) + "]", error))
      return false;
  special_.assign(vocab_.size(), false);
  std::string normalizeError;
  for (size_t i = 0; i < added_.size(); ++i) {
    const AddedToken &token = added_[i];
    special_[token.id] = special_[token.id] || token.special;
    addedContents_.insert(token.content);
    std::u32string content = unicode::toCodePoints(token.content);
    if (!token.normalized || !normalizer_) {
      rawMatcher_.add(content, static_cast<int>(i));
      continue;
    }
    if (!normalizer_->normalize(content, error)) {
      error = "added_tokens[" + std::to_string(i) + "]: " + error;
      return false;
    }
    normalizedMatcher_.add(content, static_cast<int>(i));
  }
  return true;
}

bool HfTokenizer::choosePostProcessor(const JsonValue &root,
                                      const ConfigFacts &facts,
                                      std::string &error) {
  if (facts.hasAddBos || facts.hasAddEos) {
    // transformers rebuilds the template from these (LlamaTokenizerFast).
    int ids[2] = {-1, -1};
    const std::pair<bool, const std::string *> wanted[2] = {
        {facts.addBos, &facts.bosToken}, {facts.addEos, &facts.eosToken}};
    const char *names[2] = {"bos_token", "eos_token"};
    for (int k = 0; k < 2; ++k) {
      if (!wanted[k].first)
        continue;
      ids[k] = vocab_.find(*wanted[k].second);
      if (ids[k] < 0) {
        error = std::string("tokenizer_config.json asks to add its ") +
                names[k] + " ('" + *wanted[k].second +
                "'), which is not a token of tokenizer.json";
        return false;
      }
    }
    postProcessor_ = createBosEosProcessor(ids[0], ids[1]);
  } else if (const JsonValue *config = root.find("post_processor");
             config && !config->isNull()) {
    if (!(postProcessor_ =
              createPostProcessor(*config, "post_processor", error)))
      return false;
  }
  return !postProcessor_ || postProcessor_->validate(vocab_, error);
}

//===-- Encoding ----------------------------------------------------------===//

bool HfTokenizer::encodeText(std::u32string text, bool atStart,
                             std::vector<int> &ids, std::string &error) const {
  if (normalizer_ && !normalizer_->normalize(text, error))
    return false;
  for (const Section &section : normalizedMatcher_.split(text, added_)) {
    if (section.token >= 0) {
      ids.push_back(added_[section.token].id);
      continue;
    }
    std::vector<PreToken> pieces{
        {text.substr(section.begin, section.end - section.begin),
         atStart && section.begin == 0}};
    if (preTokenizer_ && !preTokenizer_->preTokenize(pieces, error))
      return false;
    for (const PreToken &piece : pieces)
      model_->encode(piece.text, ids);
  }
  return true;
}

bool HfTokenizer::encode(std::string_view text, bool addSpecialTokens,
                         std::vector<int> &ids, std::string &error) const {
  ids.clear();
  std::u32string input = unicode::toCodePoints(text);
  for (const Section &section : rawMatcher_.split(input, added_)) {
    if (section.token >= 0) {
      ids.push_back(added_[section.token].id);
      continue;
    }
    if (!encodeText(input.substr(section.begin, section.end - section.begin),
                    section.begin == 0, ids, error)) {
      error = "cannot encode the text: " + error;
      return false;
    }
  }
  if (postProcessor_)
    postProcessor_->process(ids, addSpecialTokens);
  return true;
}

//===-- Decoding ----------------------------------------------------------===//

std::string HfTokenizer::tokenString(int id) const {
  const std::string *token = vocab_.token(id);
  return token ? *token : std::string();
}

std::string HfTokenizer::decodeIds(const std::vector<int> &ids,
                                   bool skipSpecialTokens) const {
  std::string text = decodeRaw(ids, skipSpecialTokens, /*streaming=*/false);
  return cleanUpSpaces_ ? cleanUpTokenization(text) : text;
}

std::string HfTokenizer::decodeRaw(const std::vector<int> &ids,
                                   bool skipSpecialTokens,
                                   bool streaming) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int id : ids) {
    const std::string *token = vocab_.token(id);
    if (token && !(skipSpecialTokens && isSpecial(id)))
      tokens.push_back(*token);
  }
  std::string text;
  if (decoder_) {
    DecodeContext context{&addedContents_, streaming};
    decoder_->decodeChain(tokens, context);
    for (const std::string &piece : tokens)
      text += piece;
  } else {
    for (size_t i = 0; i < tokens.size(); ++i)
      text += (i ? " " : "") + tokens[i];
  }
  return text;
}

std::string HfTokenizer::decode(int prev, int token) const {
  if (prev < 0)
    return decodeIds({token}, true);
  std::string before = decodeIds({prev}, true);
  std::string both = decodeIds({prev, token}, true);
  if (both.compare(0, before.size(), before) == 0)
    return both.substr(before.size());
  return decodeIds({token}, true);
}

namespace {

/// Streams HfTokenizer::decodeIds(ids, skip special tokens). It decodes a
/// small window of recent ids: the last id whose text is out and what came
/// after it. Text is printed once later ids cannot change it (it does not
/// end in an incomplete character); the window restarts at the newest id
/// whenever nothing is held back, so each step decodes a few ids. The
/// clean-up of spaces, when the tokenizer asks for it, runs on the printed
/// text as a stream of its own.
class HfDetokenizer : public Detokenizer {
public:
  explicit HfDetokenizer(const HfTokenizer &tok) : tok_(tok) {}

  std::string step(int id) override {
    if (tok_.isSpecial(id) || tok_.tokenString(id).empty())
      return std::string();
    window_.push_back(id);
    std::string text = tok_.decodeRaw(window_, true, /*streaming=*/true);
    std::string out;
    if (text.size() > printed_)
      out = text.substr(printed_);
    printed_ = std::max(printed_, text.size());
    if (text == tok_.decodeRaw(window_, true, /*streaming=*/false)) {
      window_.assign(1, id);
      printed_ = tok_.decodeRaw(window_, true, /*streaming=*/true).size();
    }
    return clean(out, /*last=*/false);
  }

  std::string finish() override {
    std::string text = tok_.decodeRaw(window_, true, /*streaming=*/false);
    std::string out = text.size() > printed_ ? text.substr(printed_) : "";
    window_.clear();
    printed_ = 0;
    return clean(out, /*last=*/true);
  }

private:
  std::string clean(const std::string &raw, bool last) {
    if (!tok_.cleansUpSpaces())
      return raw;
    std::string out = cleanUp_.push(raw);
    return last ? out + cleanUp_.finish() : out;
  }

  const HfTokenizer &tok_;
  std::vector<int> window_;
  size_t printed_ = 0;
  CleanUpStream cleanUp_;
};

} // namespace

std::unique_ptr<Detokenizer> HfTokenizer::detokenizer() const {
  return std::make_unique<HfDetokenizer>(*this);
}

} // namespace tfm::rt::hf
