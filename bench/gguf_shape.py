#!/usr/bin/python3
"""Writes a GGUF v3 file of a LLaMA shape without its weights, for
`tfmc compile --random-weights` (which never reads them): the header, the
metadata of architecture `llama` and the tensor infos as
test/e2e/Inputs/hf_to_gguf.py writes them, each matrix in the block type
test/e2e/Inputs/gguf_quantize.py's `--type TYPE` would give it
(`tensor_type`: q4_k_m and q5_k_m put attn_v and ffn_down in Q6_K, the
other matrices in Q4_K / Q5_K, rows that are not whole super-blocks in Q8_0
or F32), then a hole as long as the tensors' data (a sparse file: a
1.1B-parameter shape takes a few KiB of disk). No tokenizer metadata: a
tokenizer.bin of the vocabulary's size is written beside it (compile with
`--tokenizer DIR/tokenizer.bin`). Compiled without --random-weights the
file reads as all-zero blocks (zero scales).

  bench/gguf_shape.py DIR --type TYPE --shape NAME | --dim D --hidden H
                      --layers L --heads N --kv-heads K --vocab V
                      --context C [--untied] [--experts E --top-k K]

TYPE: f32, q8_0, q4_0, q4_k, q5_k, q6_k, q4_k_m or q5_k_m. NAME is one of
bench/llama2c_shape.py's shapes. With --experts, each layer's FFN is a
Mixtral mixture of E experts of width H, K per token (llama.cpp's router
ffn_gate_inp and merged ffn_*_exps tensors). Writes DIR/model.gguf and
DIR/tokenizer.bin.
"""
import argparse
import os
import struct
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(BENCH, "..", "test", "e2e", "Inputs"))
sys.path.insert(0, BENCH)
import gguf_quantize as gq  # noqa: E402
from llama2c_shape import add_shape_arguments, shape_from_arguments  # noqa: E402
from reference_families.common import write_llama2c_tokenizer  # noqa: E402

GGUF_UINT32, GGUF_FLOAT32, GGUF_STRING = 4, 6, 8
ALIGNMENT = 32  # GGUF's default: no general.alignment key


def tensors(dim, hidden, layers, heads, kv_heads, vocab, untied, experts=0):
    """(name, dims innermost first) in hf_to_gguf.py's order."""
    kv = kv_heads * (dim // heads)
    if experts:
        ffn = [("ffn_gate_inp.weight", [dim, experts]),
               ("ffn_gate_exps.weight", [dim, hidden, experts]),
               ("ffn_up_exps.weight", [dim, hidden, experts]),
               ("ffn_down_exps.weight", [hidden, dim, experts])]
    else:
        ffn = [("ffn_gate.weight", [dim, hidden]),
               ("ffn_up.weight", [dim, hidden]),
               ("ffn_down.weight", [hidden, dim])]
    out = [("token_embd.weight", [dim, vocab])]
    for layer in range(layers):
        b = "blk.%d." % layer
        out += [(b + "attn_norm.weight", [dim]),
                (b + "attn_q.weight", [dim, dim]),
                (b + "attn_k.weight", [dim, kv]),
                (b + "attn_v.weight", [dim, kv]),
                (b + "attn_output.weight", [dim, dim]),
                (b + "ffn_norm.weight", [dim])]
        out += [(b + name, dims) for name, dims in ffn]
    out.append(("output_norm.weight", [dim]))
    if untied:
        out.append(("output.weight", [dim, vocab]))
    return out


def ggml_type(name, dims, kind):
    """(ggml type, bytes of the tensor) as gguf_quantize.py --type `kind`
    would store it (f32: every tensor F32)."""
    count = 1
    for d in dims:
        count *= d
    # The router stays F32 (a handful of rows, as llama.cpp keeps it).
    block = (gq.tensor_type(name, dims[0], kind)
             if kind != "f32" and len(dims) in (2, 3) and
             "gate_inp" not in name else None)
    if block is None:
        return gq.GGML_F32, 4 * count
    ttype, size, values = gq.TYPES[block]
    return ttype, count // values * size


def write(path, kind, dim, hidden, layers, heads, kv_heads, vocab, context,
          untied, experts=0, top_k=0):
    def string(s):
        data = s.encode()
        return struct.pack("<Q", len(data)) + data

    meta = [("general.architecture", GGUF_STRING, string("llama"))]
    for key, value in (("context_length", context), ("embedding_length", dim),
                       ("block_count", layers), ("feed_forward_length", hidden),
                       ("attention.head_count", heads),
                       ("attention.head_count_kv", kv_heads)):
        meta.append(("llama." + key, GGUF_UINT32, struct.pack("<I", value)))
    if experts:
        for key, value in (("expert_count", experts),
                           ("expert_used_count", top_k)):
            meta.append(("llama." + key, GGUF_UINT32,
                         struct.pack("<I", value)))
    for key, value in (("attention.layer_norm_rms_epsilon", 1e-5),
                       ("rope.freq_base", 10000.0)):
        meta.append(("llama." + key, GGUF_FLOAT32, struct.pack("<f", value)))
    infos = tensors(dim, hidden, layers, heads, kv_heads, vocab, untied,
                    experts)
    out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(infos), len(meta)))
    for key, vtype, payload in meta:
        out += string(key) + struct.pack("<I", vtype) + payload
    offset = 0
    types = {}
    for name, dims in infos:
        ttype, size = ggml_type(name, dims, kind)
        types[ttype] = types.get(ttype, 0) + 1
        out += string(name) + struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", ttype, offset)
        offset += size + (-size % ALIGNMENT)
    out += b"\0" * (-len(out) % ALIGNMENT)
    with open(path, "wb") as fh:
        fh.write(out)
        fh.truncate(len(out) + offset)  # the data: a hole
    return types


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--type", required=True,
                        choices=["f32"] + sorted(gq.TYPES) + sorted(gq.MIXES))
    add_shape_arguments(parser)
    parser.add_argument("--experts", type=int, default=0,
                        help="a mixture of this many experts per layer")
    parser.add_argument("--top-k", type=int, default=2,
                        help="experts per token (with --experts)")
    args = parser.parse_args()
    (dim, hidden, layers, heads, kv_heads, vocab, context,
     untied) = shape_from_arguments(parser, args)
    if dim % heads or heads % kv_heads:
        parser.error("--dim must be a multiple of --heads, --heads of "
                     "--kv-heads")
    if args.experts and not 1 <= args.top_k <= args.experts:
        parser.error("--top-k must lie in [1, --experts]")
    os.makedirs(args.out, exist_ok=True)
    write(os.path.join(args.out, "model.gguf"), args.type, dim, hidden, layers,
          heads, kv_heads, vocab, context, untied, args.experts, args.top_k)
    write_llama2c_tokenizer(os.path.join(args.out, "tokenizer.bin"), vocab)


if __name__ == "__main__":
    main()
