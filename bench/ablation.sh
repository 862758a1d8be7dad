#!/usr/bin/env bash
# Ablation: what each optimisation contributes. Compiles one preset with
# every switch on, then with one switch off at a time, and prints the
# executables' own --bench figures (tokens/s, best of 3).
#   bench/ablation.sh [PRESET] [THREADS]     (default: llama-110m 2)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
preset="${1:-llama-110m}"
threads="${2:-2}"
tfmc="${TFMC:-$root/build/bin/tfmc}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

variants=(
  "all on|"
  "no projection fusion|--fuse-projections=false"
  "no weight packing|--pack-weights=false"
  "no micro-kernel tiling|--tile-projections=false"
  "no memory planning|--plan-memory=false"
  "no flash attention|--fuse-attention=false"
  "libm exp/tanh|--approximate-math=false"
  "no elementwise fusion|--fuse-elementwise=false"
  "no accumulator promotion|--promote-accumulators=false"
  "no weight prefetch|--prefetch-weights=false"
  "no decode stream prefetch|--stream-prefetch-distance=0"
  "no KV-cache prefetch|--cache-prefetch-distance=0"
  "no epilogue fusion|--fuse-epilogues=false"
  "scalar elementwise loops|--vectorize-elementwise=false"
  "fork for every loop|--min-parallel-work=0"
  "every layer its own code|--share-kernels=false"
  "single-threaded kernels|--parallel=false"
  # The machine's load drifts during the run; a second baseline shows how far.
  "all on, again|"
)
printf '%-28s %12s %12s\n' "preset $preset, $threads threads" "decode tok/s" "prefill tok/s"
for variant in "${variants[@]}"; do
  name="${variant%%|*}"
  flags="${variant#*|}"
  # shellcheck disable=SC2086
  "$tfmc" compile "preset:$preset" $flags -o "$work/model"
  json="$("$work/model" --bench --prompt-tokens 128 -n 128 --threads "$threads" | tail -n 1)"
  decode="$(echo "$json" | sed -n 's/.*"decode_tokens_per_s": \([0-9.]*\).*/\1/p')"
  prefill="$(echo "$json" | sed -n 's/.*"prefill_tokens_per_s": \([0-9.]*\).*/\1/p')"
  printf '%-28s %12s %12s\n' "$name" "$decode" "$prefill"
done
