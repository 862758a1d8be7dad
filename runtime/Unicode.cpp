//===- Unicode.cpp - UTF-8, character properties and normalization -------===//
//
// Table lookups are binary searches over the generated runs; ASCII takes a
// shortcut wherever the tables would only confirm it.
//
//===----------------------------------------------------------------------===//
#include "runtime/Unicode.h"

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

namespace tfm::rt::unicode {

namespace {

struct CategoryRun {
  char32_t start;
  uint8_t category;
};
struct LowercaseRun {
  char32_t lo, hi;
  int32_t delta;
  uint8_t stride;
};
struct CombiningClassRun {
  char32_t lo, hi;
  uint8_t combiningClass;
};
struct CanonicalMapping {
  char32_t cp, first, second;
  uint8_t primary;
};
struct CompatSingleRun {
  char32_t lo, hi, target;
};
struct CompatMapping {
  char32_t cp;
  uint16_t offset;
  uint8_t length;
};

#include "runtime/UnicodeTables.inc"

/// The last row of `table` whose key is at most `cp`, or null.
template <typename Row, size_t N, typename Key>
const Row *lastAtOrBefore(const Row (&table)[N], char32_t cp, Key key) {
  const Row *it = std::upper_bound(
      table, table + N, cp,
      [&](char32_t value, const Row &row) { return value < key(row); });
  return it == table ? nullptr : it - 1;
}

template <typename Row, size_t N>
const Row *findRange(const Row (&table)[N], char32_t cp) {
  const Row *row = lastAtOrBefore(table, cp, [](const Row &r) { return r.lo; });
  return row && cp <= row->hi ? row : nullptr;
}

template <typename Row, size_t N>
const Row *findExact(const Row (&table)[N], char32_t cp) {
  const Row *row = lastAtOrBefore(table, cp, [](const Row &r) { return r.cp; });
  return row && row->cp == cp ? row : nullptr;
}

//===-- Hangul syllables (algorithmic) ------------------------------------===//

constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161,
                   kTBase = 0x11A7;
constexpr int kLCount = 19, kVCount = 21, kTCount = 28,
              kNCount = kVCount * kTCount, kSCount = kLCount * kNCount;

bool isHangulSyllable(char32_t cp) {
  return cp >= kSBase && cp < kSBase + kSCount;
}

//===-- Decomposition -----------------------------------------------------===//

/// Appends the full decomposition of `cp` (canonical, or compatibility when
/// `compat`), unordered.
void decompose(char32_t cp, bool compat, std::u32string &out) {
  if (isHangulSyllable(cp)) {
    int index = static_cast<int>(cp - kSBase);
    out += kLBase + index / kNCount;
    out += kVBase + (index % kNCount) / kTCount;
    if (int t = index % kTCount)
      out += kTBase + t;
    return;
  }
  if (const CanonicalMapping *m = findExact(kCanonicalMappings, cp)) {
    decompose(m->first, compat, out);
    if (m->second)
      decompose(m->second, compat, out);
    return;
  }
  if (compat) {
    if (const CompatSingleRun *run = findRange(kCompatSingleRuns, cp)) {
      decompose(run->target + (cp - run->lo), compat, out);
      return;
    }
    if (const CompatMapping *m = findExact(kCompatMappings, cp)) {
      for (int i = 0; i < m->length; ++i)
        decompose(kCompatPool[m->offset + i], compat, out);
      return;
    }
  }
  out += cp;
}

/// Canonical ordering: a stable sort of each run of non-starters by class.
void reorder(std::u32string &text) {
  for (size_t i = 1; i < text.size(); ++i) {
    uint8_t cc = combiningClass(text[i]);
    if (cc == 0)
      continue;
    for (size_t j = i; j > 0; --j) {
      uint8_t before = combiningClass(text[j - 1]);
      if (before == 0 || before <= cc)
        break;
      std::swap(text[j - 1], text[j]);
    }
  }
}

//===-- Composition -------------------------------------------------------===//

struct Composition {
  char32_t first, second, composite;
  bool operator<(const Composition &o) const {
    return first != o.first ? first < o.first : second < o.second;
  }
};

/// The primary composites, sorted by (first, second); built on first use.
const std::vector<Composition> &compositions() {
  static const std::vector<Composition> table = [] {
    std::vector<Composition> pairs;
    for (const CanonicalMapping &m : kCanonicalMappings)
      if (m.primary)
        pairs.push_back({m.first, m.second, m.cp});
    std::sort(pairs.begin(), pairs.end());
    return pairs;
  }();
  return table;
}

/// The composite of `first` + `second`, or 0.
char32_t composePair(char32_t first, char32_t second) {
  if (first >= kLBase && first < kLBase + kLCount && second >= kVBase &&
      second < kVBase + kVCount)
    return kSBase + ((first - kLBase) * kVCount + (second - kVBase)) * kTCount;
  if (isHangulSyllable(first) && (first - kSBase) % kTCount == 0 &&
      second > kTBase && second < kTBase + kTCount)
    return first + (second - kTBase);
  const std::vector<Composition> &table = compositions();
  Composition key{first, second, 0};
  auto it = std::lower_bound(table.begin(), table.end(), key);
  return it != table.end() && it->first == first && it->second == second
             ? it->composite
             : 0;
}

/// Canonical composition of decomposed, reordered `text`: each character
/// joins the last starter unless a character in between blocks it (one of
/// class 0, or of a class at least its own).
std::u32string compose(const std::u32string &text) {
  std::u32string out;
  out.reserve(text.size());
  size_t starter = std::u32string::npos;
  uint8_t lastClass = 0;
  for (char32_t cp : text) {
    uint8_t cc = combiningClass(cp);
    if (starter != std::u32string::npos) {
      bool adjacent = starter + 1 == out.size();
      if (adjacent || (lastClass != 0 && lastClass < cc)) {
        if (char32_t composite = composePair(out[starter], cp)) {
          out[starter] = composite;
          continue;
        }
      }
    }
    if (cc == 0)
      starter = out.size();
    lastClass = cc;
    out += cp;
  }
  return out;
}

//===-- UTF-8 decoding ----------------------------------------------------===//

/// One decoding step; `truncated` is set when the input ended inside a so
/// far valid sequence.
char32_t decodeStep(std::string_view text, size_t &pos, bool &truncated) {
  truncated = false;
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(pos);
  if (lead < 0x80) {
    ++pos;
    return lead;
  }
  int need;
  unsigned char lo = 0x80, hi = 0xBF;
  char32_t cp;
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 1, cp = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 2, cp = lead & 0x0F;
    lo = lead == 0xE0 ? 0xA0 : 0x80;
    hi = lead == 0xED ? 0x9F : 0xBF;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 3, cp = lead & 0x07;
    lo = lead == 0xF0 ? 0x90 : 0x80;
    hi = lead == 0xF4 ? 0x8F : 0xBF;
  } else {
    ++pos;
    return kInvalid;
  }
  size_t i = 1;
  for (int k = 0; k < need; ++k, ++i) {
    if (pos + i >= text.size()) {
      truncated = true;
      pos += i;
      return kInvalid;
    }
    unsigned char c = byte(pos + i);
    if (c < (k == 0 ? lo : 0x80) || c > (k == 0 ? hi : 0xBF)) {
      pos += i;
      return kInvalid;
    }
    cp = (cp << 6) | (c & 0x3F);
  }
  pos += i;
  return cp;
}

} // namespace

