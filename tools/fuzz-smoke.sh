#!/usr/bin/env bash
# Smoke run of the libFuzzer targets (test/fuzz, docs/fuzzing.md): replays
# each target's seed corpus and regression inputs, then fuzzes it for
# SECONDS seconds from a scratch copy of its corpus (the repository's
# corpus stays as it is). A crash, leak, timeout or sanitizer report fails
# the run; the input that caused it is kept under build/fuzz-artifacts/ and
# belongs in test/fuzz/regressions/<target>/ once the bug is fixed.
#
#   tools/fuzz-smoke.sh [BUILD_DIR [SECONDS]]   (default build-asan, 30)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build-asan}" && pwd)"
seconds="${2:-30}"
bin="$build/fuzz"
artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
export ASAN_SYMBOLIZER_PATH="${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-22/bin/llvm-symbolizer}"

status=0
summary=()
for corpus in "$root"/test/fuzz/corpus/*/; do
  name="$(basename "$corpus")"
  fuzzer="$bin/$name"
  if [ ! -x "$fuzzer" ]; then
    echo "error: $fuzzer not built (configure with -DTFMC_FUZZ=ON)" >&2
    status=1
    continue
  fi
  scratch="$(mktemp -d)"
  cp "$corpus"* "$scratch/"
  inputs=("$scratch")
  [ -d "$root/test/fuzz/regressions/$name" ] && inputs+=("$root/test/fuzz/regressions/$name")
  log="$artifacts/$name.log"
  result=ok
  if ! "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts/$name-" \
      "${inputs[@]}" >"$log" 2>&1; then
    result=FAILED
    status=1
    tail -n 40 "$log"
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  summary+=("$(printf '%-24s %-6s %10s execs %6s inputs' "$name" "$result" \
    "${execs:-?}" "$(find "$scratch" -type f | wc -l)")")
  rm -rf "$scratch"
done
printf 'fuzz: %s\n' "${summary[@]}"
exit "$status"
