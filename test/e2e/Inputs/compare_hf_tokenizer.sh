#!/bin/bash
# compare_hf_tokenizer.sh - tfm-tokenize --hf against @huggingface/tokenizers.
#
# Usage: compare_hf_tokenizer.sh TFM_TOKENIZE OURS REF_DIR NODE_MODULES CORPUS...
# OURS and REF_DIR are directories holding a tokenizer.json +
# tokenizer_config.json (the same directory, except where the reference needs
# the file in another form), or OURS is a GGUF file whose embedded vocabulary
# tfm-tokenize --gguf runs;
# the corpora are concatenated. Each comparison runs line by line (so a
# mismatch names the line) and on the whole text, without and with special
# tokens: the encoded ids, then the text both decode the reference's ids to
# (tfm-tokenize streams them through its Detokenizer, as a produced binary
# prints generated text). Any difference fails, printing the diff.
set -euo pipefail
tool=$1 ours=$2 ref=$3 modules=$4
shift 4
here=$(dirname "$0")
if [ -f "$ours" ]; then work="$ours.compare"; else work="$ours/compare"; fi
mkdir -p "$work"
cat "$@" > "$work/corpus.txt"

npm_run() {
  node "$here/hf_tokenize_npm.mjs" "$modules" "$ref/tokenizer.json" \
    --config "$ref/tokenizer_config.json" "$@"
}
tfm_run() {
  if [ -f "$ours" ]; then
    "$tool" --gguf "$ours" "$@"
  else
    "$tool" --hf "$ours/tokenizer.json" --config "$ours/tokenizer_config.json" "$@"
  fi
}
same() {
  if ! cmp -s "$1" "$2"; then
    echo "MISMATCH ($3): @huggingface/tokenizers vs tfm-tokenize" >&2
    diff "$1" "$2" | head -20 >&2
    exit 1
  fi
}

for special in "" --add-special; do
  for lines in --lines ""; do
    what="encode ${special:-no-special} ${lines:-whole}"
    npm_run $special $lines < "$work/corpus.txt" > "$work/npm.ids"
    tfm_run $special $lines < "$work/corpus.txt" > "$work/tfm.ids"
    same "$work/npm.ids" "$work/tfm.ids" "$what"
    npm_run --decode $lines < "$work/npm.ids" > "$work/npm.txt"
    tfm_run --decode $lines < "$work/npm.ids" > "$work/tfm.txt"
    same "$work/npm.txt" "$work/tfm.txt" "decode of $what"
  done
done
# The reference really ran: the whole corpus gave it more ids than lines.
ids=$(wc -w < "$work/npm.ids")
corpus_lines=$(wc -l < "$work/corpus.txt")
if [ "$ids" -le "$corpus_lines" ]; then
  echo "the reference printed only $ids ids for $corpus_lines lines" >&2
  exit 1
fi
if [ -f "$ours" ]; then how=--gguf; else how=--hf; fi
echo "tfm-tokenize $how equals @huggingface/tokenizers: $corpus_lines lines, $ids ids"
