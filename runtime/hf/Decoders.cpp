//===- Decoders.cpp - tokenizer.json "decoder" components -----------------===//
//
// ByteLevel, ByteFallback, Metaspace, WordPiece, Fuse, Strip, Replace,
// BPEDecoder and Sequence, as @huggingface/tokenizers (the project's
// reference) implements them: bytes become text as JavaScript's
// TextDecoder makes them (each maximal invalid part becomes one U+FFFD),
// byte-level decoding keeps added tokens as they are, and Metaspace turns
// every replacement character into a space and drops the first token's
// leading one. While streaming, bytes at the very end that later tokens may
// complete are held back instead (DecodeContext::streaming).
//
//===----------------------------------------------------------------------===//
#include "runtime/hf/Components.h"

#include "runtime/ByteLevel.h"
#include "runtime/Unicode.h"
#include "runtime/hf/Pattern.h"

namespace tfm::rt::hf {

namespace {

/// `bytes` as text; with `holdTail`, an incomplete final character is left
/// out rather than replaced.
std::string bytesToText(std::string_view bytes, bool holdTail) {
  if (holdTail)
    bytes.remove_suffix(unicode::incompleteUtf8Tail(bytes));
  return unicode::sanitizeUtf8(bytes);
}

bool isAdded(const DecodeContext &context, const std::string &token) {
  return context.addedTokens && context.addedTokens->count(token);
}

class ByteLevelDecoder : public Decoder {
public:
  void decodeChain(std::vector<std::string> &tokens,
                   const DecodeContext &context) const override {
    std::vector<std::string> out;
    std::string bytes;
    bool inRun = false;
    auto flush = [&](bool last) {
      if (inRun)
        out.push_back(bytesToText(bytes, last && context.streaming));
      bytes.clear();
      inRun = false;
    };
    for (const std::string &token : tokens) {
      if (isAdded(context, token)) {
        flush(false);
        out.push_back(token);
        continue;
      }
      inRun = true;
      appendBytes(token, bytes);
    }
    flush(true);
    tokens = std::move(out);
  }

private:
  /// The bytes a token spells; a token with a character outside the
  /// byte-level alphabet stands for its own UTF-8.
  static void appendBytes(const std::string &token, std::string &bytes) {
    std::u32string cps = unicode::toCodePoints(token);
    size_t start = bytes.size();
    for (char32_t cp : cps) {
      int byte = byteLevelByte(cp);
      if (byte < 0) {
        bytes.resize(start);
        bytes += token;
        return;
      }
      bytes += static_cast<char>(byte);
    }
  }
};

/// The byte of a "<0xXX>" token, or -1.
int fallbackByte(const std::string &token) {
  if (token.size() != 6 || token.compare(0, 3, "<0x") != 0 || token[5] != '>')
    return -1;
  int value = 0;
  for (int i = 3; i < 5; ++i) {
    char c = token[i];
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                       : -1;
    if (digit < 0)
      return -1;
    value = value * 16 + digit;
  }
  return value;
}

class ByteFallbackDecoder : public Decoder {
public:
  void decodeChain(std::vector<std::string> &tokens,
                   const DecodeContext &context) const override {
    std::vector<std::string> out;
    std::string bytes;
    for (size_t i = 0; i < tokens.size(); ++i) {
      int byte = fallbackByte(tokens[i]);
      if (byte >= 0) {
        bytes += static_cast<char>(byte);
        continue;
      }
      if (!bytes.empty())
        out.push_back(bytesToText(bytes, false));
      bytes.clear();
      out.push_back(std::move(tokens[i]));
    }
    if (!bytes.empty())
      out.push_back(bytesToText(bytes, context.streaming));
    tokens = std::move(out);
  }
};

class MetaspaceDecoder : public Decoder {
public:
  MetaspaceDecoder(std::string replacement, bool stripFirst)
      : replacement_(std::move(replacement)), stripFirst_(stripFirst) {}
  void decodeChain(std::vector<std::string> &tokens,
                   const DecodeContext &) const override {
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::string &token = tokens[i];
      std::string out;
      for (size_t at = 0; at < token.size();) {
        if (token.compare(at, replacement_.size(), replacement_) == 0) {
          out += ' ';
          at += replacement_.size();
        } else {
          out += token[at++];
        }
      }
      if (i == 0 && stripFirst_ && !out.empty() && out[0] == ' ')
        out.erase(0, 1);
      token = std::move(out);
    }
  }

private:
  std::string replacement_;
  bool stripFirst_;
};

class WordPieceDecoder : public Decoder {
public:
  WordPieceDecoder(std::string prefix, bool cleanup)
      : prefix_(std::move(prefix)), cleanup_(cleanup) {}
  void decodeChain(std::vector<std::string> &tokens,
                   const DecodeContext &) const override {
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::string &token = tokens[i];
      if (i > 0) {
        if (!prefix_.empty() && token.compare(0, prefix_.size(), prefix_) == 0)
          token.erase(0, prefix_.size());
        else
          token.insert(0, 1, ' ');
      }
      if (cleanup_)
        token = cleanUpTokenization(token);
    }
  }

private:
  std::string prefix_;
  bool cleanup_;
};

