#!/usr/bin/env bash
# The main job: install dependencies, build tfmc, compile the default model to
# a native executable and generate text with it.
#
# Default model: ../shared/models/stories260K.bin (+ tok512.bin) when present,
# otherwise the built-in preset llama-tiny (seeded random weights: it runs the
# whole path but prints gibberish).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/install-deps.sh"
"$root/tools/build.sh" tfmc tfmrt tfmrt_main

models="$root/../shared/models"
mkdir -p "$root/out"
if [ -f "$models/stories260K.bin" ] && [ -f "$models/tok512.bin" ]; then
  echo "== Compiling $models/stories260K.bin"
  "$root/build/bin/tfmc" compile "$models/stories260K.bin" \
    --tokenizer "$models/tok512.bin" -o "$root/out/story"
else
  echo "== ../shared/models not found: compiling the built-in preset llama-tiny"
  echo "   (seeded random weights: the output is gibberish by design)"
  "$root/build/bin/tfmc" compile preset:llama-tiny -o "$root/out/story"
fi
echo "== Generating: out/story --prompt 'Once upon a time' -n 100 --temp 0"
"$root/out/story" --prompt "Once upon a time" -n 100 --temp 0
