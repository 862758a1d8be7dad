#!/usr/bin/python3
"""Generates runtime/UnicodeTables.inc: the Unicode data the runtime's
tokenizers need, from this interpreter's unicodedata, as compact sorted tables
for binary search.

  kCategoryRuns            general category of every code point, run-length:
                           {first code point of the run, category index}
                           (index into CATEGORIES, the order of
                           runtime/Unicode.h's GeneralCategory)
  kLowercaseRuns           simple lowercase mapping: {lo, hi, delta, stride}:
                           every stride-th code point from lo to hi maps to
                           itself + delta (stride 2 covers the alternating
                           upper/lower pairs of Latin Extended and others)
  kCombiningClassRuns      canonical combining class: {lo, hi, class}
  kCanonicalMappings       canonical decomposition mappings, one level:
                           {code point, first, second or 0, primary}; the
                           runtime applies them recursively (NFD). Primary
                           composites (two code points, not excluded from
                           composition) are the pairs NFC composes
  kCompatSingleRuns        one-code-point compatibility mappings, run-length:
                           {lo, hi, target of lo}
  kCompatMappings          longer compatibility mappings, one level:
                           {code point, pool offset, length} into
                           kCompatPool; NFKD applies both kinds recursively

Hangul syllables are decomposed and composed algorithmically and are in none
of the tables. The only lowercase mapping to more than one code point
(U+0130 -> i + U+0307) is handled in code. The tables follow this
interpreter's unicodedata version (printed into the header).

Usage: /usr/bin/python3 runtime/gen_unicode_tables.py > runtime/UnicodeTables.inc
"""
import sys
import unicodedata

MAX_CODE_POINT = 0x10FFFF
CATEGORIES = ["Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl",
              "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc",
              "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"]
HANGUL_FIRST, HANGUL_LAST = 0xAC00, 0xD7A3


def code_points():
    """Every code point except the surrogates, which UTF-8 cannot carry."""
    for cp in range(MAX_CODE_POINT + 1):
        if not 0xD800 <= cp <= 0xDFFF:
            yield cp


def category_runs():
    runs = []
    for cp in range(MAX_CODE_POINT + 1):
        index = CATEGORIES.index(unicodedata.category(chr(cp)))
        if not runs or runs[-1][1] != index:
            runs.append((cp, index))
    return runs


def lowercase_runs():
    runs = []  # [lo, hi, delta, stride]
    for cp in code_points():
        lower = chr(cp).lower()
        if len(lower) != 1 or lower == chr(cp):
            continue
        delta = ord(lower) - cp
        if runs and runs[-1][2] == delta:
            step = cp - runs[-1][1]
            if step in (1, 2) and runs[-1][3] in (0, step):
                runs[-1][1] = cp
                runs[-1][3] = step
                continue
        runs.append([cp, cp, delta, 0])
    return [(lo, hi, delta, stride or 1) for lo, hi, delta, stride in runs]


def combining_class_runs():
    runs = []
    for cp in code_points():
        ccc = unicodedata.combining(chr(cp))
        if not ccc:
            continue
        if runs and runs[-1][1] == cp - 1 and runs[-1][2] == ccc:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp, ccc])
    return runs


def raw_mapping(cp):
    """unicodedata's one-level decomposition: (is_compat, [code points])."""
    raw = unicodedata.decomposition(chr(cp))
    if not raw:
        return None
    parts = raw.split()
    compat = parts[0].startswith("<")
    return compat, [int(p, 16) for p in (parts[1:] if compat else parts)]


def mapping_tables():
    canonical, single_runs, compat, pool = [], [], [], []
    for cp in code_points():
        if HANGUL_FIRST <= cp <= HANGUL_LAST:
            continue
        mapping = raw_mapping(cp)
        if mapping is None:
            continue
        is_compat, parts = mapping
        if not is_compat:
            assert len(parts) in (1, 2)
            primary = len(parts) == 2 and unicodedata.normalize("NFC", chr(cp)) == chr(cp)
            canonical.append((cp, parts[0], parts[1] if len(parts) == 2 else 0,
                              int(primary)))
        elif len(parts) == 1:
            run = single_runs[-1] if single_runs else None
            if run and run[1] == cp - 1 and run[2] + (cp - run[0]) == parts[0]:
                run[1] = cp
            else:
                single_runs.append([cp, cp, parts[0]])
        else:
            compat.append((cp, len(pool), len(parts)))
            pool.extend(parts)
    return canonical, single_runs, compat, pool


