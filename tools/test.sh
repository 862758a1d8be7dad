#!/usr/bin/env bash
# Installs dependencies, builds everything and runs the whole test suite
# (lit: dialect, passes, compiler, end-to-end; GoogleTest unit tests).
# TFMC_SANITIZE=1 also runs it against an ASan/UBSan build and smoke-runs
# the fuzz targets (tools/test-sanitizers.sh; CI sets it).
#
# The suite runs without a network: inside a new network namespace (unshare),
# where no address is reachable, so a test that tried to fetch anything would
# fail here rather than only on a machine without the network. Where no
# namespace can be made (no root, no user namespaces), it runs as it is, with
# a note; TFMC_REQUIRE_OFFLINE_TESTS=1 (set by CI) makes that an error.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/install-deps.sh"
"$root/tools/build.sh"

offline=()
if unshare --net true 2>/dev/null; then
  offline=(unshare --net)
elif unshare --user --map-root-user --net true 2>/dev/null; then
  offline=(unshare --user --map-root-user --net)
elif [ "${TFMC_REQUIRE_OFFLINE_TESTS:-0}" = 1 ]; then
  echo "error: cannot create a network namespace to run the tests offline" >&2
  exit 1
else
  echo "note: no network namespace available; the tests run with the network"
fi
[ ${#offline[@]} -eq 0 ] || echo "Running the tests without a network (${offline[*]})"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
${offline[@]+"${offline[@]}"} /usr/lib/llvm-22/bin/lit -sv "$root/build/test" 2>&1 | tee "$log" || status=$?
# lit's summary ("  Passed: 12 (80.00%)") as the plain line CI reads.
count() {
  local n
  n=$(sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" "$log" | tail -n 1)
  echo "${n:-0}"
}
passed=$(( $(count Passed) + $(count 'Expectedly Failed') ))
failed=$(( $(count Failed) + $(count 'Unexpectedly Passed') + $(count Unresolved) + $(count 'Timed Out') ))
skipped=$(count Unsupported)

# TFMC_SANITIZE=1 (set by CI): then the same suite against the ASan/UBSan
# build, and the fuzz smoke run (tools/test-sanitizers.sh); the summary line
# counts both suites.
if [ "${TFMC_SANITIZE:-0}" = 1 ]; then
  echo "lit (release build): ${passed} passed, ${failed} failed, ${skipped} skipped"
  "$root/tools/test-sanitizers.sh" 2>&1 | tee "$log" || status=1
  line=$(sed -n 's/^lit (sanitized): \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$log" | tail -n 1)
  if [ -z "$line" ]; then
    echo "error: the sanitized suite did not finish" >&2
    status=1
    line="0 1 0"
  fi
  read -r p f k <<<"$line"
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + k))
fi
echo "lit: ${passed} passed, ${failed} failed, ${skipped} skipped"
exit "$status"
