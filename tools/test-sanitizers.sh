#!/usr/bin/env bash
# The sanitized second run of the suite: builds tfmc, its tools, the runtime
# and the unit tests with clang-22 and -fsanitize=address,undefined in
# ./build-asan (ninja, ccache), then runs the whole lit suite against that
# build. tfmc built so links every executable it produces with the sanitized
# runtime and the sanitizer runtimes, so the end-to-end tests check the
# runtime inside compiled models too. With TFMC_FUZZ_SECONDS=N (> 0) it also
# builds the libFuzzer targets of test/fuzz and runs each for N seconds
# (tools/fuzz-smoke.sh). Then the C library under ThreadSanitizer
# (tools/test-tsan.sh). Ends with lit's plain summary line, like test.sh.
#
# Run tools/install-deps.sh first (tools/test.sh does); .ci/run calls this
# after tools/test.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TFMC_ASAN_BUILD_DIR:-$root/build-asan}"
jobs="${TFMC_JOBS:-$(nproc)}"
fuzz_seconds="${TFMC_FUZZ_SECONDS:-0}"
# As in build.sh: ccache paths relative to the checkout, so that a clone
# elsewhere (CI) reuses what an earlier build compiled.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"

if [ ! -f "$build/build.ninja" ]; then
  # -O1: the suite compiles and runs models, and ASan at -O0 makes that
  # several times slower; -gline-tables-only keeps reports symbolised.
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=/usr/lib/llvm-22/bin/clang \
    -DCMAKE_CXX_COMPILER=/usr/lib/llvm-22/bin/clang++ \
    "-DCMAKE_C_FLAGS_RELEASE=-O1 -DNDEBUG -gline-tables-only" \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG -gline-tables-only" \
    -DTFMC_SANITIZE=address,undefined \
    -DTFMC_FUZZ=ON \
    -DTFMC_NPM_DIR="${TFMC_NPM_DIR:-$root/.deps/npm}" \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
ninja -C "$build" -j "$jobs"

offline=()
if unshare --net true 2>/dev/null; then
  offline=(unshare --net)
elif unshare --user --map-root-user --net true 2>/dev/null; then
  offline=(unshare --user --map-root-user --net)
fi

# Every report fails its test: halt_on_error plus -fno-sanitize-recover.
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its free slab space
# from inline header code, which our instrumented code runs, while the
# uninstrumented libMLIR.so allocates from the same slabs without
# unpoisoning: every tfmc run would stop at a false use-after-poison
# (mlir::StringAttr::get). Heap, stack and global checks are unaffected.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:allow_user_poisoning=0:strict_string_checks=1:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer

# Tests that only vary code generation switches over a model another test
# already runs (int8/bf16 inputs, f16 KV cache, the optimisation switches,
# rounded inputs, the token lookup in a tied classifier's panels against an
# untied table) run in the release suite only: the generated code is not
# instrumented, and under ASan they would recheck the same compiler and
# runtime paths for a quarter of the sanitized run's time.
codegen_variants='e2e/(weights-(q4_0|q8_0)-int8-inputs|gguf-kquants-int8-inputs|weights-bf16-inputs|kv-cache-f16|pytorch-optimisation-switches|stories260k-rounded-inputs|gguf-tied-quantized)\.test'
# Loaders another sanitized test and a fuzz target already run, in the
# suite's slowest tests: GGUF's Q8_0/Q4_0 tensors kept as stored
# (weights-quantized packs the same blocks; fuzz-gguf reads them) and the
# T5 GGUF (pytorch-t5 builds the network; fuzz-gguf reads the file).
covered_elsewhere='e2e/(gguf-quantized|gguf-t5)\.test'
# The CUDA pipeline (its pass tests, and the tests that compile with
# --target=cuda) has not yet had a sanitized run of its own; those join this
# suite once one is clean (the release suite runs them, and the CUDA
# runtime's unit tests run here).
# So have the binaries with Halide kernels (their adapter, tables and
# OpenMP-routed parallel loops) and the GPU schedules of Halide kernels,
# which the release suite runs.
not_yet_sanitized='passes/Codegen/GPU/|compiler/target-cuda\.test|e2e/cuda-[a-z-]+\.test|halide/(cuda-ptxas|autoschedule-gpu)\.test|e2e/(halide-[a-z-]+|stories260k-halide)\.test'

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
${offline[@]+"${offline[@]}"} /usr/lib/llvm-22/bin/lit -sv \
  --filter-out "${TFMC_SANITIZE_FILTER_OUT:-$codegen_variants|$covered_elsewhere|$not_yet_sanitized}" "$build/test" 2>&1 |
  tee "$log" || status=$?
count() {
  local n
  n=$(sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" "$log" | tail -n 1)
  echo "${n:-0}"
}
passed=$(( $(count Passed) + $(count 'Expectedly Failed') ))
failed=$(( $(count Failed) + $(count 'Unexpectedly Passed') + $(count Unresolved) + $(count 'Timed Out') ))
# The C library's two contexts on two threads under ThreadSanitizer, which
# cannot share a build with ASan: a runtime-only build-tsan, driven by the
# plain build's tfmc (tools/test.sh, or build.sh here, made it).
[ -x "$root/build/bin/tfmc" ] || "$root/tools/build.sh" >/dev/null
"$root/tools/test-tsan.sh" "$root/build/bin/tfmc" || status=1
if [ "$fuzz_seconds" -gt 0 ]; then
  "$root/tools/fuzz-smoke.sh" "$build" "$fuzz_seconds" || status=1
fi
echo "lit (sanitized): ${passed} passed, ${failed} failed, $(count Unsupported) skipped"
exit "$status"
