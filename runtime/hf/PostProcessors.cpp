//===- PostProcessors.cpp - tokenizer.json "post_processor" components ----===//
//
// TemplateProcessing (its "single" template: special tokens by the ids its
// special_tokens map gives, and $A), BertProcessing and RobertaProcessing
// ([CLS] $A [SEP] / <s> $A </s>), ByteLevel (offsets only: no ids) and
// Sequence. Pair templates are not needed: a prompt is one sequence.
//
//===----------------------------------------------------------------------===//
#include "runtime/hf/Components.h"

#include <cstdint>

namespace tfm::rt::hf {

namespace {

/// A single-sequence template: ids before and after the sequence.
class AroundProcessor : public PostProcessor {
public:
  AroundProcessor(std::vector<int> before, std::vector<int> after,
                  std::string path)
      : before_(std::move(before)), after_(std::move(after)),
        path_(std::move(path)) {}

  void process(std::vector<int> &ids, bool addSpecialTokens) const override {
    if (!addSpecialTokens)
      return;
    ids.insert(ids.begin(), before_.begin(), before_.end());
    ids.insert(ids.end(), after_.begin(), after_.end());
  }

  bool validate(const Vocabulary &vocabulary,
                std::string &error) const override {
    for (const auto *ids : {&before_, &after_})
      for (int id : *ids)
        if (!vocabulary.token(id)) {
          error = "'" + path_ + "' adds token id " + std::to_string(id) +
                  ", which is not in the vocabulary of " +
                  std::to_string(vocabulary.size()) + " ids";
          return false;
        }
    return true;
  }

private:
  std::vector<int> before_, after_;
  std::string path_;
};

class NoOpProcessor : public PostProcessor {
public:
  void process(std::vector<int> &, bool) const override {}
  bool validate(const Vocabulary &, std::string &) const override {
    return true;
  }
};

class SequenceProcessor : public PostProcessor {
public:
  explicit SequenceProcessor(std::vector<std::unique_ptr<PostProcessor>> s)
      : steps_(std::move(s)) {}
  void process(std::vector<int> &ids, bool addSpecialTokens) const override {
    for (const auto &step : steps_)
      step->process(ids, addSpecialTokens);
  }
  bool validate(const Vocabulary &vocabulary,
                std::string &error) const override {
    for (const auto &step : steps_)
      if (!step->validate(vocabulary, error))
        return false;
    return true;
  }

private:
  std::vector<std::unique_ptr<PostProcessor>> steps_;
};

/// The ids of a TemplateProcessing special token (its special_tokens entry).
bool templateSpecialIds(const JsonReader &reader, const std::string &name,
                        std::vector<int> &ids, std::string &error) {
  const JsonValue *specials = reader.get("special_tokens");
  const JsonValue *entry = specials ? specials->find(name) : nullptr;
  std::string where = reader.pathOf("special_tokens") + "." + name;
  if (!entry) {
    error = "'" + reader.pathOf("single") + "' uses special token '" + name +
            "', which '" + reader.pathOf("special_tokens") + "' lacks";
    return false;
  }
  const JsonValue *list;
  JsonReader entryReader(*entry, where);
  if (!entryReader.expectObject(error) ||
      !entryReader.readArray("ids", list, error, /*required=*/true))
    return false;
  for (const JsonValue &id : list->array) {
    if (id.kind != JsonValue::Kind::Number || !id.isInteger || id.integer < 0 ||
        id.integer > INT32_MAX) {
      error = "'" + entryReader.pathOf("ids") + "' must hold token ids";
      return false;
    }
    ids.push_back(static_cast<int>(id.integer));
  }
  return true;
}

std::unique_ptr<PostProcessor> createTemplate(const JsonReader &reader,
                                              std::string &error) {
  const JsonValue *single;
  if (!reader.readArray("single", single, error, /*required=*/true))
    return nullptr;
  std::vector<int> before, after;
  bool seenSequence = false;
  for (size_t i = 0; i < single->array.size(); ++i) {
    std::string where = reader.pathOf("single") + "[" + std::to_string(i) + "]";
    const JsonValue &item = single->array[i];
    const JsonValue *special = item.find("SpecialToken");
    const JsonValue *sequence = item.find("Sequence");
    std::string id;
    if (special) {
      if (!JsonReader(*special, where + ".SpecialToken")
               .readString("id", id, error, /*required=*/true) ||
          !templateSpecialIds(reader, id, seenSequence ? after : before, error))
        return nullptr;
    } else if (sequence) {
      if (!JsonReader(*sequence, where + ".Sequence")
               .readString("id", id, error, /*required=*/true))
        return nullptr;
      if (id != "A" || seenSequence) {
        error = "'" + where + "': a single-sequence template holds $A once";
        return nullptr;
      }
      seenSequence = true;
    } else {
      error = "'" + where + "' must be a SpecialToken or a Sequence";
      return nullptr;
    }
  }
  if (!seenSequence) {
    error = "'" + reader.pathOf("single") + "' has no $A";
    return nullptr;
  }
  return std::make_unique<AroundProcessor>(before, after, reader.path());
}

/// BertProcessing/RobertaProcessing's "cls"/"sep": ["[CLS]", 101].
bool readTokenPair(const JsonReader &reader, std::string_view key, int &id,
                   std::string &error) {
  const JsonValue *pair = reader.get(key);
  if (!pair || pair->kind != JsonValue::Kind::Array ||
      pair->array.size() != 2 ||
      pair->array[0].kind != JsonValue::Kind::String ||
      !pair->array[1].isInteger || pair->array[1].integer < 0 ||
      pair->array[1].integer > INT32_MAX) {
    error = "'" + reader.pathOf(key) + "' must be [token, id]";
    return false;
  }
  id = static_cast<int>(pair->array[1].integer);
  return true;
}

} // namespace

std::unique_ptr<PostProcessor> createBosEosProcessor(int bos, int eos) {
  std::vector<int> before, after;
  if (bos >= 0)
    before.push_back(bos);
  if (eos >= 0)
    after.push_back(eos);
  return std::make_unique<AroundProcessor>(before, after,
                                           "tokenizer_config.json");
}

std::unique_ptr<PostProcessor> createPostProcessor(const JsonValue &config,
                                                   const std::string &path,
                                                   std::string &error) {
  JsonReader reader(config, path);
  std::string type;
  if (!readType(reader, type, error))
    return nullptr;
  if (type == "TemplateProcessing")
    return createTemplate(reader, error);
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    int cls, sep;
    if (!readTokenPair(reader, "cls", cls, error) ||
        !readTokenPair(reader, "sep", sep, error))
      return nullptr;
    return std::make_unique<AroundProcessor>(std::vector<int>{cls},
                                             std::vector<int>{sep}, path);
  }
  if (type == "ByteLevel")
    return std::make_unique<NoOpProcessor>();
  if (type == "Sequence") {
    std::vector<std::unique_ptr<PostProcessor>> steps;
    if (!createSteps(reader, "processors", createPostProcessor, steps, error))
      return nullptr;
    return std::make_unique<SequenceProcessor>(std::move(steps));
  }
  error = unsupportedType("post_processor", type, path);
  return nullptr;
}

} // namespace tfm::rt::hf
