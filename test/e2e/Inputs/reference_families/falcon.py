"""Falcon: LayerNorm blocks, rotary positions, a fused query_key_value.

make-model:
  falcon  a Hugging Face directory (FalconForCausalLM names under
          "transformer.") in one of FalconConfig's layouts (--falcon-layout):
          7b   multi_query: one KV head, every query head's rows then the
               key's and the value's, one norm feeding attention and MLP
          new  new_decoder_architecture with --kv-heads groups: per group
               its queries, its key, its value; two norms (ln_attn, ln_mlp)
          rw   neither, parallel_attn false: per head its query, key and
               value rows, sequential blocks with post_attention_layernorm,
               biases (Falcon-RW; with --falcon-alibi, its ALiBi)

The reference:
  falcon  x + attn(ln(x)) + mlp(ln(x)) (7b), x + attn(ln_attn(x)) +
          mlp(ln_mlp(x)) (new), or x += attn(ln1(x)); x += mlp(ln2(x)) (rw);
          RoPE over whole heads rotating halves, or with alibi
          (q.k + slope_h * key position) / sqrt(head_dim) as Falcon adds
          its biases before the scale; GELU (erf); the final LayerNorm and
          the tied head.
"""
import json
import os

import torch

from reference_families.common import (Init, alibi_slopes, causal_attention, layer_norm,
                                       load_hf, rope, write_llama2c_tokenizer,
                                       write_safetensors)

DEFAULT_HIDDEN = 0  # 4 x dim


def add_make_arguments(parser):
    parser.add_argument("--falcon-layout", choices=["7b", "new", "rw"], default="7b",
                        help="falcon: FalconConfig's layout")
    parser.add_argument("--falcon-alibi", action="store_true",
                        help="falcon: ALiBi instead of RoPE (Falcon-RW-1B)")


def gelu_erf(x):
    return 0.5 * x * (1.0 + torch.erf(x / 2 ** 0.5))


def make_falcon(args):
    init = Init(args.seed)
    d, H = args.dim, args.heads
    hd, f = d // H, args.hidden or 4 * args.dim
    layout = args.falcon_layout
    KV = {"7b": 1, "new": args.kv_heads or H, "rw": H}[layout]
    bias = layout == "rw"
    p0 = "transformer."
    tensors = [(p0 + "word_embeddings.weight", init.normal(args.vocab, d))]
    for layer in range(args.layers):
        p = p0 + "h.%d." % layer
        norms = {"7b": ["input_layernorm"], "new": ["ln_attn", "ln_mlp"],
                 "rw": ["input_layernorm", "post_attention_layernorm"]}[layout]
        for norm in norms:
            tensors += [(p + norm + ".weight", init.norm(d)),
                        (p + norm + ".bias", init.normal(d, scale=0.1))]
        rows = (H + 2 * KV) * hd
        tensors.append((p + "self_attention.query_key_value.weight", init.linear(rows, d)))
        if bias:
            tensors.append((p + "self_attention.query_key_value.bias",
                            init.normal(rows, scale=0.2)))
        for name, shape in (("self_attention.dense", (d, d)),
                            ("mlp.dense_h_to_4h", (f, d)), ("mlp.dense_4h_to_h", (d, f))):
            tensors.append((p + name + ".weight", init.linear(*shape)))
            if bias:
                tensors.append((p + name + ".bias", init.normal(shape[0], scale=0.1)))
    tensors += [(p0 + "ln_f.weight", init.norm(d)), (p0 + "ln_f.bias", init.normal(d, scale=0.1))]
    config = {
        "model_type": "falcon", "architectures": ["FalconForCausalLM"],
        "hidden_size": d, "num_hidden_layers": args.layers,
        "num_attention_heads": H, "num_kv_heads": KV, "ffn_hidden_size": f,
        "vocab_size": args.vocab, "max_position_embeddings": args.context,
        "layer_norm_epsilon": args.eps, "rope_theta": args.rope_theta,
        "multi_query": layout == "7b", "new_decoder_architecture": layout == "new",
        "parallel_attn": layout != "rw", "bias": bias, "alibi": args.falcon_alibi,
        "num_ln_in_parallel_attn": 2 if layout == "new" else None,
        "activation": "gelu", "tie_word_embeddings": True,
        "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "float32",
    }
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as fh:
        json.dump(config, fh, indent=2)
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors)
    write_llama2c_tokenizer(os.path.join(args.out, "tokenizer.bin"), args.vocab)


