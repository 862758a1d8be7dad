//===- RegexParser.cpp - Oniguruma-syntax patterns into a regex AST -------===//
//
// The subset of Oniguruma's Ruby syntax that tokenizer.json patterns use:
// literals and escapes (\t \n \r \f \v \a \e \xHH \x{H..} \uHHHH), . ^ $ \A
// \z \Z \b \B, classes with ranges, negation, nesting and && intersection,
// \d \s \w \h (and their complements) and \p{..}/\P{..}/\p{^..} over
// general categories, groups (capturing ones are plain groups), (?i: ),
// (?i) and (?-i) (to the end of the enclosing group), lookahead (?= )
// (?! ), atomic (?> ), and the quantifiers ? * + {n} {n,} {n,m} {,m}, lazy
// (??, *?) and possessive (?+, *+, ++).
// Anything else (backreferences, lookbehind, other options, POSIX
// brackets) is an error naming the construct, never a silent mismatch.
//
//===----------------------------------------------------------------------===//
#include "runtime/hf/RegexAst.h"

#include "runtime/Unicode.h"

#include <algorithm>
#include <utility>

namespace tfm::rt::hf::regex {

namespace {

using unicode::GeneralCategory;

/// Groups and classes nest at most this deep.
constexpr int kMaxNesting = 64;
/// Counted repetitions above this bound are rejected (they are expanded).
constexpr int kMaxCount = 1000;

constexpr uint32_t bit(GeneralCategory c) {
  return 1u << static_cast<unsigned>(c);
}
constexpr uint32_t range(GeneralCategory lo, GeneralCategory hi) {
  uint32_t mask = 0;
  for (unsigned c = static_cast<unsigned>(lo); c <= static_cast<unsigned>(hi);
       ++c)
    mask |= 1u << c;
  return mask;
}

using GC = GeneralCategory;

/// Property names, compared lowercase without '_', '-' or spaces.
struct PropertyName {
  const char *name;
  uint32_t categories;
  Property::Special special;
};
constexpr Property::Special kNoSpecial = Property::Special::None;
const PropertyName kPropertyNames[] = {
    {"l", range(GC::Lu, GC::Lo), kNoSpecial},
    {"letter", range(GC::Lu, GC::Lo), kNoSpecial},
    {"lc", range(GC::Lu, GC::Lt), kNoSpecial},
    {"casedletter", range(GC::Lu, GC::Lt), kNoSpecial},
    {"lu", bit(GC::Lu), kNoSpecial},
    {"uppercaseletter", bit(GC::Lu), kNoSpecial},
    {"ll", bit(GC::Ll), kNoSpecial},
    {"lowercaseletter", bit(GC::Ll), kNoSpecial},
    {"lt", bit(GC::Lt), kNoSpecial},
    {"titlecaseletter", bit(GC::Lt), kNoSpecial},
    {"lm", bit(GC::Lm), kNoSpecial},
    {"modifierletter", bit(GC::Lm), kNoSpecial},
    {"lo", bit(GC::Lo), kNoSpecial},
    {"otherletter", bit(GC::Lo), kNoSpecial},
    {"m", range(GC::Mn, GC::Me), kNoSpecial},
    {"mark", range(GC::Mn, GC::Me), kNoSpecial},
    {"combiningmark", range(GC::Mn, GC::Me), kNoSpecial},
    {"mn", bit(GC::Mn), kNoSpecial},
    {"nonspacingmark", bit(GC::Mn), kNoSpecial},
    {"mc", bit(GC::Mc), kNoSpecial},
    {"spacingmark", bit(GC::Mc), kNoSpecial},
    {"me", bit(GC::Me), kNoSpecial},
    {"enclosingmark", bit(GC::Me), kNoSpecial},
    {"n", range(GC::Nd, GC::No), kNoSpecial},
    {"number", range(GC::Nd, GC::No), kNoSpecial},
    {"nd", bit(GC::Nd), kNoSpecial},
    {"decimalnumber", bit(GC::Nd), kNoSpecial},
    {"digit", bit(GC::Nd), kNoSpecial},
    {"nl", bit(GC::Nl), kNoSpecial},
    {"letternumber", bit(GC::Nl), kNoSpecial},
    {"no", bit(GC::No), kNoSpecial},
    {"othernumber", bit(GC::No), kNoSpecial},
    {"p", range(GC::Pc, GC::Po), kNoSpecial},
    {"punctuation", range(GC::Pc, GC::Po), kNoSpecial},
    {"punct", range(GC::Pc, GC::Po), kNoSpecial},
    {"pc", bit(GC::Pc), kNoSpecial},
    {"connectorpunctuation", bit(GC::Pc), kNoSpecial},
    {"pd", bit(GC::Pd), kNoSpecial},
    {"dashpunctuation", bit(GC::Pd), kNoSpecial},
    {"ps", bit(GC::Ps), kNoSpecial},
    {"openpunctuation", bit(GC::Ps), kNoSpecial},
    {"pe", bit(GC::Pe), kNoSpecial},
    {"closepunctuation", bit(GC::Pe), kNoSpecial},
    {"pi", bit(GC::Pi), kNoSpecial},
    {"initialpunctuation", bit(GC::Pi), kNoSpecial},
    {"pf", bit(GC::Pf), kNoSpecial},
    {"finalpunctuation", bit(GC::Pf), kNoSpecial},
    {"po", bit(GC::Po), kNoSpecial},
    {"otherpunctuation", bit(GC::Po), kNoSpecial},
    {"s", range(GC::Sm, GC::So), kNoSpecial},
    {"symbol", range(GC::Sm, GC::So), kNoSpecial},
    {"sm", bit(GC::Sm), kNoSpecial},
    {"mathsymbol", bit(GC::Sm), kNoSpecial},
    {"sc", bit(GC::Sc), kNoSpecial},
    {"currencysymbol", bit(GC::Sc), kNoSpecial},
    {"sk", bit(GC::Sk), kNoSpecial},
    {"modifiersymbol", bit(GC::Sk), kNoSpecial},
    {"so", bit(GC::So), kNoSpecial},
    {"othersymbol", bit(GC::So), kNoSpecial},
    {"z", range(GC::Zs, GC::Zp), kNoSpecial},
    {"separator", range(GC::Zs, GC::Zp), kNoSpecial},
    {"zs", bit(GC::Zs), kNoSpecial},
    {"spaceseparator", bit(GC::Zs), kNoSpecial},
    {"zl", bit(GC::Zl), kNoSpecial},
    {"lineseparator", bit(GC::Zl), kNoSpecial},
    {"zp", bit(GC::Zp), kNoSpecial},
    {"paragraphseparator", bit(GC::Zp), kNoSpecial},
    {"c", range(GC::Cc, GC::Cn), kNoSpecial},
    {"other", range(GC::Cc, GC::Cn), kNoSpecial},
    {"cc", bit(GC::Cc), kNoSpecial},
    {"control", bit(GC::Cc), kNoSpecial},
    {"cntrl", bit(GC::Cc), kNoSpecial},
    {"cf", bit(GC::Cf), kNoSpecial},
    {"format", bit(GC::Cf), kNoSpecial},
    {"cs", bit(GC::Cs), kNoSpecial},
    {"surrogate", bit(GC::Cs), kNoSpecial},
    {"co", bit(GC::Co), kNoSpecial},
    {"privateuse", bit(GC::Co), kNoSpecial},
    {"cn", bit(GC::Cn), kNoSpecial},
    {"unassigned", bit(GC::Cn), kNoSpecial},
    {"whitespace", 0, Property::Special::WhiteSpace},
    {"wspace", 0, Property::Special::WhiteSpace},
    {"space", 0, Property::Special::WhiteSpace},
    {"word", 0, Property::Special::Word},
    {"xdigit", 0, Property::Special::HexDigit},
    {"any", 0, Property::Special::Any},
};

bool isHexDigit(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}
int hexValue(char32_t c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }

class Parser {
public:
  Parser(std::u32string pattern, Ast &ast)
      : p_(std::move(pattern)), ast_(ast) {}

