//===- Regex.cpp - Compile and run tokenizer regexes ----------------------===//
//
// The AST becomes a program in the style of Pike/Thompson machines, run by
// backtracking in priority order. Counted repetitions are unrolled; a loop
// whose body can match the empty string records where each iteration
// started and leaves the loop when an iteration consumed nothing
// (Oniguruma's empty check), so no pattern loops forever. Lookahead and
// atomic groups run their sub-program in a nested machine, whose depth the
// parser's nesting limit bounds.
//
//===----------------------------------------------------------------------===//
#include "runtime/hf/Regex.h"

#include "runtime/Unicode.h"

#include <deque>

namespace tfm::rt::hf {

using regex::AssertKind;
using regex::CharClass;
using regex::ClassItem;
using regex::Node;
using regex::Property;
using Op = Regex::Inst::Op;

namespace {

/// Programs larger than this (after unrolling counted repetitions) are
/// rejected: real patterns compile to a few hundred instructions.
constexpr size_t kMaxProgram = 100000;

bool nullable(const Node &node) {
  switch (node.kind) {
  case Node::Kind::Empty:
  case Node::Kind::Assert:
  case Node::Kind::Look:
    return true;
  case Node::Kind::Literal:
  case Node::Kind::AnyButNewline:
  case Node::Kind::Class:
    return false;
  case Node::Kind::Concat:
    for (const Node &child : node.children)
      if (!nullable(child))
        return false;
    return true;
  case Node::Kind::Alternate:
    for (const Node &child : node.children)
      if (nullable(child))
        return true;
    return false;
  case Node::Kind::Repeat:
    return node.min == 0 || nullable(node.children[0]);
  case Node::Kind::Atomic:
    return nullable(node.children[0]);
  }
  return true;
}

/// The code point compared under (?i): its lowercase (first code point).
char32_t fold(char32_t cp) {
  if (cp < 0x80)
    return cp >= 'A' && cp <= 'Z' ? cp | 0x20 : cp;
  std::u32string lower;
  unicode::appendLowercase(cp, lower);
  return lower[0];
}

bool isHexDigit(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

bool propertyMatches(const Property &p, char32_t cp) {
  if (p.categories &&
      (p.categories >> static_cast<unsigned>(unicode::category(cp)) & 1))
    return true;
  switch (p.special) {
  case Property::Special::None:
    return false;
  case Property::Special::WhiteSpace:
    return unicode::isWhiteSpace(cp);
  case Property::Special::Word:
    return unicode::isWordChar(cp);
  case Property::Special::HexDigit:
    return isHexDigit(cp);
  case Property::Special::Any:
    return true;
  }
  return false;
}

bool classMatches(const std::vector<CharClass> &classes, const CharClass &cls,
                  char32_t cp);

bool classContains(const std::vector<CharClass> &classes, const CharClass &cls,
                   char32_t cp) {
  for (const auto &operand : cls.operands) {
    bool any = false;
    for (const ClassItem &item : operand) {
      switch (item.kind) {
      case ClassItem::Kind::Range:
        any = cp >= item.lo && cp <= item.hi;
        break;
      case ClassItem::Kind::Property:
        any = propertyMatches(item.property, cp) != item.negated;
        break;
      case ClassItem::Kind::Nested:
        any = classMatches(classes, classes[item.nested], cp);
        break;
      }
      if (any)
        break;
    }
    if (!any)
      return false;
  }
  return true;
}

bool classMatches(const std::vector<CharClass> &classes, const CharClass &cls,
                  char32_t cp) {
  bool in = classContains(classes, cls, cp);
  if (!in && cls.caseInsensitive) {
    char32_t lower = fold(cp);
    in = (lower != cp && classContains(classes, cls, lower)) ||
         (cp >= 'a' && cp <= 'z' && classContains(classes, cls, cp - 32));
  }
  return in != cls.negated;
}

} // namespace

//===-- Compiler ----------------------------------------------------------===//

class RegexCompiler {
public:
  explicit RegexCompiler(Regex &re) : re_(re) {}

  bool compile(const Node &root, std::string &error) {
    emitNode(root);
    emit({Op::Match});
    if (tooLarge_) {
      error = "pattern is too large (over " + std::to_string(kMaxProgram) +
              " instructions once repetitions are unrolled)";
      return false;
    }
    return true;
  }

private:
  uint32_t here() const { return static_cast<uint32_t>(re_.program_.size()); }
  uint32_t emit(Regex::Inst inst) {
    if (re_.program_.size() >= kMaxProgram) {
      tooLarge_ = true;
      return here();
    }
    re_.program_.push_back(inst);
    return here() - 1;
  }
  Regex::Inst &at(uint32_t pc) {
    return pc < re_.program_.size() ? re_.program_[pc] : discarded_;
  }

