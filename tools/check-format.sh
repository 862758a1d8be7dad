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
cd "$root"
# The tracked sources of a checkout; any other tree's files as found.
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$root" ]; then
  mapfile -t files < <(git ls-files -- '*.c' '*.cpp' '*.h' ':!:**/Inputs/**')
else
  mapfile -t files < <(find compiler dialect passes runtime models test tools \
    bench -path '*/Inputs' -prune -o \( -name '*.c' -o -name '*.cpp' \
    -o -name '*.h' \) -print 2>/dev/null | sort)
fi
unformatted=0
for file in "${files[@]}"; do
  [ -f "$file" ] || continue
  if ! "$clang_format" "$style" --dry-run -Werror "$file" >/dev/null 2>&1; then
    first=$("$clang_format" "$style" --dry-run "$file" 2>&1 | head -n 1)
    echo "$file: not clang-formatted ($first)"
    unformatted=$((unformatted + 1))
  fi
done
echo "${#files[@]} files checked, ${unformatted} not formatted"
if [ "${#files[@]}" -eq 0 ]; then
  echo "error: no C or C++ sources under $root" >&2
  exit 1
fi
[ "$unformatted" -eq 0 ]
