"""Writes tiny model files (valid or deliberately broken) for tfmc's loader tests.

  make_model.py llama2c OUT [--header D,HID,L,H,KV,VOCAB,SEQ] [--trailing N]
  make_model.py gguf OUT [--magic XXXX] [--tensor-type N] [--drop-tail N]
                        [--arch A] [--rope-dim N] [--bad-shape]
                        [--drop-tensor NAME] [--extra-tensor NAME]
                        [--matrix-type f16|bf16]
  make_model.py hf DIR [--model-type T] [--config-text TEXT] [--no-weights]
                       [--dtype F32|I32|...] [--bad-shape] [--drop-tail N]
                       [--drop-tensor NAME] [--extra-tensor NAME]
  make_model.py tokenizer OUT [--count N] [--drop-tail N]

The default model is a llama with dim 8, hidden 16, 1 layer, 2 heads (head
size 4), 2 key/value heads, vocabulary 16 and context 8, filled with small
deterministic values. Each option breaks exactly one thing.
"""
import argparse
import json
import os
import struct

DIM, HIDDEN, LAYERS, HEADS, KV_HEADS, VOCAB, SEQ = 8, 16, 1, 2, 2, 16, 8


def values(count):
    return [((i * 7) % 13 - 6) / 50.0 for i in range(count)]


def f32(count):
    return struct.pack("<%df" % count, *values(count))


def llama2c(args):
    dim, hidden, layers, heads, kv, vocab, seq = (
        int(x) for x in args.header.split(","))
    out = struct.pack("<7i", dim, hidden, layers, heads, kv, vocab, seq)
    if dim % heads == 0 and heads % kv == 0:
        hd = dim // heads
        counts = [abs(vocab) * dim]
        counts += [layers * dim, layers * dim * dim, layers * kv * hd * dim,
                   layers * kv * hd * dim, layers * dim * dim, layers * dim,
                   layers * hidden * dim, layers * dim * hidden,
                   layers * hidden * dim, dim, seq * hd // 2, seq * hd // 2]
        if vocab < 0:
            counts.append(-vocab * dim)
        out += f32(sum(counts))
    out += b"\0" * args.trailing
    open(args.out, "wb").write(out)


def gguf_string(s):
    data = s.encode()
    return struct.pack("<Q", len(data)) + data


def gguf(args):
    meta = [
        ("general.architecture", 8, gguf_string(args.arch)),
        ("llama.embedding_length", 4, struct.pack("<I", DIM)),
        ("llama.feed_forward_length", 4, struct.pack("<I", HIDDEN)),
        ("llama.block_count", 4, struct.pack("<I", LAYERS)),
        ("llama.attention.head_count", 4, struct.pack("<I", args.heads)),
        ("llama.attention.head_count_kv", 4, struct.pack("<I", KV_HEADS)),
        ("llama.context_length", 4, struct.pack("<I", SEQ)),
        ("llama.attention.layer_norm_rms_epsilon", 6, struct.pack("<f", 1e-5)),
    ]
    if args.rope_dim:
        meta.append(("llama.rope.dimension_count", 4,
                     struct.pack("<I", args.rope_dim)))
    hd = DIM // HEADS
    # (name, dims innermost first)
    tensors = [("token_embd.weight", [DIM, VOCAB]),
               ("output_norm.weight", [DIM])]
    for l in range(LAYERS):
        b = "blk.%d." % l
        tensors += [(b + "attn_norm.weight", [DIM]),
                    (b + "attn_q.weight", [DIM, DIM]),
                    (b + "attn_k.weight", [DIM, KV_HEADS * hd]),
                    (b + "attn_v.weight", [DIM, KV_HEADS * hd]),
                    (b + "attn_output.weight", [DIM, DIM]),
                    (b + "ffn_norm.weight", [DIM]),
                    (b + "ffn_gate.weight", [DIM, HIDDEN]),
                    (b + "ffn_down.weight", [HIDDEN, DIM]),
                    (b + "ffn_up.weight", [HIDDEN, DIM] if args.bad_shape
                     else [DIM, HIDDEN])]
    tensors = [t for t in tensors if t[0] != args.drop_tensor]
    if args.extra_tensor:
        tensors.append((args.extra_tensor, [DIM]))
    out = args.magic.encode() + struct.pack("<IQQ", 3, len(tensors), len(meta))
    for key, vtype, payload in meta:
        out += gguf_string(key) + struct.pack("<I", vtype) + payload
    data = b""
    for index, (name, dims) in enumerate(tensors):
        count = 1
        for d in dims:
            count *= d
        # The last layer tensor takes the requested ggml type (Q4_0 = 2).
        ttype = args.tensor_type if name.endswith("ffn_up.weight") else 0
        matrix = len(dims) == 2 and args.matrix_type != "f32"
        if matrix:  # F16 = 1, BF16 = 30
            ttype = {"f16": 1, "bf16": 30}[args.matrix_type]
        out += gguf_string(name) + struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", ttype, len(data))
        if matrix and args.matrix_type == "f16":
            data += struct.pack("<%de" % count, *values(count))
        elif matrix:  # bf16: the top half of each f32 (truncated; the loader
            # tests need some bf16 values, not the nearest ones)
            data += b"".join(f32(count)[i + 2:i + 4] for i in range(0, 4 * count, 4))
        else:
            data += f32(count)
        data += b"\0" * (-len(data) % 32)
    out += b"\0" * (-len(out) % 32)
    out += data
    if args.drop_tail:
        out = out[:-args.drop_tail]
    open(args.out, "wb").write(out)


def hf(args):
    os.makedirs(args.out, exist_ok=True)
    config = {"model_type": args.model_type, "hidden_size": DIM,
              "intermediate_size": HIDDEN, "num_hidden_layers": LAYERS,
              "num_attention_heads": HEADS, "num_key_value_heads": KV_HEADS,
              "vocab_size": VOCAB, "max_position_embeddings": SEQ}
    text = args.config_text if args.config_text is not None else json.dumps(config)
    open(os.path.join(args.out, "config.json"), "w").write(text)
    if args.no_weights:
        return
    hd = DIM // HEADS
    tensors = [("model.embed_tokens.weight", [VOCAB, DIM]),
               ("model.norm.weight", [DIM])]
    for l in range(LAYERS):
        p = "model.layers.%d." % l
        tensors += [(p + "input_layernorm.weight", [DIM]),
                    (p + "self_attn.q_proj.weight", [DIM, DIM]),
                    (p + "self_attn.k_proj.weight", [KV_HEADS * hd, DIM]),
                    (p + "self_attn.v_proj.weight", [KV_HEADS * hd, DIM]),
                    (p + "self_attn.o_proj.weight", [DIM, DIM]),
                    (p + "post_attention_layernorm.weight", [DIM]),
                    (p + "mlp.gate_proj.weight", [HIDDEN, DIM]),
                    (p + "mlp.up_proj.weight", [HIDDEN, DIM]),
                    (p + "mlp.down_proj.weight", [DIM, HIDDEN])]
    tensors = [t for t in tensors if t[0] != args.drop_tensor]
    if args.extra_tensor:
        tensors.append((args.extra_tensor, [DIM]))
    header, data = {}, b""
    for name, shape in tensors:
        dtype = "F32"
        if name == "model.layers.0.mlp.up_proj.weight":
            dtype = args.dtype
            if args.bad_shape:
                shape = [DIM, HIDDEN]
        count = 1
        for d in shape:
            count *= d
        blob = f32(count)  # 4-byte dtypes only, so sizes stay consistent
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(blob)]}
        data += blob
    head = json.dumps(header).encode()
    out = struct.pack("<Q", len(head)) + head + data
    if args.drop_tail:
        out = out[:-args.drop_tail]
    open(os.path.join(args.out, "model.safetensors"), "wb").write(out)


