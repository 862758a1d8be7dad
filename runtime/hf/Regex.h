//===- Regex.h - Oniguruma-style regexes over code points -------*- C++ -*-===//
//
// tokenizer.json's Split pre-tokenizers and Replace normalizers/decoders
// carry Oniguruma patterns such as Qwen2's
// clang-format off
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// clang-format on
// A pattern compiles into a program for a backtracking machine with an
// explicit stack (no recursion per character, so a 100k-character run
// cannot overflow the stack) and leftmost-first (Perl/Oniguruma) priority.
// Every search runs under a step budget proportional to the text, so no
// pattern or text can make it run away: exhausting it is an error.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_HF_REGEX_H
#define TFMC_RUNTIME_HF_REGEX_H

#include "runtime/hf/RegexAst.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tfm::rt::hf {

/// A half-open range [begin, end) of code point (or byte) offsets.
struct Span {
  size_t begin, end;
};

class Regex {
public:
  /// Compiles `pattern` (UTF-8); null and `error` when it uses syntax
  /// outside the supported subset (see RegexParser.cpp) or is too large.
  static std::unique_ptr<Regex> compile(std::string_view pattern,
                                        std::string &error);

  /// Every match in `text`, left to right and non-overlapping, as Rust's
  /// onig find_iter reports them: after a match the search resumes at its
  /// end, and an empty match right where the previous one ended is skipped.
  /// False and `error` when the step budget runs out.
  bool findAll(std::u32string_view text, std::vector<Span> &matches,
               std::string &error) const;

  /// The budget of one findAll: kBaseSteps + kStepsPerChar * length.
  static constexpr uint64_t kBaseSteps = 1u << 20;
  static constexpr uint64_t kStepsPerChar = 1000;

  /// One machine instruction; public so that Regex.cpp's helpers see it.
  struct Inst {
    enum class Op : uint8_t {
      Char,       // code point `value`, folded when `fold`
      Any,        // any code point but '\n'
      Class,      // class `value`
      Split,      // try `x`, then `y`
      Jump,       // to `x`
      Assert,     // `assertion`
      Look,       // lookahead program at `x`, `negate`
      Atomic,     // run the program at `x` once, continue at its end
      SaveStart,  // register `value` = position (loop iteration start)
      CheckStart, // leave the loop (jump to `x`) if it consumed nothing
      Match
    };
    Op op;
    bool fold = false;
    bool negate = false;
    regex::AssertKind assertion = regex::AssertKind::LineStart;
    uint32_t value = 0;
    uint32_t x = 0, y = 0;
  };

private:
  Regex() = default;
  friend class RegexCompiler;
  friend class RegexMachine;

  std::vector<Inst> program_;
  std::vector<regex::CharClass> classes_;
  uint32_t registers_ = 0;
};

} // namespace tfm::rt::hf

#endif // TFMC_RUNTIME_HF_REGEX_H