//===-- UTF-8 -------------------------------------------------------------===//

char32_t decodeUtf8(std::string_view text, size_t &pos) {
  bool truncated;
  return decodeStep(text, pos, truncated);
}

namespace {
bool parseHex4(std::string_view text, size_t &pos, uint32_t &unit,
               std::string &problem) {
  if (text.size() - pos < 4) {
    problem = "truncated \\u escape";
    return false;
  }
  unit = 0;
  for (int i = 0; i < 4; ++i) {
    char c = text[pos++];
    uint32_t digit;
    if (c >= '0' && c <= '9')
      digit = c - '0';
    else if (c >= 'a' && c <= 'f')
      digit = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      digit = c - 'A' + 10;
    else {
      problem = "bad hex digit in \\u escape";
      return false;
    }
    unit = unit * 16 + digit;
  }
  return true;
}
} // namespace

bool appendJsonUnicodeEscape(std::string_view text, size_t &pos,
                             std::string &out, std::string &problem) {
  uint32_t unit;
  if (!parseHex4(text, pos, unit, problem))
    return false;
  if (unit >= 0xD800 && unit <= 0xDBFF && text.substr(pos, 2) == "\\u") {
    size_t save = pos;
    pos += 2;
    uint32_t low;
    if (!parseHex4(text, pos, low, problem))
      return false;
    if (low >= 0xDC00 && low <= 0xDFFF) {
      appendUtf8(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), out);
      return true;
    }
    pos = save;
  }
  appendUtf8(unit, out);
  return true;
}

