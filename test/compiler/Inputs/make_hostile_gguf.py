"""Writes GGUF files that lie about their sizes, for tfmc's robustness tests.

  make_hostile_gguf.py OUT [--set KEY=TYPE:VALUE]... [--tensor-count N]
                           [--metadata-count N] [--alias A=B]
                           [--array KEY=TYPE:COUNT] [--nested KEY=DEPTH]
                           [--many-arrays KEY=COUNT] [--nonfinite TENSOR=VALUE]
                           [--vocab]

The model is make_model.py's llama (one layer). --set adds or replaces a
metadata key (TYPE u32, u64, f32, f64 or str; VALUE may be nan or inf);
--tensor-count and --metadata-count overwrite the header's counts;
--alias gives tensor A the data offset of tensor B; --array declares an
array of COUNT elements with no elements behind it; --nested nests DEPTH
empty arrays; --many-arrays writes COUNT empty arrays of arrays (a large,
well-formed file); --nonfinite writes VALUE into a tensor's first element;
--vocab embeds a SentencePiece vocabulary of VOCAB pieces.
"""
import argparse
import struct

from make_model import DIM, HEADS, HIDDEN, KV_HEADS, LAYERS, SEQ, VOCAB, f32, gguf_string

TYPES = {"u32": (4, "<I"), "u64": (10, "<Q"), "f32": (6, "<f"), "f64": (12, "<d")}


def value(type_name, text):
    if type_name == "str":
        return 8, gguf_string(text)
    code, fmt = TYPES[type_name]
    number = float(text) if type_name.startswith("f") else int(text)
    return code, struct.pack(fmt, number)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--set", action="append", default=[])
    p.add_argument("--tensor-count", type=int)
    p.add_argument("--metadata-count", type=int)
    p.add_argument("--alias")
    p.add_argument("--array")
    p.add_argument("--nested")
    p.add_argument("--many-arrays")
    p.add_argument("--nonfinite")
    p.add_argument("--vocab", action="store_true")
    args = p.parse_args()

    meta = {
        "general.architecture": (8, gguf_string("llama")),
        "llama.embedding_length": (4, struct.pack("<I", DIM)),
        "llama.feed_forward_length": (4, struct.pack("<I", HIDDEN)),
        "llama.block_count": (4, struct.pack("<I", LAYERS)),
        "llama.attention.head_count": (4, struct.pack("<I", HEADS)),
        "llama.attention.head_count_kv": (4, struct.pack("<I", KV_HEADS)),
        "llama.context_length": (4, struct.pack("<I", SEQ)),
        "llama.attention.layer_norm_rms_epsilon": (6, struct.pack("<f", 1e-5)),
    }
    if args.vocab:
        pieces = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % i for i in range(VOCAB - 3)]
        meta["tokenizer.ggml.model"] = (8, gguf_string("llama"))
        meta["tokenizer.ggml.tokens"] = (9, struct.pack("<IQ", 8, VOCAB) +
                                         b"".join(gguf_string(t) for t in pieces))
        meta["tokenizer.ggml.scores"] = (9, struct.pack("<IQ", 6, VOCAB) +
                                         struct.pack("<%df" % VOCAB, *range(VOCAB)))
    for item in args.set:
        key, typed = item.split("=", 1)
        type_name, text = typed.split(":", 1)
        meta[key] = value(type_name, text)
    if args.nested:
        key, depth = args.nested.split("=")
        payload = struct.pack("<IQ", 9, 0)  # an empty array of arrays
        for _ in range(int(depth) - 1):
            payload = struct.pack("<IQ", 9, 1) + payload
        meta[key] = (9, payload)
    if args.many_arrays:
        key, count = args.many_arrays.split("=")
        meta[key] = (9, struct.pack("<IQ", 9, int(count)) +
                     struct.pack("<IQ", 0, 0) * int(count))
    extra = b""
    if args.array:
        key, typed = args.array.split("=", 1)
        type_name, count = typed.split(":")
        code = 8 if type_name == "str" else TYPES[type_name][0]
        # Goes last, so the declared elements would run past the end.
        extra = gguf_string(key) + struct.pack("<IIQ", 9, code, int(count))

    hd = DIM // HEADS
    tensors = [("token_embd.weight", [DIM, VOCAB]), ("output_norm.weight", [DIM])]
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
                    (b + "ffn_up.weight", [DIM, HIDDEN])]
    offsets, data = {}, b""
    for name, dims in tensors:
        count = 1
        for d in dims:
            count *= d
        offsets[name] = len(data)
        blob = f32(count)
        if args.nonfinite and args.nonfinite.split("=")[0] == name:
            blob = struct.pack("<f", float(args.nonfinite.split("=")[1])) + blob[4:]
        data += blob + b"\0" * (-len(blob) % 32)
    if args.alias:
        a, b = args.alias.split("=")
        offsets[a] = offsets[b]

    out = b"GGUF" + struct.pack(
        "<IQQ", 3,
        len(tensors) if args.tensor_count is None else args.tensor_count,
        len(meta) + bool(extra) if args.metadata_count is None
        else args.metadata_count)
    for key, (code, payload) in meta.items():
        out += gguf_string(key) + struct.pack("<I", code) + payload
    if extra:
        open(args.out, "wb").write(out + extra)
        return
    for name, dims in tensors:
        out += gguf_string(name) + struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", 0, offsets[name])
    out += b"\0" * (-len(out) % 32)
    open(args.out, "wb").write(out + data)


if __name__ == "__main__":
    main()