def check_decompositions(canonical, single_runs, compat, pool):
    """Replays the runtime's recursive decomposition and composition pair
    set against unicodedata, so a wrong table fails here, not in a test."""
    canon = {cp: [a] + ([b] if b else []) for cp, a, b, _ in canonical}
    comp = {}
    for lo, hi, target in single_runs:
        for cp in range(lo, hi + 1):
            comp[cp] = [target + cp - lo]
    for cp, offset, length in compat:
        comp[cp] = pool[offset:offset + length]

    def expand(cp, use_compat):
        if HANGUL_FIRST <= cp <= HANGUL_LAST:
            return [ord(c) for c in unicodedata.normalize("NFD", chr(cp))]
        parts = canon.get(cp) or (comp.get(cp) if use_compat else None)
        if not parts:
            return [cp]
        return [x for p in parts for x in expand(p, use_compat)]

    def reorder(cps):
        out = list(cps)
        for i in range(1, len(out)):  # stable insertion sort by class
            j = i
            while (j > 0 and unicodedata.combining(chr(out[j])) and
                   unicodedata.combining(chr(out[j - 1])) >
                   unicodedata.combining(chr(out[j]))):
                out[j - 1], out[j] = out[j], out[j - 1]
                j -= 1
        return out

    for cp in code_points():
        for form, use_compat in (("NFD", False), ("NFKD", True)):
            got = "".join(map(chr, reorder(expand(cp, use_compat))))
            assert got == unicodedata.normalize(form, chr(cp)), (hex(cp), form)


def emit(ctype, name, rows, per_line):
    lines = ["static constexpr %s %s[] = {" % (ctype, name)]
    cells = ["{%s}," % ", ".join(fmt(v) for v in row) if isinstance(row, tuple)
             or isinstance(row, list) else fmt(row) + "," for row in rows]
    for i in range(0, len(cells), per_line):
        lines.append("    " + " ".join(cells[i:i + per_line]))
    lines.append("};")
    return "\n".join(lines)


def fmt(value):
    """Small values (categories, classes, lengths) in decimal, code points
    and offsets in hex."""
    if -256 < value < 256:
        return str(value)
    return "0x%X" % value if value >= 0 else "-0x%X" % -value


def main():
    canonical, single_runs, compat, pool = mapping_tables()
    check_decompositions(canonical, single_runs, compat, pool)
    assert len(pool) < 1 << 16
    print("//===- UnicodeTables.inc - Unicode data for the runtime tokenizers -*- C++ -*-===//")
    print("//")
    print("// GENERATED by runtime/gen_unicode_tables.py from Python %s's unicodedata"
          % sys.version.split()[0])
    print("// (Unicode %s). Do not edit by hand; rerun the script." % unicodedata.unidata_version)
    print("// Expects the row structs of runtime/Unicode.cpp in scope.")
    print("//")
    print("//===----------------------------------------------------------------------===//")
    print()
    print(emit("CategoryRun", "kCategoryRuns", category_runs(), 8))
    print()
    print(emit("LowercaseRun", "kLowercaseRuns", lowercase_runs(), 4))
    print()
    print(emit("CombiningClassRun", "kCombiningClassRuns", combining_class_runs(), 6))
    print()
    print(emit("CanonicalMapping", "kCanonicalMappings", canonical, 4))
    print()
    print(emit("CompatSingleRun", "kCompatSingleRuns", single_runs, 4))
    print()
    print(emit("CompatMapping", "kCompatMappings", compat, 6))
    print()
    print(emit("char32_t", "kCompatPool", pool, 10))


if __name__ == "__main__":
    main()
