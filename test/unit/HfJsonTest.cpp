//===- HfJsonTest.cpp - The runtime's strict, depth-limited JSON parser ---===//
#include "runtime/hf/Json.h"

#include <gtest/gtest.h>

using namespace tfm::rt::hf;

namespace {

std::string parseError(const std::string &text) {
  JsonValue value;
  std::string error;
  EXPECT_FALSE(parseJson(text, value, error)) << text;
  return error;
}

TEST(HfJson, ParsesValuesInOrder) {
  JsonValue v;
  std::string error;
  ASSERT_TRUE(parseJson(
      R"( {"b": [1, -2.5e1, true, null], "a": "x\u00e9\ud83d\ude00\n"} )", v,
      error))
      << error;
  ASSERT_EQ(v.kind, JsonValue::Kind::Object);
  ASSERT_EQ(v.object.size(), 2u);
  EXPECT_EQ(v.object[0].first, "b");
  const JsonValue &list = v.object[0].second;
  ASSERT_EQ(list.array.size(), 4u);
  EXPECT_TRUE(list.array[0].isInteger);
  EXPECT_EQ(list.array[0].integer, 1);
  EXPECT_FALSE(list.array[1].isInteger);
  EXPECT_DOUBLE_EQ(list.array[1].number, -25.0);
  EXPECT_TRUE(list.array[2].boolean);
  EXPECT_TRUE(list.array[3].isNull());
  EXPECT_EQ(v.find("a")->string, "x\xC3\xA9\xF0\x9F\x98\x80\n");
  EXPECT_EQ(v.find("missing"), nullptr);
}

TEST(HfJson, RejectsNestingPastTheLimitWithoutRecursingFurther) {
  // 40,000 levels would overflow a naive recursive parser's stack.
  std::string deep(40000, '[');
  EXPECT_EQ(parseError(deep),
            "line 1, column 129: JSON nests deeper than 128 levels");
  std::string ok = std::string(128, '[') + std::string(128, ']');
  JsonValue v;
  std::string error;
  EXPECT_TRUE(parseJson(ok, v, error)) << error;
}

TEST(HfJson, RejectsMalformedInputWithItsPosition) {
  EXPECT_EQ(parseError("[1, 2,]"), "line 1, column 7: invalid value");
  EXPECT_EQ(parseError("{\"a\": 1,\n \"a\": 2}"),
            "line 2, column 2: duplicate key \"a\"");
  EXPECT_EQ(parseError("{\"a\" 1}"), "line 1, column 6: expected ':'");
  EXPECT_EQ(parseError("\"tab\there\""),
            "line 1, column 5: control character in string");
  EXPECT_EQ(parseError("\"\xC3\""),
            "line 1, column 2: invalid UTF-8 in string");
  EXPECT_EQ(parseError("\"\\x\""), "line 1, column 3: unknown escape '\\x'");
  EXPECT_EQ(parseError("01"), "line 1, column 2: unexpected text after the "
                              "JSON value");
  EXPECT_EQ(parseError("1e999"), "line 1, column 1: number out of range");
  EXPECT_EQ(parseError("[1] x"),
            "line 1, column 5: unexpected text after the JSON value");
  EXPECT_EQ(parseError("\"open"), "line 1, column 6: unterminated string");
  EXPECT_EQ(parseError("nul"), "line 1, column 1: invalid literal");
  EXPECT_EQ(parseError(""), "line 1, column 1: unexpected end of input");
}

TEST(HfJson, DuplicateKeysAreFoundInLargeObjectsToo) {
  std::string text = "{";
  for (int i = 0; i < 40; ++i)
    text += "\"k" + std::to_string(i) + "\": 0, ";
  text += "\"k7\": 1}";
  EXPECT_NE(parseError(text).find("duplicate key \"k7\""), std::string::npos);
}

TEST(HfJson, ReaderNamesTheMemberOfTheWrongType) {
  JsonValue v;
  std::string error;
  ASSERT_TRUE(
      parseJson(R"({"s": 1, "b": "x", "n": null, "i": 1.5})", v, error));
  JsonReader reader(v, "model");
  std::string s = "default";
  EXPECT_FALSE(reader.readString("s", s, error));
  EXPECT_EQ(error, "'model.s' must be a string, not a number");
  bool b = false;
  EXPECT_FALSE(reader.readBool("b", b, error));
  EXPECT_EQ(error, "'model.b' must be true or false, not a string");
  EXPECT_TRUE(reader.readString("n", s, error)); // null reads as absent
  EXPECT_EQ(s, "default");
  int64_t i = 0;
  EXPECT_FALSE(reader.readInteger("i", i, error));
  EXPECT_EQ(error, "'model.i' must be an integer, not a number");
  EXPECT_FALSE(reader.readString("missing", s, error, /*required=*/true));
  EXPECT_EQ(error, "'model.missing' must be a string, not missing");
}

TEST(HfJson, WritesStringLiteralsThatParseBack) {
  std::string literal;
  appendJsonString(literal, "a\"b\\c\n\x01\xC3\xA9");
  EXPECT_EQ(literal, "\"a\\\"b\\\\c\\u000a\\u0001\xC3\xA9\"");
  JsonValue v;
  std::string error;
  ASSERT_TRUE(parseJson(literal, v, error)) << error;
  EXPECT_EQ(v.string, "a\"b\\c\n\x01\xC3\xA9");
}

} // namespace
