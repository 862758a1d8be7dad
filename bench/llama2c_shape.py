#!/usr/bin/python3
"""Writes a llama2.c checkpoint of a LLaMA shape without its weights, for
`tfmc compile --random-weights` (which never reads them): the header, then
a hole as long as the tensors (a sparse file, so a 1.1B-parameter shape
takes a few KiB of disk), and a tokenizer.bin of the vocabulary's size
(<unk>, <s>, </s>, the 256 byte pieces, then filler pieces). Compiled
without --random-weights it would be a model of zeros.

  bench/llama2c_shape.py DIR --shape NAME | --dim D --hidden H --layers L
                         --heads N --kv-heads K --vocab V --context C
                         [--untied]

writes DIR/model.bin and DIR/tokenizer.bin.
"""
import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "test", "e2e", "Inputs"))
from reference_families.common import write_llama2c_tokenizer  # noqa: E402

# name: dim, hidden, layers, heads, kv heads, vocab, context, untied head
SHAPES = {
    "stories110M": (768, 2048, 12, 12, 12, 32000, 1024, False),
    # TinyLlama-1.1B: grouped-query attention, its own LM head.
    "tinyllama-1.1B": (2048, 5632, 22, 32, 4, 32000, 2048, True),
}


def checkpoint_bytes(dim, hidden, layers, heads, kv_heads, vocab, context,
                     untied):
    """Header and f32 tensors in the order llama2.c (and tfmc) reads them."""
    head = dim // heads
    kv = kv_heads * head
    per_layer = 2 * dim + dim * dim * 2 + 2 * kv * dim + 3 * hidden * dim
    floats = (vocab * dim + layers * per_layer + dim + context * head
              + (vocab * dim if untied else 0))
    return 7 * 4 + 4 * floats


def add_shape_arguments(parser):
    """The options that name a shape: --shape NAME, whose dimensions the
    others override (--shape stories110M --layers 2), or every dimension."""
    parser.add_argument("--shape", choices=sorted(SHAPES))
    for name in ("dim", "hidden", "layers", "heads", "kv-heads", "vocab",
                 "context"):
        parser.add_argument("--" + name, type=int)
    parser.add_argument("--untied", action="store_true")


def shape_from_arguments(parser, args):
    """(dim, hidden, layers, heads, kv heads, vocab, context, untied) as
    add_shape_arguments' options give it; a usage error otherwise."""
    given = (args.dim, args.hidden, args.layers, args.heads, args.kv_heads,
             args.vocab, args.context)
    named = SHAPES[args.shape] if args.shape else (None,) * 7 + (False,)
    fields = tuple(g if g is not None else n for g, n in zip(given, named))
    if any(f is None or f <= 0 for f in fields):
        parser.error("give --shape or every one of --dim --hidden "
                     "--layers --heads --kv-heads --vocab --context "
                     "(each positive)")
    return fields + (args.untied or named[7],)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    add_shape_arguments(parser)
    args = parser.parse_args()
    (dim, hidden, layers, heads, kv_heads, vocab, context,
     untied) = shape_from_arguments(parser, args)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "model.bin")
    with open(path, "wb") as f:
        # A negative vocab_size says the checkpoint has its own classifier.
        f.write(struct.pack("<7i", dim, hidden, layers, heads, kv_heads,
                            -vocab if untied else vocab, context))
        f.truncate(checkpoint_bytes(dim, hidden, layers, heads, kv_heads,
                                    vocab, context, untied))
    write_llama2c_tokenizer(os.path.join(args.out, "tokenizer.bin"), vocab)


if __name__ == "__main__":
    main()
