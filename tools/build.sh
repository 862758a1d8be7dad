#!/usr/bin/env bash
# Configures (once) and builds tfmc in ./build with ninja and ccache.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
jobs="${TFMC_JOBS:-$(nproc)}"
if [ ! -f "$root/build/build.ninja" ]; then
  cmake -S "$root" -B "$root/build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
ninja -C "$root/build" -j "$jobs" "$@"