  bool parse(std::string &error) {
    bool caseInsensitive = false;
    if (!parseAlternation(ast_.root, 0, caseInsensitive))
      return report(error);
    if (pos_ < p_.size()) {
      fail("unmatched ')'");
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
    error = message_ + " at offset " + std::to_string(failPos_);
    return false;
  }
  bool atEnd() const { return pos_ >= p_.size(); }
  char32_t peek(size_t ahead = 0) const {
    return pos_ + ahead < p_.size() ? p_[pos_ + ahead] : 0;
  }
  bool lookingAt(std::u32string_view s) const {
    return p_.compare(pos_, s.size(), s) == 0;
  }

  //===-- Structure -------------------------------------------------------===//

  /// Branches separated by '|' up to ')' or the end. `caseInsensitive` is
  /// the group's flag, which (?i) changes for the rest of the group.
  bool parseAlternation(Node &out, int depth, bool &caseInsensitive) {
    if (depth > kMaxNesting)
      return fail("groups nest deeper than " + std::to_string(kMaxNesting));
    Node alternation;
    alternation.kind = Node::Kind::Alternate;
    while (true) {
      alternation.children.emplace_back();
      if (!parseConcat(alternation.children.back(), depth, caseInsensitive))
        return false;
      if (peek() != '|')
        break;
      ++pos_;
    }
    if (alternation.children.size() == 1)
      out = std::move(alternation.children[0]);
    else
      out = std::move(alternation);
    return true;
  }

  bool parseConcat(Node &out, int depth, bool &caseInsensitive) {
    out.kind = Node::Kind::Concat;
    while (!atEnd() && peek() != '|' && peek() != ')') {
      Node atom;
      bool isAtom = true;
      if (!parseAtom(atom, depth, caseInsensitive, isAtom))
        return false;
      if (!isAtom) {
        // An isolated option such as (?i) groups the rest of the enclosing
        // group: ab(?i)c|d means ab(?i:c|d), as in Oniguruma.
        Node rest;
        if (!parseAlternation(rest, depth + 1, caseInsensitive))
          return false;
        out.children.push_back(std::move(rest));
        return true;
      }
      if (!parseQuantifiers(atom))
        return false;
      out.children.push_back(std::move(atom));
    }
    return true;
  }

  bool parseAtom(Node &atom, int depth, bool &caseInsensitive, bool &isAtom) {
    char32_t c = peek();
    switch (c) {
    case '(':
      return parseGroup(atom, depth, caseInsensitive, isAtom);
    case '[': {
      int index;
      if (!parseClass(index, depth + 1, caseInsensitive))
        return false;
      atom.kind = Node::Kind::Class;
      atom.classIndex = index;
      return true;
    }
    case '.':
      ++pos_;
      atom.kind = Node::Kind::AnyButNewline;
      return true;
    case '^':
    case '$':
      ++pos_;
      atom.kind = Node::Kind::Assert;
      atom.assertion = c == '^' ? AssertKind::LineStart : AssertKind::LineEnd;
      return true;
    case '*':
    case '+':
    case '?':
      return fail("nothing to repeat before '" + std::string(1, char(c)) + "'");
    case '\\':
      return parseEscape(atom, caseInsensitive);
    default:
      ++pos_;
      literal(atom, c, caseInsensitive);
      return true;
    }
  }

  static void literal(Node &atom, char32_t c, bool caseInsensitive) {
    atom.kind = Node::Kind::Literal;
    atom.literal = c;
    atom.fold = caseInsensitive;
  }

  bool parseGroup(Node &atom, int depth, bool &caseInsensitive, bool &isAtom) {
    ++pos_; // '('
    bool innerFlag = caseInsensitive;
    Node *body = &atom;
    if (peek() == '?') {
      char32_t kind = peek(1);
      if (lookingAt(U"?i)") || lookingAt(U"?-i)")) {
        caseInsensitive = kind == 'i';
        pos_ += kind == 'i' ? 3 : 4;
        isAtom = false;
        return true;
      }
      if (lookingAt(U"?i:") || lookingAt(U"?-i:")) {
        innerFlag = kind == 'i';
        pos_ += kind == 'i' ? 3 : 4;
      } else if (kind == ':') {
        pos_ += 2;
      } else if (kind == '=' || kind == '!' || kind == '>') {
        pos_ += 2;
        atom.kind = kind == '>' ? Node::Kind::Atomic : Node::Kind::Look;
        atom.negate = kind == '!';
        atom.children.emplace_back();
        body = &atom.children[0];
      } else if (kind == '<' && (peek(2) == '=' || peek(2) == '!')) {
        return fail("lookbehind is not supported");
      } else if (kind == '<') {
        // A named group: the name is irrelevant without captures.
        size_t close = p_.find('>', pos_);
        if (close == std::u32string::npos)
          return fail("unterminated group name");
        pos_ = close + 1;
      } else {
        return fail("unsupported group '(?" +
                    std::string(1, static_cast<char>(kind)) + "'");
      }
    }
    if (!parseAlternation(*body, depth + 1, innerFlag))
      return false;
    if (peek() != ')')
      return fail("missing ')'");
    ++pos_;
    return true;
  }

  //===-- Quantifiers -----------------------------------------------------===//

  /// A {n}, {n,}, {n,m} or {,m} interval at the cursor; false (cursor
  /// unchanged) when the brace does not start one, as Oniguruma then reads
  /// a literal '{'.
  bool parseInterval(int &min, int &max) {
    size_t save = pos_;
    ++pos_;
    auto number = [&](int &value) {
      size_t first = pos_;
      long v = 0;
      while (peek() >= '0' && peek() <= '9') {
        v = std::min<long>(v * 10 + (peek() - '0'), kMaxCount + 1L);
        ++pos_;
      }
      value = static_cast<int>(v);
      return pos_ > first;
    };
    bool hasMin = number(min);
    if (!hasMin)
      min = 0;
    max = min;
    if (peek() == ',') {
      ++pos_;
      if (!number(max))
        max = -1;
      else if (!hasMin)
        min = 0;
    } else if (!hasMin) {
      pos_ = save;
      return false;
    }
    if (peek() != '}' || (!hasMin && max < 0)) {
      pos_ = save;
      return false;
    }
    ++pos_;
    return true;
  }

  bool parseQuantifiers(Node &atom) {
    while (true) {
      int min, max;
      bool interval = false;
      char32_t c = peek();
      if (c == '*') {
        min = 0, max = -1;
      } else if (c == '+') {
        min = 1, max = -1;
      } else if (c == '?') {
        min = 0, max = 1;
      } else if (c == '{' && parseInterval(min, max)) {
        interval = true;
      } else {
        return true;
      }
      if (!interval)
        ++pos_;
      if (min > kMaxCount || max > kMaxCount)
        return fail("repetition count above " + std::to_string(kMaxCount));
      if (max >= 0 && max < min)
        return fail("repetition {n,m} with m < n");
      Node repeat;
      repeat.kind = Node::Kind::Repeat;
      repeat.min = min;
      repeat.max = max;
      repeat.children.push_back(std::move(atom));
      bool possessive = false;
      if (peek() == '?') {
        repeat.greedy = false;
        ++pos_;
      } else if (peek() == '+' && !interval) {
        // Ruby syntax: ?+ *+ ++ are possessive, {n,m}+ repeats again.
        possessive = true;
        ++pos_;
      }
      if (possessive) {
        atom = Node();
        atom.kind = Node::Kind::Atomic;
        atom.children.push_back(std::move(repeat));
      } else {
        atom = std::move(repeat);
      }
    }
  }

  //===-- Escapes ---------------------------------------------------------===//

  /// A \p{..}/\P{..} body at the cursor (after 'p' or 'P').
  bool parsePropertyName(Property &property, bool &negated) {
    if (peek() != '{')
      return fail("expected '{' after \\p");
    size_t close = p_.find('}', pos_);
    if (close == std::u32string::npos)
      return fail("unterminated \\p{");
    ++pos_;
    if (peek() == '^') {
      negated = !negated;
      ++pos_;
    }
    std::string name;
    for (; pos_ < close; ++pos_) {
      char32_t c = p_[pos_];
      if (c == '_' || c == '-' || c == ' ')
        continue;
      if (c >= 0x80)
        return fail("unknown Unicode property");
      name += static_cast<char>(c >= 'A' && c <= 'Z' ? c | 0x20 : c);
    }
    ++pos_;
    for (const PropertyName &entry : kPropertyNames)
      if (name == entry.name) {
        property.categories = entry.categories;
        property.special = entry.special;
        return true;
      }
    return fail("unsupported Unicode property '" + name + "'");
  }

  /// \xHH, \x{H..}, \uHHHH at the cursor (after the letter).
  bool parseHexEscape(char32_t letter, char32_t &value) {
    long v = 0;
    if (letter == 'x' && peek() == '{') {
      size_t first = ++pos_;
      while (isHexDigit(peek()) && pos_ - first < 8)
        v = v * 16 + hexValue(p_[pos_++]);
      if (pos_ == first || peek() != '}' || v > 0x10FFFF)
        return fail("invalid \\x{...} escape");
      ++pos_;
    } else {
      size_t digits = letter == 'u' ? 4 : 2;
      size_t first = pos_;
      while (pos_ - first < digits && isHexDigit(peek()))
        v = v * 16 + hexValue(p_[pos_++]);
      if (pos_ == first || (letter == 'u' && pos_ - first != 4))
        return fail("invalid \\" + std::string(1, char(letter)) + " escape");
    }
    value = static_cast<char32_t>(v);
    return true;
  }

  /// Escapes standing for one code point; `handled` is false when the
  /// escape is of another kind.
  bool parseCharEscape(char32_t letter, char32_t &value, bool &handled) {
    handled = true;
    switch (letter) {
    case 't':
      value = '\t';
      return true;
    case 'n':
      value = '\n';
      return true;
    case 'r':
      value = '\r';
      return true;
    case 'f':
      value = '\f';
      return true;
    case 'v':
      value = '\v';
      return true;
    case 'a':
      value = 0x07;
      return true;
    case 'e':
      value = 0x1B;
      return true;
    case 'x':
    case 'u':
      return parseHexEscape(letter, value);
    default:
      break;
    }
    if ((letter >= 'a' && letter <= 'z') || (letter >= 'A' && letter <= 'Z') ||
        (letter >= '0' && letter <= '9')) {
      handled = false;
      return true;
    }
    value = letter; // an escaped symbol stands for itself
    return true;
  }

  /// \d \s \w \h and complements, \p{..}; `handled` false otherwise.
  bool parseClassEscape(char32_t letter, ClassItem &item, bool &handled) {
    handled = true;
    item = ClassItem();
    item.kind = ClassItem::Kind::Property;
    char32_t lower = letter | 0x20;
    item.negated = letter >= 'A' && letter <= 'Z';
    switch (lower) {
    case 'd':
      item.property.categories = bit(GC::Nd);
      return true;
    case 's':
      item.property.special = Property::Special::WhiteSpace;
      return true;
    case 'w':
      item.property.special = Property::Special::Word;
      return true;
    case 'h':
      item.property.special = Property::Special::HexDigit;
      return true;
    case 'p':
      return parsePropertyName(item.property, item.negated);
    default:
      handled = false;
      return true;
    }
  }

  bool parseEscape(Node &atom, bool caseInsensitive) {
    ++pos_; // '\'
    if (atEnd())
      return fail("pattern ends with '\\'");
    char32_t letter = p_[pos_++];
    ClassItem item;
    bool handled;
    if (!parseClassEscape(letter, item, handled))
      return false;
    if (handled) {
      CharClass cls;
      cls.operands.push_back({item});
      atom.kind = Node::Kind::Class;
      atom.classIndex = static_cast<int>(ast_.classes.size());
      ast_.classes.push_back(std::move(cls));
      return true;
    }
    auto assertion = [&](AssertKind kind) {
      atom.kind = Node::Kind::Assert;
      atom.assertion = kind;
      return true;
    };
    switch (letter) {
    case 'A':
      return assertion(AssertKind::TextStart);
    case 'z':
      return assertion(AssertKind::TextEnd);
    case 'Z':
      return assertion(AssertKind::TextEndOrLast);
    case 'b':
      return assertion(AssertKind::WordBoundary);
    case 'B':
      return assertion(AssertKind::NotWordBoundary);
    default:
      break;
    }
    char32_t value;
    if (!parseCharEscape(letter, value, handled))
      return false;
    if (!handled) {
      --pos_;
      return fail("unsupported escape '\\" +
                  std::string(1, static_cast<char>(letter)) + "'");
    }
    literal(atom, value, caseInsensitive);
    return true;
  }

  //===-- Bracket classes -------------------------------------------------===//

  /// One class member that is a single code point (for ranges).
  bool parseClassChar(char32_t &value) {
    if (peek() != '\\') {
      value = p_[pos_++];
      return true;
    }
    ++pos_;
    if (atEnd())
      return fail("unterminated character class");
    char32_t letter = p_[pos_++];
    bool handled;
    if (!parseCharEscape(letter, value, handled))
      return false;
    if (!handled) {
      --pos_;
      return fail("unsupported escape '\\" +
                  std::string(1, static_cast<char>(letter)) +
                  "' in a character class");
    }
    return true;
  }

  bool parseClass(int &index, int depth, bool caseInsensitive) {
    if (depth > kMaxNesting)
      return fail("character classes nest deeper than " +
                  std::to_string(kMaxNesting));
    size_t start = pos_;
    ++pos_; // '['
    CharClass cls;
    cls.caseInsensitive = caseInsensitive;
    if (peek() == '^') {
      cls.negated = true;
      ++pos_;
    }
    cls.operands.emplace_back();
    bool first = true;
    while (true) {
      if (atEnd()) {
        pos_ = start;
        return fail("unterminated character class");
      }
      std::vector<ClassItem> &items = cls.operands.back();
      char32_t c = peek();
      if (c == ']' && !first) {
        ++pos_;
        break;
      }
      first = false;
      if (lookingAt(U"&&")) {
        if (items.empty())
          return fail("empty operand of '&&'");
        pos_ += 2;
        cls.operands.emplace_back();
        continue;
      }
      if (c == '[') {
        if (lookingAt(U"[:"))
          return fail("POSIX bracket expressions are not supported");
        ClassItem item;
        item.kind = ClassItem::Kind::Nested;
        if (!parseClass(item.nested, depth + 1, caseInsensitive))
          return false;
        cls.operands.back().push_back(item);
        continue;
      }
      if (c == '\\') {
        ClassItem item;
        bool handled;
        ++pos_;
        if (atEnd())
          return fail("unterminated character class");
        char32_t letter = p_[pos_++];
        if (!parseClassEscape(letter, item, handled))
          return false;
        pos_ -= handled ? 0 : 2;
        if (handled) {
          items.push_back(item);
          continue;
        }
      }
      char32_t lo;
      if (!parseClassChar(lo))
        return false;
      char32_t hi = lo;
      if (peek() == '-' && peek(1) != ']' && peek(1) != 0) {
        ++pos_;
        if (peek() == '[' || (peek() == '\\' && isClassEscapeLetter(peek(1))))
          return fail("a range cannot end in a set");
        if (!parseClassChar(hi))
          return false;
        if (hi < lo)
          return fail("character class range out of order");
      }
      ClassItem item;
      item.lo = lo;
      item.hi = hi;
      cls.operands.back().push_back(item);
    }
    for (const auto &operand : cls.operands)
      if (operand.empty())
        return fail("empty character class");
    index = static_cast<int>(ast_.classes.size());
    ast_.classes.push_back(std::move(cls));
    return true;
  }

  static bool isClassEscapeLetter(char32_t c) {
    switch (c) {
    case 'd':
    case 'D':
    case 's':
    case 'S':
    case 'w':
    case 'W':
    case 'h':
    case 'H':
    case 'p':
    case 'P':
      return true;
    default:
      return false;
    }
  }

  std::u32string p_;
  Ast &ast_;
  size_t pos_ = 0;
  size_t failPos_ = 0;
  std::string message_;
};

} // namespace

bool parseRegex(std::string_view pattern, Ast &ast, std::string &error) {
  ast = Ast();
  return Parser(unicode::toCodePoints(pattern), ast).parse(error);
}

} // namespace tfm::rt::hf::regex
