#!/usr/bin/env python3
"""One tfm.attention_kernel with T5's relative position bias, run for real.

  emit OUT.mlir --mask causal|bidirectional [sizes]
      Writes a module whose @main computes the kernel over seeded random
      queries, keys, values and bias table (constants) and prints the
      result with printMemrefF32 (mlir-runner's runtime library).
  check PRINTED --mask ... [sizes]
      Checks what @main printed against float64 PyTorch: scores q . k with
      no 1/sqrt(head_dim) scaling, plus table[bucket(key - query position),
      head] with transformers' bucket function, masked (causal: keys up to
      the query's position offset + s), softmax, times v; every element
      within --tol of the largest, relative.
"""
import argparse
import os
import re
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference import t5_relative_bucket  # noqa: E402


def inputs(args):
    generator = torch.Generator().manual_seed(args.seed)
    features = args.heads * args.head_dim

    def normal(*shape):
        return torch.randn(*shape, generator=generator, dtype=torch.float32)

    return {"q": normal(args.queries, features),
            "k": normal(args.keys, features),
            "v": normal(args.keys, features),
            "table": normal(args.buckets, args.heads) * 2}


def literal(tensor):
    rows = [", ".join(repr(float(x)) for x in row) for row in tensor.tolist()]
    return "[" + ", ".join("[" + row + "]" for row in rows) + "]"


def type_of(tensor):
    return "tensor<%dx%dxf32>" % tuple(tensor.shape)


def emit(args):
    t = inputs(args)
    out_type = type_of(t["q"])
    lines = ["func.func private @printMemrefF32(memref<*xf32>) "
             "attributes {llvm.emit_c_interface}",
             "func.func @main() {"]
    for name in ("q", "k", "v", "table"):
        lines.append("  %%%s = arith.constant dense<%s> : %s"
                     % (name, literal(t[name]), type_of(t[name])))
    lines.append("  %%pos = arith.constant %d : index" % args.offset)
    lines.append("  %%init = tensor.empty() : %s" % out_type)
    lines.append(
        "  %%o = tfm.attention_kernel ins(%%q, %%k, %%v : %s, %s, %s) "
        "offset(%%pos) relative_bias(%%table : %s) outs(%%init : %s) "
        "{num_heads = %d : i64, num_kv_heads = %d : i64, max_distance = %d : i64, "
        "scale = 1.0 : f32, mask = #tfm.mask<%s>, "
        # The CPU's flash attention walks the keys in the blocks its kernel
        # configuration names (tfm-cpu-select-kernel-config's default).
        "tfm_cpu.config = #tfm_cpu.attention<block_keys = 16>} -> %s"
        % (type_of(t["q"]), type_of(t["k"]), type_of(t["v"]),
           type_of(t["table"]), out_type, args.heads, args.heads,
           args.max_distance, args.mask, out_type))
    memref = out_type.replace("tensor", "memref")
    lines.append("  %%m = bufferization.to_buffer %%o : %s to %s"
                 % (out_type, memref))
    lines.append("  %%u = memref.cast %%m : %s to memref<*xf32>" % memref)
    lines.append("  call @printMemrefF32(%u) : (memref<*xf32>) -> ()")
    lines.append("  return")
    lines.append("}")
    with open(args.path, "w") as f:
        f.write("\n".join(lines) + "\n")


def reference(args, with_bias=True):
    t = {k: v.double() for k, v in inputs(args).items()}
    if not with_bias:
        t["table"].zero_()
    H, D = args.heads, args.head_dim
    q = t["q"].reshape(args.queries, H, D)
    k = t["k"].reshape(args.keys, H, D)
    v = t["v"].reshape(args.keys, H, D)
    scores = torch.einsum("shd,thd->hst", q, k)
    query_pos = torch.arange(args.queries)[:, None] + args.offset
    key_pos = torch.arange(args.keys)[None, :]
    bidirectional = args.mask == "bidirectional"
    buckets = t5_relative_bucket(key_pos - query_pos, bidirectional,
                                 args.buckets, args.max_distance)
    scores = scores + t["table"][buckets].permute(2, 0, 1)
    if not bidirectional:
        scores = scores.masked_fill(key_pos > query_pos, float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    return torch.einsum("hst,thd->shd", probs, v).reshape(args.queries, H * D)


def check(args):
    with open(args.path) as f:
        text = f.read()
    data = text[text.index("data =") + len("data ="):]
    numbers = [float(x) for x in
               re.findall(r"[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|nan|inf)", data)]
    ref = reference(args)
    if len(numbers) != ref.numel():
        print("FAIL: printed %d values, expected %d" % (len(numbers), ref.numel()))
        return 1
    ours = torch.tensor(numbers, dtype=torch.float64).reshape(ref.shape)
    error = ((ours - ref).abs().max() / ref.abs().max()).item()
    if not error <= args.tol:
        print("FAIL: relative error %.3g > %g" % (error, args.tol))
        return 1
    # The bias must matter, or this would not test it.
    unbiased = reference(args, with_bias=False)
    if ((unbiased - ref).abs().max() / ref.abs().max()).item() <= 100 * args.tol:
        print("FAIL: the bias hardly changes the output; choose other sizes")
        return 1
    print("PASS: %d x %d outputs, relative error %.2g"
          % (ref.shape[0], ref.shape[1], error))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("command", choices=["emit", "check"])
    parser.add_argument("path")
    parser.add_argument("--mask", choices=["causal", "bidirectional"],
                        required=True)
    parser.add_argument("--queries", type=int, default=6)
    parser.add_argument("--keys", type=int, default=30)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--heads", type=int, default=2)
    parser.add_argument("--head-dim", type=int, default=16)
    parser.add_argument("--buckets", type=int, default=16)
    parser.add_argument("--max-distance", type=int, default=12)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--tol", type=float, default=1e-4)
    args = parser.parse_args()
    return emit(args) if args.command == "emit" else check(args)


if __name__ == "__main__":
    sys.exit(main() or 0)
