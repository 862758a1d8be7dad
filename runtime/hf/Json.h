//===- Json.h - Strict, depth-limited JSON for tokenizer.json ---*- C++ -*-===//
//
// tokenizer.json is untrusted input read by every produced binary, which
// cannot use the compiler's llvm::json. The parser accepts RFC 8259 JSON
// only (no comments, trailing commas, NaN, invalid UTF-8 or duplicate keys),
// limits nesting so that no input can exhaust the stack, and reports the
// line and column of the first error. JsonReader reads typed members and
// names the offending key ("model.unk_token must be a string") when a
// member has the wrong type.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_HF_JSON_H
#define TFMC_RUNTIME_HF_JSON_H

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tfm::rt::hf {

class JsonValue {
public:
  enum class Kind : uint8_t { Null, Bool, Number, String, Array, Object };

  Kind kind = Kind::Null;
  bool boolean = false;
  /// Set for numbers written without fraction or exponent that fit.
  bool isInteger = false;
  int64_t integer = 0;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  /// Members in file order; keys are unique.
  std::vector<std::pair<std::string, JsonValue>> object;

  bool isNull() const { return kind == Kind::Null; }
  /// The member `key` of an object, or null when absent (or not an object).
  const JsonValue *find(std::string_view key) const;
  /// "string", "object", ...: for error messages.
  const char *kindName() const;
};

/// Nesting deeper than this is rejected (a tokenizer.json nests < 10 deep).
constexpr int kMaxJsonDepth = 128;

/// Parses all of `text` into `out`; false and `error` ("line 3, column 7:
/// expected ':'") on malformed input.
bool parseJson(std::string_view text, JsonValue &out, std::string &error,
               int maxDepth = kMaxJsonDepth);

/// Appends `text` (UTF-8) as a JSON string literal.
void appendJsonString(std::string &out, std::string_view text);

/// Typed access to the members of one JSON object. `path` names the object
/// in messages ("model", "pre_tokenizer.pretokenizers[1]"). Missing and null
/// members read as absent; a present member of the wrong type fails with a
/// message naming it.
class JsonReader {
public:
  JsonReader(const JsonValue &value, std::string path)
      : value_(value), path_(std::move(path)) {}

  /// False and `error` unless the value is an object.
  bool expectObject(std::string &error) const;
  /// The path of member `key` ("model.vocab").
  std::string pathOf(std::string_view key) const;
  const std::string &path() const { return path_; }
  /// The member, or null when absent or JSON null.
  const JsonValue *get(std::string_view key) const;

  /// Reads member `key` into `out`, leaving `out` (the default) when the
  /// member is absent; false and `error` when it has another type, or when
  /// `required` and it is absent.
  bool readString(std::string_view key, std::string &out, std::string &error,
                  bool required = false) const;
  bool readBool(std::string_view key, bool &out, std::string &error) const;
  bool readInteger(std::string_view key, int64_t &out, std::string &error,
                   bool required = false) const;
  bool readNumber(std::string_view key, double &out, std::string &error) const;
  /// `out` points at the array member, or null when absent.
  bool readArray(std::string_view key, const JsonValue *&out,
                 std::string &error, bool required = false) const;
  /// "'<path>' must be <what>, not <kind>".
  std::string typeError(std::string_view key, const char *what) const;

private:
  const JsonValue &value_;
  std::string path_;
};

} // namespace tfm::rt::hf

#endif // TFMC_RUNTIME_HF_JSON_H