class FuseDecoder : public Decoder {
public:
  void decodeChain(std::vector<std::string> &tokens,
                   const DecodeContext &) const override {
    std::string joined;
    for (const std::string &token : tokens)
      joined += token;
    tokens.assign(1, std::move(joined));
  }
};

class StripDecoder : public Decoder {
public:
  StripDecoder(char32_t content, size_t start, size_t stop)
      : content_(content), start_(start), stop_(stop) {}
  void decodeChain(std::vector<std::string> &tokens,
                   const DecodeContext &) const override {
    for (std::string &token : tokens) {
      std::u32string cps = unicode::toCodePoints(token);
      size_t begin = 0, end = cps.size();
      while (begin < start_ && begin < end && cps[begin] == content_)
        ++begin;
      for (size_t cut = 0;
           cut < stop_ && end > begin && cps[end - 1] == content_; ++cut)
        --end;
      token =
          unicode::toUtf8(std::u32string_view(cps).substr(begin, end - begin));
    }
  }

private:
  char32_t content_;
  size_t start_, stop_;
};

class ReplaceDecoder : public Decoder {
public:
  ReplaceDecoder(std::unique_ptr<Pattern> pattern, std::u32string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void decodeChain(std::vector<std::string> &tokens,
                   const DecodeContext &) const override {
    std::string error;
    for (std::string &token : tokens) {
      std::u32string cps = unicode::toCodePoints(token);
      // A pattern that exhausts its budget leaves the token as it is:
      // printing goes on.
      if (pattern_->replaceAll(cps, content_, error))
        token = unicode::toUtf8(cps);
    }
  }

private:
  std::unique_ptr<Pattern> pattern_;
  std::u32string content_;
};

class BpeDecoder : public Decoder {
public:
  explicit BpeDecoder(std::string suffix) : suffix_(std::move(suffix)) {}
  void decodeChain(std::vector<std::string> &tokens,
                   const DecodeContext &) const override {
    if (suffix_.empty())
      return;
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::string &token = tokens[i];
      std::string with = i + 1 == tokens.size() ? "" : " ";
      for (size_t at = token.find(suffix_); at != std::string::npos;
           at = token.find(suffix_, at + with.size()))
        token.replace(at, suffix_.size(), with);
    }
  }

private:
  std::string suffix_;
};

class SequenceDecoder : public Decoder {
public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> steps)
      : steps_(std::move(steps)) {}
  void decodeChain(std::vector<std::string> &tokens,
                   const DecodeContext &context) const override {
    for (const auto &step : steps_)
      step->decodeChain(tokens, context);
  }

private:
  std::vector<std::unique_ptr<Decoder>> steps_;
};

std::unique_ptr<Decoder> createMetaspace(const JsonReader &reader,
                                         std::string &error) {
  std::string replacement = "\xE2\x96\x81", scheme;
  bool addPrefixSpace = true;
  if (!reader.readString("replacement", replacement, error) ||
      !reader.readString("prepend_scheme", scheme, error) ||
      !reader.readBool("add_prefix_space", addPrefixSpace, error))
    return nullptr;
  if (replacement.empty()) {
    error = "'" + reader.pathOf("replacement") + "' must not be empty";
    return nullptr;
  }
  bool stripFirst = scheme.empty() ? addPrefixSpace : scheme != "never";
  return std::make_unique<MetaspaceDecoder>(replacement, stripFirst);
}

std::unique_ptr<Decoder> createStrip(const JsonReader &reader,
                                     std::string &error) {
  std::string content = " ";
  int64_t start = 0, stop = 0;
  if (!reader.readString("content", content, error) ||
      !reader.readInteger("start", start, error) ||
      !reader.readInteger("stop", stop, error))
    return nullptr;
  std::u32string cps = unicode::toCodePoints(content);
  if (cps.size() != 1 || start < 0 || stop < 0) {
    error = "'" + reader.path() +
            "' must strip one character a non-negative number of times";
    return nullptr;
  }
  return std::make_unique<StripDecoder>(cps[0], static_cast<size_t>(start),
                                        static_cast<size_t>(stop));
}

std::unique_ptr<Decoder> createReplace(const JsonReader &reader,
                                       std::string &error) {
  const JsonValue *patternJson = reader.get("pattern");
  std::string content;
  if (!patternJson) {
    error = reader.typeError("pattern", "an object");
    return nullptr;
  }
  if (!reader.readString("content", content, error, /*required=*/true))
    return nullptr;
  auto pattern =
      Pattern::fromJson(*patternJson, reader.pathOf("pattern"), error);
  if (!pattern)
    return nullptr;
  return std::make_unique<ReplaceDecoder>(std::move(pattern),
                                          unicode::toCodePoints(content));
}

