//===- RegexAst.h - Parsed form of a tokenizer regex ------------*- C++ -*-===//
//
// Internal to runtime/hf/Regex*.cpp: what RegexParser.cpp produces and
// Regex.cpp compiles into a backtracking program.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_HF_REGEXAST_H
#define TFMC_RUNTIME_HF_REGEXAST_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tfm::rt::hf::regex {

/// A set of code points named by general categories and/or a special class.
struct Property {
  enum class Special : uint8_t { None, WhiteSpace, Word, HexDigit, Any };
  /// Bit i set: category i (unicode::GeneralCategory order) belongs.
  uint32_t categories = 0;
  Special special = Special::None;
};

/// One member of a bracket class: a range, a property, or a nested class.
struct ClassItem {
  enum class Kind : uint8_t { Range, Property, Nested };
  Kind kind = Kind::Range;
  /// Property items only: the complement (\S, \P{L}, \p{^L}).
  bool negated = false;
  char32_t lo = 0, hi = 0;
  Property property;
  /// Nested items only: index into Ast::classes.
  int nested = -1;
};

/// A bracket class: the intersection (&&) of unions of items, optionally
/// complemented; under (?i) a code point also matches through its case
/// variants.
struct CharClass {
  bool negated = false;
  bool caseInsensitive = false;
  std::vector<std::vector<ClassItem>> operands;
};

enum class AssertKind : uint8_t {
  LineStart,     // ^
  LineEnd,       // $
  TextStart,     // \A
  TextEnd,       // \z
  TextEndOrLast, // \Z: the end, or before a final \n
  WordBoundary,  // \b
  NotWordBoundary
};

struct Node {
  enum class Kind : uint8_t {
    Empty,
    Literal, // `literal`, folded when `fold`
    AnyButNewline,
    Class,     // `classIndex`
    Concat,    // children in order
    Alternate, // children by priority
    Repeat,    // children[0] {min, max}; max < 0: unbounded
    Look,      // lookahead children[0]; `negate` for (?! )
    Atomic,    // children[0] matched once, never backtracked into
    Assert     // `assertion`
  };
  Kind kind = Kind::Empty;
  bool fold = false;
  bool greedy = true;
  bool negate = false;
  AssertKind assertion = AssertKind::LineStart;
  char32_t literal = 0;
  int classIndex = -1;
  int min = 0, max = 0;
  std::vector<Node> children;
};

struct Ast {
  Node root;
  std::vector<CharClass> classes;
};

/// Parses an Oniguruma (Ruby syntax) pattern, as tokenizer.json's Regex
/// patterns are written. False and `error` on syntax outside the supported
/// subset, naming the construct and its offset.
bool parseRegex(std::string_view pattern, Ast &ast, std::string &error);

} // namespace tfm::rt::hf::regex

#endif // TFMC_RUNTIME_HF_REGEXAST_H
