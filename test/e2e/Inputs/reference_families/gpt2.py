"""GPT-2, and tfmc's sinusoidal GPT-2 preset.

make-model:
  gpt2     a Hugging Face directory (config.json, model.safetensors,
           vocab.json + merges.txt: 256 byte tokens + <|endoftext|>;
           a larger vocab_size leaves the ids above 256 to the model only)

The reference:
  gpt2     learned positions, LayerNorm with bias, Conv1D [in, out] weights
           with fused c_attn, GELU tanh approximation (gelu_new), tied head.
  gpt2-sinusoidal  gpt2 with the original Transformer's fixed encodings
           PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(same) added
           to the token embeddings instead of a learned table. compare's
           MODEL is then preset:gpt2-sinusoidal-tiny (with --seed, tfmc's
           --seed): its weights are regenerated as tfmc's presets draw them
           (splitmix64, canonical names in sorted order).
"""
import json
import os
import sys

import torch

from reference_families.common import (Init, causal_attention, gelu_tanh, layer_norm,
                                       load_hf, preset_weights, write_safetensors)

# ---------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------


def bytes_to_unicode():
    """GPT-2's reversible byte -> printable character map."""
    bs = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1))
          + list(range(ord("\xae"), ord("\xff") + 1)))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


def write_gpt2_tokenizer(directory, vocab):
    byte_map = bytes_to_unicode()
    tokens = {byte_map[b]: b for b in range(256)}
    tokens["<|endoftext|>"] = 256
    if vocab < len(tokens):
        sys.exit("gpt2 models here need vocab_size >= %d (256 bytes + <|endoftext|>)"
                 % len(tokens))
    with open(os.path.join(directory, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(tokens, f, ensure_ascii=False)
    with open(os.path.join(directory, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")


def gpt2_tensors(init, vocab, context, dim, hidden, layers):
    """Random GPT-2 weights under their Hugging Face names."""
    d, f = dim, hidden
    tensors = [("wte.weight", init.normal(vocab, d, scale=0.5)),
               ("wpe.weight", init.normal(context, d, scale=0.5))]
    for layer in range(layers):
        p = "h.%d." % layer
        # Conv1D stores [in, out]: the transpose of nn.Linear.
        tensors += [
            (p + "ln_1.weight", init.norm(d)), (p + "ln_1.bias", init.normal(d, scale=0.1)),
            (p + "attn.c_attn.weight", init.linear(3 * d, d).T.copy()),
            (p + "attn.c_attn.bias", init.normal(3 * d, scale=0.1)),
            (p + "attn.c_proj.weight", init.linear(d, d).T.copy()),
            (p + "attn.c_proj.bias", init.normal(d, scale=0.1)),
            (p + "ln_2.weight", init.norm(d)), (p + "ln_2.bias", init.normal(d, scale=0.1)),
            (p + "mlp.c_fc.weight", init.linear(f, d).T.copy()),
            (p + "mlp.c_fc.bias", init.normal(f, scale=0.1)),
            (p + "mlp.c_proj.weight", init.linear(d, f).T.copy()),
            (p + "mlp.c_proj.bias", init.normal(d, scale=0.1)),
        ]
    tensors += [("ln_f.weight", init.norm(d)), ("ln_f.bias", init.normal(d, scale=0.1))]
    return tensors


def make_gpt2(args):
    init = Init(args.seed)
    d, f = args.dim, args.hidden or 4 * args.dim
    tensors = gpt2_tensors(init, args.vocab, args.context, d, f, args.layers)
    config = {
        "model_type": "gpt2", "architectures": ["GPT2LMHeadModel"],
        "n_embd": d, "n_layer": args.layers, "n_head": args.heads,
        "n_inner": f, "vocab_size": args.vocab, "n_positions": args.context,
        "n_ctx": args.context, "layer_norm_epsilon": args.eps,
        "activation_function": "gelu_new",
        "bos_token_id": 256, "eos_token_id": 256,
    }
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as fh:
        json.dump(config, fh, indent=2)
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors)
    write_gpt2_tokenizer(args.out, args.vocab)


# ---------------------------------------------------------------------------
# The reference (float64)
# ---------------------------------------------------------------------------


def gpt2_forward(config, t, ids):
    eps = config.get("layer_norm_epsilon", 1e-5)
    H = config["n_head"]
    x = t["wte.weight"][ids] + t["wpe.weight"][torch.arange(len(ids))]
    T, d = x.shape
    hd = d // H
    for i in range(config["n_layer"]):
        p = "h.%d." % i
        h = layer_norm(x, t[p + "ln_1.weight"], t[p + "ln_1.bias"], eps)
        qkv = h @ t[p + "attn.c_attn.weight"] + t[p + "attn.c_attn.bias"]
        q, k, v = (part.reshape(T, H, hd) for part in qkv.split(d, dim=-1))
        x = x + causal_attention(q, k, v) @ t[p + "attn.c_proj.weight"] \
            + t[p + "attn.c_proj.bias"]
        h = layer_norm(x, t[p + "ln_2.weight"], t[p + "ln_2.bias"], eps)
        h = gelu_tanh(h @ t[p + "mlp.c_fc.weight"] + t[p + "mlp.c_fc.bias"])
        x = x + h @ t[p + "mlp.c_proj.weight"] + t[p + "mlp.c_proj.bias"]
    x = layer_norm(x, t["ln_f.weight"], t["ln_f.bias"], eps)
    return x @ t["wte.weight"].T


def sinusoidal_positions(n, d, base=10000.0):
    """The original Transformer's encodings of positions 0..n-1:
    PE(p, 2i) = sin(p / base^(2i/d)), PE(p, 2i+1) = cos(p / base^(2i/d))."""
    p = torch.arange(n, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d, 2, dtype=torch.float64)[None, :]
    angle = p / base ** (two_i / d)
    pe = torch.empty(n, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe


# The shapes of tfmc's sinusoidal GPT-2 preset (models/gpt2/Presets.cpp).
SINUSOIDAL_PRESETS = {"gpt2-sinusoidal-tiny": dict(dim=64, hidden=256, layers=2,
                                                   heads=4, vocab=257)}


def gpt2_sinusoidal_preset(name, seed):
    """The canonical weights ([out, in] matrices) of a sinusoidal GPT-2
    preset: no position table, LayerNorms and projections with biases,
    tied head."""
    p = SINUSOIDAL_PRESETS[name]
    d, f = p["dim"], p["hidden"]
    shapes = {"token_embedding": [p["vocab"], d],
              "final_norm.weight": [d], "final_norm.bias": [d]}
    for i in range(p["layers"]):
        layer = "layers.%d." % i
        for part, shape in [("attn_norm.weight", [d]), ("attn_norm.bias", [d]),
                            ("attn.wq", [d, d]), ("attn.wk", [d, d]),
                            ("attn.wv", [d, d]), ("attn.wo", [d, d]),
                            ("attn.bq", [d]), ("attn.bk", [d]), ("attn.bv", [d]),
                            ("attn.bo", [d]), ("ffn_norm.weight", [d]),
                            ("ffn_norm.bias", [d]), ("ffn.w_up", [f, d]),
                            ("ffn.b_up", [f]), ("ffn.w_down", [d, f]),
                            ("ffn.b_down", [d])]:
            shapes[layer + part] = shape
    return p, preset_weights(shapes, seed)


def gpt2_sinusoidal_forward(preset, t, ids, eps=1e-5):
    H, T = preset["heads"], len(ids)
    x = t["token_embedding"][ids] + sinusoidal_positions(T, preset["dim"])
    hd = preset["dim"] // H
    for i in range(preset["layers"]):
        p = "layers.%d." % i
        h = layer_norm(x, t[p + "attn_norm.weight"], t[p + "attn_norm.bias"], eps)
        q, k, v = ((h @ t[p + "attn.w" + n].T + t[p + "attn.b" + n]).reshape(T, H, hd)
                   for n in "qkv")
        x = x + causal_attention(q, k, v) @ t[p + "attn.wo"].T + t[p + "attn.bo"]
        h = layer_norm(x, t[p + "ffn_norm.weight"], t[p + "ffn_norm.bias"], eps)
        h = gelu_tanh(h @ t[p + "ffn.w_up"].T + t[p + "ffn.b_up"])
        x = x + h @ t[p + "ffn.w_down"].T + t[p + "ffn.b_down"]
    x = layer_norm(x, t["final_norm.weight"], t["final_norm.bias"], eps)
    return x @ t["token_embedding"].T


# ---------------------------------------------------------------------------
# The family's entries in torch_reference.py
# ---------------------------------------------------------------------------

MAKES = {"gpt2": make_gpt2}


def reads(model, config):
    """A Hugging Face GPT-2 directory, or a sinusoidal GPT-2 preset."""
    if config is None:
        return model.startswith("preset:") and model[len("preset:"):] in SINUSOIDAL_PRESETS
    return config["model_type"] == "gpt2"


def reference_logits(model, config, ids, args):
    ids = torch.tensor(ids, dtype=torch.long)
    if config is None:
        preset, tensors = gpt2_sinusoidal_preset(model[len("preset:"):], args.seed)
        return gpt2_sinusoidal_forward(preset, tensors, ids)
    return gpt2_forward(*load_hf(model), ids)
