#!/usr/bin/env bash
# Checks that the C and C++ sources under ROOT (default: this checkout) are
# formatted as .clang-format says (LLVM style): prints each file that is
# not, with clang-format's first complaint, and exits 1 if there is any.
# Test fixtures (any Inputs/ folder) are left as they are.
# Fix with: clang-format -i FILE (clang-format-22, tools/install-deps.sh).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd -P)"
root="$(cd "${1:-$repo}" && pwd -P)"
clang_format="${CLANG_FORMAT:-/usr/lib/llvm-22/bin/clang-format}"
style="--style=file:$repo/.clang-format"
if ! "$clang_format" --version >/dev/null 2>&1; then
  echo "error: cannot run $clang_format (install clang-format-22)" >&2
  exit 2
fi
cd "$root"
# The tracked sources of a checkout; any other tree's files as found.
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$root" ]; then
  mapfile -t files < <(git ls-files -- '*.c' '*.cpp' '*.h' ':!:**/Inputs/**')
else
  mapfile -t files < <(find compiler dialect passes runtime models test tools \
    bench -path '*/Inputs' -prune -o \( -name '*.c' -o -name '*.cpp' \
    -o -name '*.h' \) -print 2>/dev/null | sort)
fi
# One clang-format run over every file (one process per file took minutes
# on a loaded machine); it names each file that differs in its warnings.
unformatted=0
if [ "${#files[@]}" -gt 0 ]; then
  report=$("$clang_format" "$style" --dry-run "${files[@]}" 2>&1 || true)
  while IFS= read -r file; do
    [ -n "$file" ] || continue
    first=$(grep -m 1 -F "$file:" <<<"$report")
    echo "$file: not clang-formatted (${first#"$file:"})"
    unformatted=$((unformatted + 1))
  done < <(sed -n 's/^\(.*\):[0-9]*:[0-9]*: \(warning\|error\): code should be clang-formatted.*/\1/p' <<<"$report" | sort -u)
fi
echo "${#files[@]} files checked, ${unformatted} not formatted"
if [ "${#files[@]}" -eq 0 ]; then
  echo "error: no C or C++ sources under $root" >&2
  exit 1
fi
[ "$unformatted" -eq 0 ]