def forward(config, t, ids):
    H = config["num_attention_heads"]
    eps, theta = config.get("layer_norm_epsilon", 1e-5), config.get("rope_theta", 10000.0)
    new = config.get("new_decoder_architecture", False)
    multi_query = config.get("multi_query", True)
    parallel = config.get("parallel_attn", True)
    p0 = "transformer."
    x = t[p0 + "word_embeddings.weight"][ids]
    T, d = x.shape
    hd = d // H
    KV = config.get("num_kv_heads") or H if new else (1 if multi_query else H)
    for i in range(config["num_hidden_layers"]):
        p = p0 + "h.%d." % i

        def proj(name, y):
            out = y @ t[p + name + ".weight"].T
            bias = t.get(p + name + ".bias")
            return out if bias is None else out + bias

        def ln(name, y):
            return layer_norm(y, t[p + name + ".weight"], t[p + name + ".bias"], eps)

        h = ln("ln_attn" if new else "input_layernorm", x)
        qkv = proj("self_attention.query_key_value", h)
        if new:
            g = qkv.reshape(T, KV, H // KV + 2, hd)
            q, k, v = g[:, :, :-2].reshape(T, H, hd), g[:, :, -2], g[:, :, -1]
        elif multi_query:
            q, k, v = qkv[:, :H * hd].reshape(T, H, hd), qkv[:, H * hd:(H + 1) * hd].reshape(T, 1, hd), \
                qkv[:, (H + 1) * hd:].reshape(T, 1, hd)
        else:
            g = qkv.reshape(T, H, 3, hd)
            q, k, v = g[:, :, 0], g[:, :, 1], g[:, :, 2]
        if config.get("alibi", False):
            attended = proj("self_attention.dense", alibi_attention(q, k, v))
        else:
            attended = proj("self_attention.dense",
                            causal_attention(rope(q, theta, False), rope(k, theta, False), v))
        if new or parallel:
            fed_input = ln("ln_mlp", x) if new else h
            x = x + attended + proj("mlp.dense_4h_to_h", gelu_erf(proj("mlp.dense_h_to_4h", fed_input)))
        else:
            x = x + attended
            x = x + proj("mlp.dense_4h_to_h",
                         gelu_erf(proj("mlp.dense_h_to_4h", ln("post_attention_layernorm", x))))
    x = layer_norm(x, t[p0 + "ln_f.weight"], t[p0 + "ln_f.bias"], eps)
    return x @ t[p0 + "word_embeddings.weight"].T


def alibi_attention(q, k, v):
    """Falcon's ALiBi: slope_h * key position added to q.k, then both
    scaled by 1/sqrt(head_dim); causal. q, k, v: [T, H, hd]."""
    T, H, hd = q.shape
    slopes = torch.tensor(alibi_slopes(H), dtype=torch.float64)
    scores = torch.einsum("thd,shd->hts", q, k)
    scores = (scores + slopes[:, None, None] * torch.arange(T, dtype=torch.float64)) / hd ** 0.5
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    probs = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
    return torch.einsum("hts,shd->thd", probs, v).reshape(T, H * hd)


MAKES = {"falcon": make_falcon}


def reads(model, config):
    return config is not None and config["model_type"] == "falcon"


def reference_logits(model, config, ids, args):
    config, tensors = load_hf(model)
    return forward(config, tensors, torch.tensor(ids, dtype=torch.long))
