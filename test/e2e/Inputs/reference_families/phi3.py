"""Phi-3: LLaMA's blocks with fused projections.

make-model:
  phi3  a Hugging Face directory (Phi3ForCausalLM names: one
        self_attn.qkv_proj, Q's rows then K's then V's, and one
        mlp.gate_up_proj, the gate's rows first); --rope-scaling (a
        longrope object: short_factor, long_factor), --original-context
        (original_max_position_embeddings at the top level, as Phi-3 states
        it), --partial-rotary, --window (sliding_window, every layer)

The reference:
  phi3  RMSNorm; qkv split by rows; RoPE rotating halves of each head's
        first partial_rotary_factor features, LongRoPE dividing each
        frequency by the short factors, or by the long ones once the
        sequence passes the original context, and multiplying cos and sin
        by sqrt(1 + ln(s) / ln(original)), s = max_position_embeddings /
        original; causal attention within the window; SwiGLU on the
        gate_up split; an untied head.
"""
import json
import os

import torch

from reference_families.common import (Init, causal_attention, load_hf, rms_norm, rope,
                                       write_llama2c_tokenizer, write_safetensors)


def add_make_arguments(parser):
    parser.add_argument("--original-context", type=int, default=0,
                        help="phi3: original_max_position_embeddings (0: none)")
    parser.add_argument("--partial-rotary", type=float, default=1.0,
                        help="phi3: partial_rotary_factor")


def make_phi3(args):
    init = Init(args.seed)
    d, f, H = args.dim, args.hidden, args.heads
    KV = args.kv_heads or H
    hd = d // H
    tensors = [("model.embed_tokens.weight", init.normal(args.vocab, d))]
    for layer in range(args.layers):
        p = "model.layers.%d." % layer
        tensors += [
            (p + "input_layernorm.weight", init.norm(d)),
            (p + "self_attn.qkv_proj.weight", init.linear((H + 2 * KV) * hd, d)),
            (p + "self_attn.o_proj.weight", init.linear(d, H * hd)),
            (p + "post_attention_layernorm.weight", init.norm(d)),
            (p + "mlp.gate_up_proj.weight", init.linear(2 * f, d)),
            (p + "mlp.down_proj.weight", init.linear(d, f)),
        ]
    tensors += [("model.norm.weight", init.norm(d)),
                ("lm_head.weight", init.linear(args.vocab, d))]
    config = {
        "model_type": "phi3", "architectures": ["Phi3ForCausalLM"],
        "hidden_size": d, "intermediate_size": f,
        "num_hidden_layers": args.layers, "num_attention_heads": H,
        "num_key_value_heads": KV, "vocab_size": args.vocab,
        "max_position_embeddings": args.context, "rms_norm_eps": args.eps,
        "rope_theta": args.rope_theta, "hidden_act": "silu",
        "partial_rotary_factor": args.partial_rotary,
        "sliding_window": args.window or None, "tie_word_embeddings": False,
        "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "float32",
    }
    if args.original_context:
        config["original_max_position_embeddings"] = args.original_context
    if args.rope_scaling:
        config["rope_scaling"] = json.loads(args.rope_scaling)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as fh:
        json.dump(config, fh, indent=2)
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors)
    write_llama2c_tokenizer(os.path.join(args.out, "tokenizer.bin"), args.vocab)


def forward(config, t, ids):
    H = config["num_attention_heads"]
    KV = config.get("num_key_value_heads") or H
    eps = config.get("rms_norm_eps", 1e-5)
    x = t["model.embed_tokens.weight"][ids]
    T, d = x.shape
    hd = d // H
    rotary = int(hd * config.get("partial_rotary_factor", 1.0))
    theta = config.get("rope_theta", 10000.0)
    scaling = dict(config.get("rope_scaling") or {})
    scaling["max_position_embeddings"] = config["max_position_embeddings"]
    if "original_max_position_embeddings" in config:
        scaling["top_original"] = config["original_max_position_embeddings"]
    window = config.get("sliding_window") or 0

    def rotate(y):
        turned = rope(y[..., :rotary].contiguous(), theta, False, scaling)
        return torch.cat([turned, y[..., rotary:]], dim=-1)

    for i in range(config["num_hidden_layers"]):
        p = "model.layers.%d." % i
        h = rms_norm(x, t[p + "input_layernorm.weight"], eps)
        qkv = h @ t[p + "self_attn.qkv_proj.weight"].T
        q = rotate(qkv[:, :H * hd].reshape(T, H, hd))
        k = rotate(qkv[:, H * hd:(H + KV) * hd].reshape(T, KV, hd))
        v = qkv[:, (H + KV) * hd:].reshape(T, KV, hd)
        x = x + causal_attention(q, k, v, window) @ t[p + "self_attn.o_proj.weight"].T
        h = rms_norm(x, t[p + "post_attention_layernorm.weight"], eps)
        gate, up = (h @ t[p + "mlp.gate_up_proj.weight"].T).chunk(2, dim=-1)
        x = x + (gate * torch.sigmoid(gate) * up) @ t[p + "mlp.down_proj.weight"].T
    x = rms_norm(x, t["model.norm.weight"], eps)
    return x @ t["lm_head.weight"].T


MAKES = {"phi3": make_phi3}


def reads(model, config):
    return config is not None and config["model_type"] == "phi3"


def reference_logits(model, config, ids, args):
    config, tensors = load_hf(model)
    return forward(config, tensors, torch.tensor(ids, dtype=torch.long))
