#!/usr/bin/env bash
# The C library (`tfmc compile --emit=lib`) under ThreadSanitizer: two
# contexts of preset:llama-tiny generate on two threads at once
# (test/e2e/Inputs/library_two_contexts.c) with every access checked, those
# of the runtime (built with -fsanitize=thread in ./build-tsan, runtime
# targets only) and of the generated code (tfmc --sanitize-thread). LLVM's
# archer OMPT tool tells TSan about the OpenMP runtime's synchronisation
# (fork, join, barriers), which it cannot see in the uninstrumented libomp.
#
#   tools/test-tsan.sh [TFMC]     (default: build/bin/tfmc, from build.sh)
#
# Takes about a minute once ccache holds the runtime. Ends with one summary
# line; exits non-zero on a report or a wrong result.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tfmc="${1:-$root/build/bin/tfmc}"
build="${TFMC_TSAN_BUILD_DIR:-$root/build-tsan}"
jobs="${TFMC_JOBS:-$(nproc)}"
llvm=/usr/lib/llvm-22
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=$llvm/bin/clang \
    -DCMAKE_CXX_COMPILER=$llvm/bin/clang++ \
    "-DCMAKE_C_FLAGS_RELEASE=-O1 -DNDEBUG -gline-tables-only" \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG -gline-tables-only" \
    -DTFMC_SANITIZE=thread \
    -DLLVM_EXTERNAL_LIT=$llvm/bin/lit >/dev/null
fi
# The runtime only: tfmc itself runs unsanitized and picks these up through
# TFMC_RUNTIME_LIB_DIR.
ninja -C "$build" -j "$jobs" tfmrt tfmrt_main tfmrt_lib >/dev/null

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
TFMC_RUNTIME_LIB_DIR="$build/lib" "$tfmc" compile preset:llama-tiny \
  --emit=lib --sanitize-thread -o "$work/tiny"
# shellcheck disable=SC2046 # the link flags are words
$llvm/bin/clang -std=c99 -g -O1 -fsanitize=thread -DMODEL_HEADER='"tiny.h"' \
  -I"$work/tiny" "$root/test/e2e/Inputs/library_two_contexts.c" \
  -o "$work/two" "$work/tiny/libtiny.a" $(cat "$work/tiny/tiny.link")

# The generated code calls TSan's hooks, or this would check the runtime only.
$llvm/bin/llvm-nm "$work/tiny/libtiny.a" >"$work/symbols" 2>/dev/null
if ! grep -q "U __tsan_write" "$work/symbols"; then
  echo "tsan: FAILED (the generated code is not instrumented)"
  exit 1
fi

status=0
OMP_NUM_THREADS=2 OMP_TOOL_LIBRARIES=$llvm/lib/libarcher.so \
  TSAN_OPTIONS="halt_on_error=1 exitcode=66 ignore_noninstrumented_modules=1" \
  ARCHER_OPTIONS="verbose=1" \
  "$work/two" "$work/tiny/tiny.tfmpkg" "Once upon a time" 24 \
  >"$work/out" 2>"$work/err" || status=$?
cat "$work/out"
if [ "$status" -ne 0 ] || ! grep -q "greedy: .* identical" "$work/out" ||
   ! grep -q "sampled: .* identical" "$work/out"; then
  cat "$work/err" >&2
  echo "tsan: FAILED (exit $status)"
  exit 1
fi
if ! grep -q "Archer detected" "$work/out" "$work/err"; then
  cat "$work/err" >&2
  echo "tsan: FAILED (the archer OMPT tool did not load)"
  exit 1
fi
# The negative control: one scratch shared by two threads must be reported.
$llvm/bin/clang -std=c11 -g -O1 -fsanitize=thread \
  "$root/test/e2e/Inputs/library_shared_scratch.c" -o "$work/shared" \
  "$work/tiny/libtiny.a" $(cat "$work/tiny/tiny.link")
shared=0
OMP_NUM_THREADS=2 OMP_TOOL_LIBRARIES=$llvm/lib/libarcher.so \
  TSAN_OPTIONS="halt_on_error=1 exitcode=66 ignore_noninstrumented_modules=1" \
  "$work/shared" >"$work/out" 2>"$work/err" || shared=$?
if [ "$shared" -ne 66 ] || ! grep -q "data race" "$work/err"; then
  cat "$work/out" "$work/err" >&2
  echo "tsan: FAILED (a scratch shared by two threads went unreported)"
  exit 1
fi
echo "tsan: two contexts on two threads, no reports; a shared scratch reported"
