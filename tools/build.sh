#!/usr/bin/env bash
# Configures (once) and builds tfmc in ./build with ninja and ccache.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
jobs="${TFMC_JOBS:-$(nproc)}"
# ccache keys on the compile command: with paths relative to the checkout,
# a fresh clone elsewhere (CI) reuses what an earlier build compiled.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
if [ ! -f "$root/build/build.ninja" ]; then
  cmake -S "$root" -B "$root/build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
ninja -C "$root/build" -j "$jobs" "$@"
