"""BLOOM.

make-model:
  bloom    a Hugging Face directory (BloomForCausalLM names, fused
           per-head query_key_value; tokenizer.bin as for llama)

The reference:
  bloom    LayerNorm of the embeddings, ALiBi (scores + slope_h * key
           position; the ALiBi paper's slopes, also for head counts that
           are not a power of two), LayerNorm blocks with biases, GELU
           tanh, tied head.
"""
import json
import math
import os

import numpy as np
import torch

from reference_families.common import (alibi_slopes, Init, gelu_tanh, layer_norm, load_hf,
                                       write_llama2c_tokenizer, write_safetensors)

# ---------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------


def make_bloom(args):
    init = Init(args.seed)
    d, H = args.dim, args.heads
    hd = d // H
    p0 = "transformer."
    tensors = [(p0 + "word_embeddings.weight", init.normal(args.vocab, d)),
               (p0 + "word_embeddings_layernorm.weight", init.norm(d)),
               (p0 + "word_embeddings_layernorm.bias", init.normal(d, scale=0.1))]
    for layer in range(args.layers):
        p = p0 + "h.%d." % layer
        # [heads, (q, k, v), head_dim] rows.
        qkv = np.stack([init.linear(H * hd, d).reshape(H, hd, d) for _ in range(3)],
                       axis=1).reshape(3 * d, d)
        tensors += [
            (p + "input_layernorm.weight", init.norm(d)),
            (p + "input_layernorm.bias", init.normal(d, scale=0.1)),
            (p + "self_attention.query_key_value.weight", qkv),
            (p + "self_attention.query_key_value.bias", init.normal(3 * d, scale=0.3)),
            (p + "self_attention.dense.weight", init.linear(d, d)),
            (p + "self_attention.dense.bias", init.normal(d, scale=0.1)),
            (p + "post_attention_layernorm.weight", init.norm(d)),
            (p + "post_attention_layernorm.bias", init.normal(d, scale=0.1)),
            (p + "mlp.dense_h_to_4h.weight", init.linear(4 * d, d)),
            (p + "mlp.dense_h_to_4h.bias", init.normal(4 * d, scale=0.1)),
            (p + "mlp.dense_4h_to_h.weight", init.linear(d, 4 * d)),
            (p + "mlp.dense_4h_to_h.bias", init.normal(d, scale=0.1)),
        ]
    tensors += [(p0 + "ln_f.weight", init.norm(d)), (p0 + "ln_f.bias", init.normal(d, scale=0.1))]
    # The head is tied: BloomForCausalLM saves it anyway.
    tensors.append(("lm_head.weight", tensors[0][1]))
    config = {
        "model_type": "bloom", "architectures": ["BloomForCausalLM"],
        "hidden_size": d, "n_layer": args.layers, "n_head": H,
        "vocab_size": args.vocab, "layer_norm_epsilon": args.eps,
        "seq_length": args.context, "bos_token_id": 1, "eos_token_id": 2,
        "apply_residual_connection_post_layernorm": False,
    }
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as fh:
        json.dump(config, fh, indent=2)
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors)
    write_llama2c_tokenizer(os.path.join(args.out, "tokenizer.bin"), args.vocab)


# ---------------------------------------------------------------------------
# The reference (float64)
# ---------------------------------------------------------------------------


def bloom_forward(config, t, ids):
    p0 = "transformer." if "transformer.word_embeddings.weight" in t else ""
    eps = config.get("layer_norm_epsilon", 1e-5)
    H = config.get("n_head", config.get("num_attention_heads"))
    emb = t[p0 + "word_embeddings.weight"]
    x = layer_norm(emb[ids], t[p0 + "word_embeddings_layernorm.weight"],
                   t[p0 + "word_embeddings_layernorm.bias"], eps)
    T, d = x.shape
    hd = d // H
    slopes = torch.tensor(alibi_slopes(H), dtype=torch.float64)
    bias = slopes[:, None, None] * torch.arange(T, dtype=torch.float64)[None, None, :]
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    for i in range(config["n_layer"]):
        p = p0 + "h.%d." % i
        h = layer_norm(x, t[p + "input_layernorm.weight"], t[p + "input_layernorm.bias"], eps)
        qkv = (h @ t[p + "self_attention.query_key_value.weight"].T
               + t[p + "self_attention.query_key_value.bias"]).reshape(T, H, 3, hd)
        q, k, v = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]
        scores = torch.einsum("thd,shd->hts", q, k) / math.sqrt(hd) + bias
        probs = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        attended = torch.einsum("hts,shd->thd", probs, v).reshape(T, d)
        x = x + attended @ t[p + "self_attention.dense.weight"].T \
            + t[p + "self_attention.dense.bias"]
        h = layer_norm(x, t[p + "post_attention_layernorm.weight"],
                       t[p + "post_attention_layernorm.bias"], eps)
        h = gelu_tanh(h @ t[p + "mlp.dense_h_to_4h.weight"].T + t[p + "mlp.dense_h_to_4h.bias"])
        x = x + h @ t[p + "mlp.dense_4h_to_h.weight"].T + t[p + "mlp.dense_4h_to_h.bias"]
    x = layer_norm(x, t[p0 + "ln_f.weight"], t[p0 + "ln_f.bias"], eps)
    return x @ emb.T


# ---------------------------------------------------------------------------
# The family's entries in torch_reference.py
# ---------------------------------------------------------------------------

MAKES = {"bloom": make_bloom}


def reads(model, config):
    return config is not None and config["model_type"] == "bloom"


def reference_logits(model, config, ids, args):
    return bloom_forward(*load_hf(model), torch.tensor(ids, dtype=torch.long))
