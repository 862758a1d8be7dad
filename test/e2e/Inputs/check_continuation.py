#!/usr/bin/env python3
"""Checks a greedy one-token continuation of a byte-level model (ids 0-255
are the bytes, as in torch_reference.py's gpt2 models) against the logits
of the prompt's ids as the binary dumped them.

  check_continuation.py OUTPUT PROMPT LOGITS VOCAB

OUTPUT is what `EXE --prompt PROMPT -n 1 --temp 0` printed; LOGITS the
--dump-logits file for the prompt's byte ids with no BOS. Prints the
expected token and PASS or FAIL.
"""
import sys

import numpy as np


def main():
    output_path, prompt, logits_path, vocab = sys.argv[1:5]
    vocab = int(vocab)
    logits = np.fromfile(logits_path, dtype="<f4").reshape(-1, vocab)
    last = int(np.argmax(logits[-1]))
    expected = prompt.encode() + (bytes([last]) if last < 256 else b"") + b"\n"
    with open(output_path, "rb") as fh:
        printed = fh.read()
    print("argmax of the last position without BOS: %d" % last)
    if printed != expected:
        print("FAIL: printed %r, expected %r" % (printed, expected))
        return 1
    print("PASS: the continuation is the bare prompt's argmax")
    return 0


if __name__ == "__main__":
    sys.exit(main())
