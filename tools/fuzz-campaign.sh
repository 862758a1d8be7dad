#!/usr/bin/env bash
# A fuzzing campaign: every target of test/fuzz at once, each with JOBS
# libFuzzer workers (-fork), for SECONDS seconds, growing the corpora under
# OUT/corpus/<target> (seeded from test/fuzz/corpus, or resumed when they
# exist) and keeping crashes in OUT/artifacts and logs in OUT/logs.
# Crashes, timeouts and OOMs are recorded and fuzzing goes on.
#
#   tools/fuzz-campaign.sh BIN_DIR OUT SECONDS [JOBS]   (docs/fuzzing.md)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$(cd "$1" && pwd)"
out="$2"
seconds="$3"
jobs="${4:-2}"
mkdir -p "$out/corpus" "$out/artifacts" "$out/logs"
pids=()
for seeds in "$root"/test/fuzz/corpus/*/; do
  name="$(basename "$seeds")"
  corpus="$out/corpus/$name"
  if [ ! -d "$corpus" ]; then
    mkdir -p "$corpus"
    cp "$seeds"* "$corpus/"
  fi
  "$bin/$name" "$corpus" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 \
    -ignore_ooms=1 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$out/artifacts/$name-" >"$out/logs/$name.log" 2>&1 &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
for log in "$out"/logs/*.log; do
  name="$(basename "$log" .log)"
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  echo "$name: $(find "$out/corpus/$name" -type f | wc -l) inputs, $(ls "$out/artifacts" | grep -c "^$name-") artifacts; $last"
done