void appendUtf8(char32_t cp, std::string &out) {
  if (cp >= kInvalid)
    cp = kReplacement;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::u32string toCodePoints(std::string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    char32_t cp = decodeUtf8(text, pos);
    out += cp == kInvalid ? kReplacement : cp;
  }
  return out;
}

std::string toUtf8(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t cp : text)
    appendUtf8(cp, out);
  return out;
}

std::string sanitizeUtf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t pos = 0; pos < bytes.size();) {
    size_t start = pos;
    if (decodeUtf8(bytes, pos) == kInvalid)
      appendUtf8(kReplacement, out);
    else
      out.append(bytes.data() + start, pos - start);
  }
  return out;
}

size_t incompleteUtf8Tail(std::string_view bytes) {
  for (size_t length = 1; length <= 3 && length <= bytes.size(); ++length) {
    size_t pos = bytes.size() - length;
    bool truncated;
    decodeStep(bytes, pos, truncated);
    if (truncated)
      return length;
  }
  return 0;
}

//===-- Properties --------------------------------------------------------===//

GeneralCategory category(char32_t cp) {
  if (cp > 0x10FFFF)
    return GeneralCategory::Cn;
  const CategoryRun *run = lastAtOrBefore(
      kCategoryRuns, cp, [](const CategoryRun &r) { return r.start; });
  return static_cast<GeneralCategory>(run->category);
}

bool isLetter(char32_t cp) {
  if (cp < 0x80)
    return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
  return category(cp) <= GeneralCategory::Lo;
}

bool isMark(char32_t cp) {
  GeneralCategory c = category(cp);
  return c >= GeneralCategory::Mn && c <= GeneralCategory::Me;
}

bool isNumber(char32_t cp) {
  if (cp < 0x80)
    return cp >= '0' && cp <= '9';
  GeneralCategory c = category(cp);
  return c >= GeneralCategory::Nd && c <= GeneralCategory::No;
}

bool isPunctuation(char32_t cp) {
  GeneralCategory c = category(cp);
  return c >= GeneralCategory::Pc && c <= GeneralCategory::Po;
}

bool isWhiteSpace(char32_t cp) {
  if ((cp >= 0x09 && cp <= 0x0D) || cp == ' ' || cp == 0x85 || cp == 0x2028 ||
      cp == 0x2029)
    return true;
  return cp >= 0xA0 && category(cp) == GeneralCategory::Zs;
}

bool isJsWhiteSpace(char32_t cp) {
  if (cp == 0x85)
    return false;
  return cp == 0xFEFF || isWhiteSpace(cp);
}

bool isWordChar(char32_t cp) {
  if (cp < 0x80)
    return isLetter(cp) || isNumber(cp) || cp == '_';
  GeneralCategory c = category(cp);
  return c <= GeneralCategory::Me || c == GeneralCategory::Nd ||
         c == GeneralCategory::Nl || c == GeneralCategory::Pc;
}

void appendLowercase(char32_t cp, std::u32string &out) {
  if (cp == 0x130) {
    out += U'i';
    out += 0x307;
    return;
  }
  if (const LowercaseRun *run = findRange(kLowercaseRuns, cp))
    if ((cp - run->lo) % run->stride == 0) {
      out += static_cast<char32_t>(static_cast<int32_t>(cp) + run->delta);
      return;
    }
  out += cp;
}

uint8_t combiningClass(char32_t cp) {
  if (cp < 0x300)
    return 0;
  const CombiningClassRun *run = findRange(kCombiningClassRuns, cp);
  return run ? run->combiningClass : 0;
}

//===-- Normalization -----------------------------------------------------===//

std::u32string normalize(std::u32string_view text, NormalForm form) {
  // Below U+00A0 nothing decomposes, composes or reorders.
  if (std::all_of(text.begin(), text.end(),
                  [](char32_t cp) { return cp < 0xA0; }))
    return std::u32string(text);
  bool compat = form == NormalForm::NFKC || form == NormalForm::NFKD;
  std::u32string decomposed;
  decomposed.reserve(text.size());
  for (char32_t cp : text)
    decompose(cp, compat, decomposed);
  reorder(decomposed);
  if (form == NormalForm::NFD || form == NormalForm::NFKD)
    return decomposed;
  return compose(decomposed);
}

} // namespace tfm::rt::unicode
