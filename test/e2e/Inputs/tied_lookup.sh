# tied_lookup.sh PYTHON TFMC PREFIX TYPE FLAGS: compiles PREFIX.TYPE.gguf (tied) and
# PREFIX.TYPE.untied.gguf with FLAGS, dumps both binaries' prefill and
# decode logits, and says whether they are identical and how much smaller
# the tied binary's weights are (gguf-tied-quantized.test).
set -e
python=$1 tfmc=$2 prefix=$3 type=$4 flags=$5
ids=1,7,300,45,12,99,250,3,511,0,17,260,88,401,5,77,123,200,333,64
for file in tied untied; do
  model=$prefix.$type.gguf
  [ $file = untied ] && model=$prefix.$type.untied.gguf
  exe=$prefix.$type$flags.$file.exe
  # shellcheck disable=SC2086
  "$tfmc" compile "$model" $flags --tokenizer "$prefix.dir/tokenizer.bin" --context 64 --prefill-chunk 8 -o "$exe"
  "$exe" --dump-logits "$exe.prefill" --token-ids $ids
  "$exe" --dump-logits "$exe.decode" --decode-only --token-ids $ids
  "$exe" --info | sed -n 's/^weights: \([0-9]*\) bytes$/\1/p' > "$exe.bytes"
done
tied=$prefix.$type$flags.tied.exe untied=$prefix.$type$flags.untied.exe
for mode in prefill decode; do
  "$python" -c "import sys, numpy as np; a, b = (np.fromfile(f, dtype='<f4') for f in sys.argv[2:]); print(sys.argv[1], 'identical', a.size == b.size and a.size > 0 and bool((a == b).all()))" $mode "$tied.$mode" "$untied.$mode"
done
echo "the tied weights are the untied ones less $(( $(cat "$untied.bytes") - $(cat "$tied.bytes") )) bytes"
