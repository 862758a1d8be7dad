#!/usr/bin/env bash
# Installs dependencies, builds everything and runs the whole test suite
# (lit: dialect, passes, compiler, end-to-end; GoogleTest unit tests).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/install-deps.sh"
"$root/tools/build.sh"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
/usr/lib/llvm-22/bin/lit -sv "$root/build/test" 2>&1 | tee "$log" || status=$?
# lit's summary ("  Passed: 12 (80.00%)") as the plain line CI reads.
count() {
  local n
  n=$(sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" "$log" | tail -n 1)
  echo "${n:-0}"
}
passed=$(( $(count Passed) + $(count 'Expectedly Failed') ))
failed=$(( $(count Failed) + $(count 'Unexpectedly Passed') + $(count Unresolved) + $(count 'Timed Out') ))
echo "lit: ${passed} passed, ${failed} failed, $(count Unsupported) skipped"
exit "$status"