def tokenizer(args):
    """A llama2.c tokenizer.bin: int32 max_len, then {f32 score, i32 len, bytes}."""
    pieces = ["<unk>", "<s>", "</s>"] + [chr(ord("a") + i % 26) * (1 + i // 26)
                                         for i in range(args.count - 3)]
    out = struct.pack("<i", max(len(p) for p in pieces))
    for i, piece in enumerate(pieces):
        data = piece.encode()
        out += struct.pack("<fi", -float(i), len(data)) + data
    if args.drop_tail:
        out = out[:-args.drop_tail]
    open(args.out, "wb").write(out)


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="kind", required=True)
    p = sub.add_parser("llama2c")
    p.add_argument("out")
    p.add_argument("--header", default="%d,%d,%d,%d,%d,%d,%d" % (
        DIM, HIDDEN, LAYERS, HEADS, KV_HEADS, VOCAB, SEQ))
    p.add_argument("--trailing", type=int, default=0)
    p.set_defaults(func=llama2c)
    p = sub.add_parser("gguf")
    p.add_argument("out")
    p.add_argument("--magic", default="GGUF")
    p.add_argument("--tensor-type", type=int, default=0)
    p.add_argument("--drop-tail", type=int, default=0)
    p.add_argument("--arch", default="llama")
    p.add_argument("--rope-dim", type=int, default=0)
    p.add_argument("--heads", type=int, default=HEADS)
    p.add_argument("--bad-shape", action="store_true")
    p.add_argument("--drop-tensor")
    p.add_argument("--extra-tensor")
    p.add_argument("--matrix-type", choices=["f32", "f16", "bf16"], default="f32",
                   help="store every matrix in this type")
    p.set_defaults(func=gguf)
    p = sub.add_parser("hf")
    p.add_argument("out")
    p.add_argument("--model-type", default="llama")
    p.add_argument("--config-text")
    p.add_argument("--no-weights", action="store_true")
    p.add_argument("--dtype", default="F32")
    p.add_argument("--bad-shape", action="store_true")
    p.add_argument("--drop-tail", type=int, default=0)
    p.add_argument("--drop-tensor")
    p.add_argument("--extra-tensor")
    p.set_defaults(func=hf)
    p = sub.add_parser("tokenizer")
    p.add_argument("out")
    p.add_argument("--count", type=int, default=VOCAB)
    p.add_argument("--drop-tail", type=int, default=0)
    p.set_defaults(func=tokenizer)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