  void emitNode(const Node &node) {
    if (tooLarge_)
      return;
    switch (node.kind) {
    case Node::Kind::Empty:
      return;
    case Node::Kind::Literal: {
      Regex::Inst inst{Op::Char};
      inst.fold = node.fold;
      inst.value = node.fold ? fold(node.literal) : node.literal;
      emit(inst);
      return;
    }
    case Node::Kind::AnyButNewline:
      emit({Op::Any});
      return;
    case Node::Kind::Class: {
      Regex::Inst inst{Op::Class};
      inst.value = static_cast<uint32_t>(node.classIndex);
      emit(inst);
      return;
    }
    case Node::Kind::Assert: {
      Regex::Inst inst{Op::Assert};
      inst.assertion = node.assertion;
      emit(inst);
      return;
    }
    case Node::Kind::Concat:
      for (const Node &child : node.children)
        emitNode(child);
      return;
    case Node::Kind::Alternate:
      emitAlternation(node);
      return;
    case Node::Kind::Repeat:
      emitRepeat(node);
      return;
    case Node::Kind::Look:
    case Node::Kind::Atomic:
      emitSubProgram(node);
      return;
    }
  }

  void emitAlternation(const Node &node) {
    std::vector<uint32_t> jumps;
    for (size_t i = 0; i < node.children.size(); ++i) {
      bool last = i + 1 == node.children.size();
      uint32_t split = last ? 0 : emit({Op::Split});
      if (!last)
        at(split).x = here();
      emitNode(node.children[i]);
      if (!last) {
        jumps.push_back(emit({Op::Jump}));
        at(split).y = here();
      }
    }
    for (uint32_t jump : jumps)
      at(jump).x = here();
  }

  /// A split that prefers the loop body when greedy; `body` is the next
  /// instruction and the exit is patched later.
  uint32_t emitLoopSplit(bool greedy) {
    uint32_t split = emit({Op::Split});
    (greedy ? at(split).x : at(split).y) = here();
    return split;
  }
  void patchExit(uint32_t split, bool greedy) {
    (greedy ? at(split).y : at(split).x) = here();
  }

  void emitRepeat(const Node &node) {
    const Node &body = node.children[0];
    for (int i = 0; i < node.min && !tooLarge_; ++i)
      emitNode(body);
    if (node.max < 0) {
      bool guard = nullable(body);
      uint32_t loop = emitLoopSplit(node.greedy);
      uint32_t reg = re_.registers_;
      uint32_t check = 0;
      if (guard) {
        ++re_.registers_;
        Regex::Inst save{Op::SaveStart};
        save.value = reg;
        emit(save);
      }
      emitNode(body);
      if (guard) {
        Regex::Inst inst{Op::CheckStart};
        inst.value = reg;
        check = emit(inst);
      }
      Regex::Inst jump{Op::Jump};
      jump.x = loop;
      emit(jump);
      patchExit(loop, node.greedy);
      if (guard)
        at(check).x = here();
      return;
    }
    std::vector<uint32_t> splits;
    for (int i = node.min; i < node.max && !tooLarge_; ++i) {
      splits.push_back(emitLoopSplit(node.greedy));
      emitNode(body);
    }
    for (uint32_t split : splits)
      patchExit(split, node.greedy);
  }

  /// Look/Atomic: the instruction, a jump over the sub-program, the
  /// sub-program ending in Match.
  void emitSubProgram(const Node &node) {
    Regex::Inst inst{node.kind == Node::Kind::Look ? Op::Look : Op::Atomic};
    inst.negate = node.negate;
    uint32_t head = emit(inst);
    uint32_t jump = emit({Op::Jump});
    at(head).x = here();
    emitNode(node.children[0]);
    emit({Op::Match});
    at(jump).x = here();
  }

  Regex &re_;
  bool tooLarge_ = false;
  /// What patches of instructions never emitted (the program grew too
  /// large) write to: the compiler's own, so that two tokenizers compiling
  /// patterns on two threads (two library contexts) never share it.
  Regex::Inst discarded_{Op::Match};
};

//===-- Machine -----------------------------------------------------------===//

class RegexMachine {
public:
  RegexMachine(const Regex &re, std::u32string_view text, uint64_t budget)
      : re_(re), text_(text), budget_(budget), registers_(re.registers_) {}

  bool exhausted() const { return exhausted_; }

