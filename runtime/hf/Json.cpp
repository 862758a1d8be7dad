//===- Json.cpp - Strict, depth-limited JSON for tokenizer.json -----------===//
//
// A recursive-descent parser whose recursion depth is bounded by maxDepth.
//
//===----------------------------------------------------------------------===//
#include "runtime/hf/Json.h"

#include "runtime/Unicode.h"

#include <charconv>
#include <cmath>
#include <unordered_set>

namespace tfm::rt::hf {

namespace {

/// Objects with more members than this check key uniqueness with a hash set
/// instead of a linear scan.
constexpr size_t kLinearKeyCheck = 16;

class Parser {
public:
  Parser(std::string_view text, int maxDepth)
      : text_(text), maxDepth_(maxDepth) {}

  bool parse(JsonValue &out, std::string &error) {
    skipSpace();
    if (!parseValue(out, 0))
      return report(error);
    skipSpace();
    if (pos_ != text_.size()) {
      fail("unexpected text after the JSON value");
      return report(error);
    }
    return true;
  }

private:
  bool fail(std::string message) {
    if (message_.empty()) {
      message_ = std::move(message);
      failPos_ = pos_;
    }
    return false;
  }

  bool report(std::string &error) const {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < failPos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    error = "line " + std::to_string(line) + ", column " +
            std::to_string(column) + ": " + message_;
    return false;
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool atEnd() const { return pos_ >= text_.size(); }

  void skipSpace() {
    while (!atEnd() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                        text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool expect(char c) {
    if (atEnd() || text_[pos_] != c)
      return fail(std::string("expected '") + c + "'");
    ++pos_;
    return true;
  }

  bool parseLiteral(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      return fail("invalid literal");
    pos_ += word.size();
    return true;
  }

  bool parseValue(JsonValue &out, int depth) {
    if (atEnd())
      return fail("unexpected end of input");
    switch (text_[pos_]) {
    case '{':
      return parseObject(out, depth + 1);
    case '[':
      return parseArray(out, depth + 1);
    case '"':
      out.kind = JsonValue::Kind::String;
      return parseString(out.string);
    case 't':
      out.kind = JsonValue::Kind::Bool;
      out.boolean = true;
      return parseLiteral("true");
    case 'f':
      out.kind = JsonValue::Kind::Bool;
      return parseLiteral("false");
    case 'n':
      out.kind = JsonValue::Kind::Null;
      return parseLiteral("null");
    default:
      return parseNumber(out);
    }
  }

  bool enter(int depth) {
    if (depth > maxDepth_)
      return fail("JSON nests deeper than " + std::to_string(maxDepth_) +
                  " levels");
    return true;
  }

  bool parseArray(JsonValue &out, int depth) {
    if (!enter(depth))
      return false;
    out.kind = JsonValue::Kind::Array;
    ++pos_;
    skipSpace();
    if (peek() == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      skipSpace();
      out.array.emplace_back();
      if (!parseValue(out.array.back(), depth))
        return false;
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      return expect(']');
    }
  }

  bool parseObject(JsonValue &out, int depth) {
    if (!enter(depth))
      return false;
    out.kind = JsonValue::Kind::Object;
    ++pos_;
    skipSpace();
    if (peek() == '}') {
      ++pos_;
      return true;
    }
    std::unordered_set<std::string> keys;
    while (true) {
      skipSpace();
      size_t keyPos = pos_;
      std::string key;
      if (peek() != '"')
        return fail("expected a string key");
      if (!parseString(key))
        return false;
      if (isDuplicate(out, key, keys)) {
        pos_ = keyPos;
        return fail("duplicate key \"" + key + "\"");
      }
      skipSpace();
      if (!expect(':'))
        return false;
      skipSpace();
      out.object.emplace_back(std::move(key), JsonValue());
      if (!parseValue(out.object.back().second, depth))
        return false;
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      return expect('}');
    }
  }

  /// Whether `key` is already a member of `object`. Small objects scan
  /// their members; large ones (a vocabulary) keep the keys in `keys`.
  static bool isDuplicate(const JsonValue &object, const std::string &key,
                          std::unordered_set<std::string> &keys) {
    const auto &members = object.object;
    if (members.size() < kLinearKeyCheck) {
      for (const auto &member : members)
        if (member.first == key)
          return true;
      return false;
    }
    if (keys.empty())
      for (const auto &member : members)
        keys.insert(member.first);
    return !keys.insert(key).second;
  }

  bool parseUnicodeEscape(std::string &out) {
    std::string problem;
    if (!unicode::appendJsonUnicodeEscape(text_, pos_, out, problem))
      return fail(std::move(problem));
    return true;
  }

  bool parseEscape(std::string &out) {
    if (atEnd())
      return fail("unterminated escape");
    char e = text_[pos_++];
    switch (e) {
    case '"':
    case '\\':
    case '/':
      out += e;
      return true;
    case 'b':
      out += '\b';
      return true;
    case 'f':
      out += '\f';
      return true;
    case 'n':
      out += '\n';
      return true;
    case 'r':
      out += '\r';
      return true;
    case 't':
      out += '\t';
      return true;
    case 'u':
      return parseUnicodeEscape(out);
    default:
      --pos_;
      return fail(std::string("unknown escape '\\") + e + "'");
    }
  }

  bool parseString(std::string &out) {
    ++pos_; // the opening quote
    while (true) {
      if (atEnd())
        return fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20)
        return fail("control character in string");
      if (c == '\\') {
        ++pos_;
        if (!parseEscape(out))
          return false;
        continue;
      }
      size_t start = pos_;
      if (unicode::decodeUtf8(text_, pos_) == unicode::kInvalid) {
        pos_ = start;
        return fail("invalid UTF-8 in string");
      }
      out.append(text_.data() + start, pos_ - start);
    }
  }

  bool parseNumber(JsonValue &out) {
    size_t start = pos_;
    auto digits = [&] {
      size_t first = pos_;
      while (peek() >= '0' && peek() <= '9')
        ++pos_;
      return pos_ > first;
    };
    if (peek() == '-')
      ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (!digits()) {
      pos_ = start;
      return fail("invalid value");
    }
    bool integral = true;
    if (peek() == '.') {
      ++pos_;
      integral = false;
      if (!digits())
        return fail("expected digits after '.'");
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      integral = false;
      if (peek() == '+' || peek() == '-')
        ++pos_;
      if (!digits())
        return fail("expected digits in the exponent");
    }
    const char *first = text_.data() + start;
    const char *last = text_.data() + pos_;
    out.kind = JsonValue::Kind::Number;
    auto result = std::from_chars(first, last, out.number);
    if (result.ec != std::errc() || !std::isfinite(out.number)) {
      pos_ = start;
      return fail("number out of range");
    }
    if (integral) {
      int64_t value;
      auto r = std::from_chars(first, last, value);
      out.isInteger = r.ec == std::errc();
      out.integer = out.isInteger ? value : 0;
    }
    return true;
  }

  std::string_view text_;
  int maxDepth_;
  size_t pos_ = 0;
  size_t failPos_ = 0;
  std::string message_;
};

} // namespace

const JsonValue *JsonValue::find(std::string_view key) const {
  for (const auto &member : object)
    if (member.first == key)
      return &member.second;
  return nullptr;
}

const char *JsonValue::kindName() const {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "a boolean";
  case Kind::Number:
    return "a number";
  case Kind::String:
    return "a string";
  case Kind::Array:
    return "an array";
  case Kind::Object:
    return "an object";
  }
  return "a value";
}

bool parseJson(std::string_view text, JsonValue &out, std::string &error,
               int maxDepth) {
  out = JsonValue();
  return Parser(text, maxDepth).parse(out, error);
}

void appendJsonString(std::string &out, std::string_view text) {
  static const char kHex[] = "0123456789abcdef";
  out += '"';
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  out += '"';
}

//===-- JsonReader --------------------------------------------------------===//

bool JsonReader::expectObject(std::string &error) const {
  if (value_.kind == JsonValue::Kind::Object)
    return true;
  error = "'" + path_ + "' must be an object, not " + value_.kindName();
  return false;
}

std::string JsonReader::pathOf(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

const JsonValue *JsonReader::get(std::string_view key) const {
  const JsonValue *member = value_.find(key);
  return member && !member->isNull() ? member : nullptr;
}

std::string JsonReader::typeError(std::string_view key,
                                  const char *what) const {
  const JsonValue *member = value_.find(key);
  return "'" + pathOf(key) + "' must be " + what + ", not " +
         (member ? member->kindName() : "missing");
}

bool JsonReader::readString(std::string_view key, std::string &out,
                            std::string &error, bool required) const {
  const JsonValue *member = get(key);
  if (!member) {
    if (required)
      error = typeError(key, "a string");
    return !required;
  }
  if (member->kind != JsonValue::Kind::String) {
    error = typeError(key, "a string");
    return false;
  }
  out = member->string;
  return true;
}

bool JsonReader::readBool(std::string_view key, bool &out,
                          std::string &error) const {
  const JsonValue *member = get(key);
  if (!member)
    return true;
  if (member->kind != JsonValue::Kind::Bool) {
    error = typeError(key, "true or false");
    return false;
  }
  out = member->boolean;
  return true;
}

bool JsonReader::readInteger(std::string_view key, int64_t &out,
                             std::string &error, bool required) const {
  const JsonValue *member = get(key);
  if (!member) {
    if (required)
      error = typeError(key, "an integer");
    return !required;
  }
  if (member->kind != JsonValue::Kind::Number || !member->isInteger) {
    error = typeError(key, "an integer");
    return false;
  }
  out = member->integer;
  return true;
}

bool JsonReader::readNumber(std::string_view key, double &out,
                            std::string &error) const {
  const JsonValue *member = get(key);
  if (!member)
    return true;
  if (member->kind != JsonValue::Kind::Number) {
    error = typeError(key, "a number");
    return false;
  }
  out = member->number;
  return true;
}

bool JsonReader::readArray(std::string_view key, const JsonValue *&out,
                           std::string &error, bool required) const {
  out = get(key);
  if (!out) {
    if (required)
      error = typeError(key, "an array");
    return !required;
  }
  if (out->kind != JsonValue::Kind::Array) {
    error = typeError(key, "an array");
    return false;
  }
  return true;
}

} // namespace tfm::rt::hf