std::unique_ptr<Decoder> createSequence(const JsonReader &reader,
                                        std::string &error) {
  std::vector<std::unique_ptr<Decoder>> steps;
  if (!createSteps(reader, "decoders", createDecoder, steps, error))
    return nullptr;
  return std::make_unique<SequenceDecoder>(std::move(steps));
}

} // namespace

std::unique_ptr<Decoder> createDecoder(const JsonValue &config,
                                       const std::string &path,
                                       std::string &error) {
  JsonReader reader(config, path);
  std::string type;
  if (!readType(reader, type, error))
    return nullptr;
  if (type == "ByteLevel")
    return std::make_unique<ByteLevelDecoder>();
  if (type == "ByteFallback")
    return std::make_unique<ByteFallbackDecoder>();
  if (type == "Metaspace")
    return createMetaspace(reader, error);
  if (type == "WordPiece") {
    std::string prefix = "##";
    bool cleanup = true;
    if (!reader.readString("prefix", prefix, error) ||
        !reader.readBool("cleanup", cleanup, error))
      return nullptr;
    return std::make_unique<WordPieceDecoder>(prefix, cleanup);
  }
  if (type == "Fuse")
    return std::make_unique<FuseDecoder>();
  if (type == "Strip")
    return createStrip(reader, error);
  if (type == "Replace")
    return createReplace(reader, error);
  if (type == "BPEDecoder") {
    std::string suffix = "</w>";
    if (!reader.readString("suffix", suffix, error))
      return nullptr;
    return std::make_unique<BpeDecoder>(suffix);
  }
  if (type == "Sequence")
    return createSequence(reader, error);
  error = unsupportedType("decoder", type, path);
  return nullptr;
}

//===-- Clean-up ----------------------------------------------------------===//

namespace {

/// transformers' clean_up_tokenization, applied in this order.
constexpr std::pair<std::string_view, std::string_view> kCleanUps[] = {
    {" .", "."},     {" ?", "?"},     {" !", "!"},   {" ,", ","},
    {" ' ", "'"},    {" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"},
    {" 've", "'ve"}, {" 're", "'re"}};

} // namespace

std::string cleanUpTokenization(std::string_view text) {
  std::string out(text);
  for (const auto &[from, to] : kCleanUps) {
    std::string next;
    size_t last = 0;
    for (size_t at = out.find(from); at != std::string::npos;
         at = out.find(from, last)) {
      next.append(out, last, at - last);
      next += to;
      last = at + from.size();
    }
    next.append(out, last, std::string::npos);
    out = std::move(next);
  }
  return out;
}

namespace {

/// Raw text that clean-up rewrites, including what one pass leaves for a
/// later one (" n ' t" -> " n't" -> "n't"; "  ' s" -> " 's" -> "'s").
constexpr std::string_view kCleanUpTriggers[] = {
    " .",  " ?",   " !",   " ,",    " ' ",   " n't",   " n ' t", " 'm",
    " 's", " 've", " 're", "  ' m", "  ' s", "  ' ve", "  ' re"};
constexpr size_t kLongestTrigger = 6;

/// Whether the end of `text` may be the start of a clean-up that text
/// still to come completes: a space in the last few bytes from which the
/// rest is a proper prefix of a trigger.
bool mayContinue(std::string_view text) {
  size_t first =
      text.size() > kLongestTrigger ? text.size() - kLongestTrigger : 0;
  for (size_t s = first; s < text.size(); ++s) {
    if (text[s] != ' ')
      continue;
    std::string_view rest = text.substr(s);
    for (std::string_view trigger : kCleanUpTriggers)
      if (trigger.size() > rest.size() &&
          trigger.substr(0, rest.size()) == rest)
        return true;
  }
  return false;
}

} // namespace

std::string CleanUpStream::push(std::string_view raw) {
  pending_.append(raw.data(), raw.size());
  // The longest prefix of the pending text after which no clean-up can
  // reach back: clean-ups never span it, so cleaning it now is final.
  std::string context;
  for (size_t cut = pending_.size(); cut > 0; --cut) {
    context = tail_;
    context.append(pending_, 0, cut);
    if (mayContinue(context))
      continue;
    std::string out =
        cleanUpTokenization(std::string_view(pending_).substr(0, cut));
    tail_ = context.substr(context.size() > kLongestTrigger
                               ? context.size() - kLongestTrigger
                               : 0);
    pending_.erase(0, cut);
    return out;
  }
  return std::string();
}

std::string CleanUpStream::finish() {
  std::string out = cleanUpTokenization(pending_);
  pending_.clear();
  tail_.clear();
  return out;
}

} // namespace tfm::rt::hf