  /// Runs the program from `pc` at `pos`; on a match sets `end`.
  bool run(uint32_t pc, size_t pos, size_t &end, size_t depth = 0) {
    if (stacks_.size() <= depth)
      stacks_.resize(depth + 1);
    std::vector<Frame> &stack = stacks_[depth];
    stack.clear();
    while (true) {
      if (budget_ == 0) {
        exhausted_ = true;
        return false;
      }
      --budget_;
      const Regex::Inst &inst = re_.program_[pc];
      bool ok = true;
      switch (inst.op) {
      case Op::Char:
        ok = pos < text_.size() &&
             (inst.fold ? fold(text_[pos]) : text_[pos]) == inst.value;
        ++pos, ++pc;
        break;
      case Op::Any:
        ok = pos < text_.size() && text_[pos] != '\n';
        ++pos, ++pc;
        break;
      case Op::Class:
        ok = pos < text_.size() &&
             classMatches(re_.classes_, re_.classes_[inst.value], text_[pos]);
        ++pos, ++pc;
        break;
      case Op::Split:
        stack.push_back({inst.y, kNoRegister, pos});
        pc = inst.x;
        break;
      case Op::Jump:
        pc = inst.x;
        break;
      case Op::Assert:
        ok = holds(inst.assertion, pos);
        ++pc;
        break;
      case Op::Look: {
        size_t subEnd;
        bool matched = run(inst.x, pos, subEnd, depth + 1);
        if (exhausted_)
          return false;
        ok = matched != inst.negate;
        ++pc;
        break;
      }
      case Op::Atomic: {
        size_t subEnd;
        ok = run(inst.x, pos, subEnd, depth + 1);
        if (exhausted_)
          return false;
        pos = subEnd;
        ++pc;
        break;
      }
      case Op::SaveStart:
        stack.push_back({0, inst.value, registers_[inst.value]});
        registers_[inst.value] = pos;
        ++pc;
        break;
      case Op::CheckStart:
        pc = registers_[inst.value] == pos ? inst.x : pc + 1;
        break;
      case Op::Match:
        end = pos;
        return true;
      }
      if (ok)
        continue;
      // Backtrack: undo register writes until a saved alternative.
      while (true) {
        if (stack.empty())
          return false;
        Frame frame = stack.back();
        stack.pop_back();
        if (frame.reg != kNoRegister) {
          registers_[frame.reg] = frame.pos;
          continue;
        }
        pc = frame.pc;
        pos = frame.pos;
        break;
      }
    }
  }

private:
  static constexpr uint32_t kNoRegister = ~0u;
  /// A saved alternative (pc, pos), or a register's previous value.
  struct Frame {
    uint32_t pc;
    uint32_t reg;
    size_t pos;
  };

  bool holds(AssertKind kind, size_t pos) const {
    size_t n = text_.size();
    switch (kind) {
    case AssertKind::LineStart:
      return pos == 0 || text_[pos - 1] == '\n';
    case AssertKind::LineEnd:
      return pos == n || text_[pos] == '\n';
    case AssertKind::TextStart:
      return pos == 0;
    case AssertKind::TextEnd:
      return pos == n;
    case AssertKind::TextEndOrLast:
      return pos == n || (pos + 1 == n && text_[pos] == '\n');
    case AssertKind::WordBoundary:
    case AssertKind::NotWordBoundary: {
      bool before = pos > 0 && unicode::isWordChar(text_[pos - 1]);
      bool after = pos < n && unicode::isWordChar(text_[pos]);
      return (before != after) == (kind == AssertKind::WordBoundary);
    }
    }
    return false;
  }

  const Regex &re_;
  std::u32string_view text_;
  uint64_t budget_;
  bool exhausted_ = false;
  std::vector<size_t> registers_;
  /// One backtracking stack per nesting level of lookahead/atomic runs; a
  /// deque, so that growing it keeps the outer levels' stacks in place.
  std::deque<std::vector<Frame>> stacks_;
};

//===-- Regex -------------------------------------------------------------===//

std::unique_ptr<Regex> Regex::compile(std::string_view pattern,
                                      std::string &error) {
  regex::Ast ast;
  if (!regex::parseRegex(pattern, ast, error))
    return nullptr;
  std::unique_ptr<Regex> re(new Regex());
  re->classes_ = std::move(ast.classes);
  if (!RegexCompiler(*re).compile(ast.root, error))
    return nullptr;
  return re;
}

bool Regex::findAll(std::u32string_view text, std::vector<Span> &matches,
                    std::string &error) const {
  matches.clear();
  RegexMachine machine(*this, text, kBaseSteps + kStepsPerChar * text.size());
  size_t from = 0;
  bool haveLast = false;
  size_t lastEnd = 0;
  while (from <= text.size()) {
    size_t start = from, end = 0;
    bool found = false;
    for (; start <= text.size(); ++start) {
      if (machine.run(0, start, end)) {
        found = true;
        break;
      }
      if (machine.exhausted()) {
        error = "the pattern exceeded its step budget of " +
                std::to_string(kBaseSteps + kStepsPerChar * text.size()) +
                " on a text of " + std::to_string(text.size()) + " characters";
        return false;
      }
    }
    if (!found)
      break;
    if (start == end && haveLast && lastEnd == end) {
      from = start + 1;
      continue;
    }
    matches.push_back({start, end});
    haveLast = true;
    lastEnd = end;
    from = end;
  }
  return true;
}

} // namespace tfm::rt::hf
