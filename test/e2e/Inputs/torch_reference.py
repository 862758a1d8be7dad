#!/usr/bin/env python3
"""PyTorch reference for tfmc's end-to-end numerics tests.

Commands:

  make-model FAMILY OUT [options]
      Writes a seeded random-weight model. The files are written by hand
      (the safetensors package is not needed).

  compare MODEL LOGITS --token-ids 1,5,9 [--tol 1e-4]
          [--projections f16|bf16|q8_0|q4_0|q4_k_m|q5_k_m|q6_k]
          [--kv-cache f16] [--activations int8|bf16]
      Reads MODEL back with its own parsers, runs an independent float64
      PyTorch implementation of the family over the whole sequence, and checks
      the raw f32 logits [n][vocab] in LOGITS (what a tfmc binary writes with
      --dump-logits) position by position:
          max|ours - ref| / max|ref| <= tol.
      Prints the worst error and its position; exits 1 on a mismatch.

and the commands a family adds (bert: check-fill-mask, compare-embedding).

Each family is one module of reference_families/ (its FAMILY names, its
reference and its options; see reference_families/__init__.py): the
families are listed below. The reference is written from the math of each
family and shares no code with tfmc.
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_families import families  # noqa: E402
from reference_families.common import (GGUF_FILE_TYPES, INT8_TIE_DISTANCES,  # noqa: E402
                                       INT8_TIE_ULPS)

# What other scripts import from here (bench/run_bench.py,
# relative_bias_attention.py), from where it now lives.
from reference_families.bert import make_bert  # noqa: E402,F401
from reference_families.common import Init, load_hf, write_safetensors  # noqa: E402,F401
from reference_families.gpt2 import gpt2_tensors  # noqa: E402,F401
from reference_families.llama import (llama_from_hf, load_llama2c,  # noqa: E402,F401
                                      make_llama, make_llama2c)
from reference_families.t5 import t5_relative_bucket  # noqa: E402,F401

# The options of compare that say how tfmc rounded, and their defaults.
ROUNDING_OPTIONS = {"projections": "f32", "kv_cache": "f32", "activations": "f32"}


def family_reading(model):
    """(the family whose reference reads MODEL, MODEL's config.json or
    None)."""
    config = None
    if os.path.isdir(model):
        with open(os.path.join(model, "config.json")) as fh:
            config = json.load(fh)
    for family in families():
        if family.reads(model, config):
            return family, config
    what = ("model_type %r" % config.get("model_type")) if config else "file"
    raise SystemExit("no family's reference reads %s (%s)" % (model, what))


def compare(args):
    ids = [int(s) for s in args.token_ids.split(",")]
    family, config = family_reading(args.model)
    for option, default in ROUNDING_OPTIONS.items():
        value = getattr(args, option)
        if value != default and option not in getattr(family, "ROUNDING", ()):
            raise SystemExit("--%s %s: the %s reference does not model it"
                             % (option.replace("_", "-"), value,
                                family.__name__.rsplit(".", 1)[-1]))
    with torch.no_grad():
        ref = family.reference_logits(args.model, config, ids, args).numpy()
    n, vocab = ref.shape
    if INT8_TIE_DISTANCES:
        closest = min(INT8_TIE_DISTANCES)
        if closest < 1:
            print("UNDECIDED: a rounded (int8 or bf16) input lies within %d float32 ulps of a "
                  "rounding tie (%.2f x): the binary may round it either way; "
                  "choose another model seed or prompt" % (INT8_TIE_ULPS, closest))
            return 1
    ours = np.fromfile(args.logits, dtype="<f4")
    if ours.size != n * vocab:
        print("FAIL: %s holds %d floats, expected %d positions x %d vocab"
              % (args.logits, ours.size, n, vocab))
        return 1
    ours = ours.reshape(n, vocab).astype(np.float64)
    if not np.all(np.isfinite(ours)):
        bad = int(np.argwhere(~np.isfinite(ours))[0][0])
        print("FAIL: non-finite logits at position %d" % bad)
        return 1
    errors = np.abs(ours - ref).max(axis=1) / np.abs(ref).max(axis=1)
    worst = int(errors.argmax())
    status = "PASS" if errors[worst] <= args.tol else "FAIL"
    print("%s: %d positions x %d vocab, worst relative error %.3e at position %d"
          " (tol %.1e)" % (status, n, vocab, errors[worst], worst, args.tol))
    if status == "FAIL":
        failing = [i for i in range(n) if errors[i] > args.tol]
        print("  failing positions: %s" % failing)
        print("  per-position errors: %s" % " ".join("%.1e" % e for e in errors))
        return 1
    return 0


def make_model(argv):
    """Runs `make-model ARGV...` (what bench/run_bench.py writes its shapes
    with: the options' defaults stay here, in one place)."""
    return main(["make-model", *argv])


def main(argv=None):
    found = families()
    epilog = "\n".join("%s\n%s" % (family.__name__.rsplit(".", 1)[-1] + ":",
                                   family.__doc__) for family in found)
    parser = argparse.ArgumentParser(description=__doc__, epilog=epilog,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("make-model", help="write a random-weight model")
    makers = {name: maker for family in found for name, maker in family.MAKES.items()}
    default_hidden = {name: family.DEFAULT_HIDDEN for family in found
                      if hasattr(family, "DEFAULT_HIDDEN") for name in family.MAKES}
    make.add_argument("family", choices=list(makers))
    make.add_argument("out")
    make.add_argument("--dim", type=int, default=64)
    make.add_argument("--hidden", type=int, default=0,
                      help="FFN width (default: 172 for llama, 4*dim for gpt2)")
    make.add_argument("--layers", type=int, default=2)
    make.add_argument("--heads", type=int, default=4)
    make.add_argument("--kv-heads", type=int, default=0, help="default: --heads")
    make.add_argument("--vocab", type=int, default=512)
    make.add_argument("--context", type=int, default=128)
    make.add_argument("--tie", dest="tie", action="store_true", default=True)
    make.add_argument("--no-tie", dest="tie", action="store_false")
    make.add_argument("--eps", type=float, default=1e-5)
    make.add_argument("--rope-theta", type=float, default=10000.0)
    make.add_argument("--rope-scaling", default="",
                      help="JSON object: the RoPE scaling (rope_type and its "
                           "parameters) config.json states")
    make.add_argument("--seed", type=int, default=0)
    make.add_argument("--head-dim", type=int, default=0,
                      help="default: dim / heads (gemma writes it to config.json, "
                           "t5 as d_kv)")
    make.add_argument("--config-style", type=int, choices=[4, 5], default=4,
                      help="transformers version whose config.json keys to write")
    cmp = sub.add_parser("compare", help="check dumped logits against the reference")
    cmp.add_argument("model", help="Hugging Face directory, llama2.c .bin or "
                     "preset:gpt2-sinusoidal-tiny")
    cmp.add_argument("--seed", type=int, default=42,
                     help="a preset's weight seed (tfmc compile --seed)")
    cmp.add_argument("logits")
    cmp.add_argument("--token-ids", required=True)
    cmp.add_argument("--tol", type=float, default=1e-4)
    cmp.add_argument("--projections",
                     choices=["f32", "f16", "bf16", "q8_0", "q4_0", *GGUF_FILE_TYPES],
                     default="f32",
                     help="llama families: round the projection matrices to this "
                          "type first (what tfmc --weights=f16|bf16|q8_0|q4_0 computes with); "
                          "or, for q4_k_m, q5_k_m and q6_k, every matrix and the "
                          "embedding table as gguf_quantize.py --type TYPE stores them "
                          "(what tfmc computes with from that GGUF file)")
    cmp.add_argument("--kv-cache", choices=["f32", "f16"], default="f32",
                     help="llama families: round keys and values to this type "
                          "(what tfmc --kv-cache=f16 attends over)")
    cmp.add_argument("--activations", choices=["f32", "int8", "bf16"], default="f32",
                     help="llama families: quantize each projection's input to "
                          "int8 per block of 32 where its matrix is whole blocks "
                          "(what tfmc --int8-inputs computes for Q4_0), or round "
                          "it to bf16 where its matrix has an even number of "
                          "columns (what tfmc --bf16-inputs computes for bf16)")
    handlers = {"compare": compare}
    for family in found:
        if hasattr(family, "add_make_arguments"):
            family.add_make_arguments(make)
        if hasattr(family, "add_compare_arguments"):
            family.add_compare_arguments(cmp)
        if hasattr(family, "add_commands"):
            handlers.update(family.add_commands(sub))
    args = parser.parse_args(argv)
    if args.command in handlers:
        return handlers[args.command](args)
    if not args.hidden:
        args.hidden = default_hidden.get(args.family, 0)
    makers[args.family](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
