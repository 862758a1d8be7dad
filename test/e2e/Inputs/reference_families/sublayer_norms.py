"""Gemma 2, Gemma 3 and OLMo-2: norms after the sublayers.

make-model:
  gemma2  a Hugging Face directory (Gemma2ForCausalLM names: input_,
          post_attention_, pre_feedforward_ and post_feedforward_layernorm,
          (1 + w) RMSNorms stored as offsets); --head-dim, --window (the
          even layers'), --query-scalar (query_pre_attn_scalar),
          --attn-softcap and --final-softcap (0 writes null: off)
  gemma3  model_type gemma3_text: gemma2's layer plus per-head
          self_attn.q_norm / k_norm, --window-pattern (every Nth layer
          global), --rope-theta for the global layers (with
          --rope-scaling), --local-rope-theta for the sliding ones; no soft
          caps unless given; --config-style 5 writes rope_parameters per
          layer kind and layer_types
  olmo2   an Olmo2ForCausalLM directory: post_attention_ and
          post_feedforward_layernorm only, self_attn.q_norm / k_norm over
          all heads ([heads * head_dim], [kv_heads * head_dim])

The reference:
  gemma2  x * sqrt(hidden); per layer x += post(attn(pre(x))) with scores
          q.k * query_pre_attn_scalar^-1/2, soft-capped as
          cap * tanh(s / cap), sliding layers seeing keys (i - W, i];
          x += post(mlp(pre(x))), GeGLU; norms scale by (1 + w); final
          norm, tied head, logits soft-capped.
  gemma3  as gemma2, each head's queries and keys RMS-normalised (1 + w)
          before RoPE; sliding layers rotate at the local base, unscaled,
          global ones at rope_theta with the configured scaling.
  olmo2   x += post(attn(x)), x += post(mlp(x)) (SwiGLU); queries and keys
          RMS-normalised across all heads before RoPE (half-split pairs).
"""
import json
import math
import os

import numpy as np
import torch

from reference_families.common import (Init, gelu_tanh, load_hf, rms_norm, rope,
                                       write_llama2c_tokenizer, write_safetensors)

ARCHITECTURES = {"gemma2": "Gemma2ForCausalLM", "gemma3": "Gemma3ForCausalLM",
                 "olmo2": "Olmo2ForCausalLM"}
MODEL_TYPES = {"gemma2": "gemma2", "gemma3": "gemma3_text", "olmo2": "olmo2"}


def add_make_arguments(parser):
    parser.add_argument("--query-scalar", type=float, default=0,
                        help="gemma2, gemma3: query_pre_attn_scalar (0: head_dim)")
    parser.add_argument("--attn-softcap", type=float, default=-1,
                        help="gemma2, gemma3: attn_logit_softcapping (0: null; "
                             "-1: not written)")
    parser.add_argument("--final-softcap", type=float, default=-1,
                        help="gemma2, gemma3: final_logit_softcapping (0: null; "
                             "-1: not written)")
    parser.add_argument("--window-pattern", type=int, default=6,
                        help="gemma3: sliding_window_pattern")
    parser.add_argument("--local-rope-theta", type=float, default=10000.0,
                        help="gemma3: rope_local_base_freq")


# ---------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------


def make(args):
    init = Init(args.seed)
    family = args.family
    gemma = family != "olmo2"
    d, f, H = args.dim, args.hidden, args.heads
    KV = args.kv_heads or H
    hd = args.head_dim or d // H
    # Gemma stores norm weights as offsets from 1.
    norm = (lambda n: init.normal(n, scale=0.1)) if gemma else init.norm
    tensors = [("model.embed_tokens.weight", init.normal(args.vocab, d))]
    for layer in range(args.layers):
        p = "model.layers.%d." % layer
        if gemma:
            tensors.append((p + "input_layernorm.weight", norm(d)))
        tensors += [
            (p + "self_attn.q_proj.weight", init.linear(H * hd, d)),
            (p + "self_attn.k_proj.weight", init.linear(KV * hd, d)),
            (p + "self_attn.v_proj.weight", init.linear(KV * hd, d)),
            (p + "self_attn.o_proj.weight", init.linear(d, H * hd)),
            (p + "post_attention_layernorm.weight", norm(d)),
        ]
        if family == "gemma3":
            tensors += [(p + "self_attn.q_norm.weight", norm(hd)),
                        (p + "self_attn.k_norm.weight", norm(hd))]
        if family == "olmo2":
            tensors += [(p + "self_attn.q_norm.weight", norm(H * hd)),
                        (p + "self_attn.k_norm.weight", norm(KV * hd))]
        if gemma:
            tensors.append((p + "pre_feedforward_layernorm.weight", norm(d)))
        tensors += [
            (p + "mlp.gate_proj.weight", init.linear(f, d)),
            (p + "mlp.up_proj.weight", init.linear(f, d)),
            (p + "mlp.down_proj.weight", init.linear(d, f)),
            (p + "post_feedforward_layernorm.weight", norm(d)),
        ]
    tensors.append(("model.norm.weight", norm(d)))
    tie = args.tie and gemma
    if not tie:
        tensors.append(("lm_head.weight", init.linear(args.vocab, d)))
    config = {
        "model_type": MODEL_TYPES[family], "architectures": [ARCHITECTURES[family]],
        "hidden_size": d, "intermediate_size": f,
        "num_hidden_layers": args.layers, "num_attention_heads": H,
        "num_key_value_heads": KV, "vocab_size": args.vocab,
        "max_position_embeddings": args.context, "rms_norm_eps": args.eps,
        "tie_word_embeddings": tie, "attention_bias": False,
        "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "float32",
    }
    scaling = json.loads(args.rope_scaling) if args.rope_scaling else None
    if gemma:
        config.update({
            "head_dim": hd, "hidden_act": "gelu_pytorch_tanh",
            "hidden_activation": "gelu_pytorch_tanh",
            "query_pre_attn_scalar": args.query_scalar or hd,
            "sliding_window": args.window or 4096,
        })
        for key, value in (("attn_logit_softcapping", args.attn_softcap),
                           ("final_logit_softcapping", args.final_softcap)):
            if value >= 0:
                config[key] = value or None
    else:
        config["hidden_act"] = "silu"
    if family == "gemma3" and args.config_style == 5:
        full = {"rope_type": "default", "rope_theta": args.rope_theta}
        full.update(scaling or {})
        config["rope_parameters"] = {
            "full_attention": full,
            "sliding_attention": {"rope_type": "default",
                                  "rope_theta": args.local_rope_theta}}
        config["layer_types"] = [
            "full_attention" if (i + 1) % args.window_pattern == 0 else "sliding_attention"
            for i in range(args.layers)]
    else:
        config["rope_theta"] = args.rope_theta
        if scaling:
            config["rope_scaling"] = scaling
        if family == "gemma3":
            config["rope_local_base_freq"] = args.local_rope_theta
            config["sliding_window_pattern"] = args.window_pattern
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as fh:
        json.dump(config, fh, indent=2)
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors)
    write_llama2c_tokenizer(os.path.join(args.out, "tokenizer.bin"), args.vocab)


# ---------------------------------------------------------------------------
# The reference (float64)
# ---------------------------------------------------------------------------


class Caps:
    """How many scores and logits a soft cap actually squashed (above the
    cap before capping): a test of capping must see some."""

    def __init__(self):
        self.scores = 0
        self.logits = 0


def soft_cap(x, cap):
    return cap * torch.tanh(x / cap)


def attention(q, k, v, scale, window, cap, caps):
    """q: [T, H, hd]; k, v: [T, KV, hd]. Scores scaled by `scale`, then
    soft-capped at `cap` (0: not), then masked (a window W: keys (i - W, i])."""
    T, H, hd = q.shape
    group = H // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = torch.einsum("thd,shd->hts", q, k) * scale
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    if window:
        mask |= torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-window)
    if cap:
        caps.scores += int((scores.abs() > cap)[:, ~mask].sum())
        scores = soft_cap(scores, cap)
    probs = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
    return torch.einsum("hts,shd->thd", probs, v).reshape(T, H * hd)


def layer_kinds(config):
    """Each layer's window (0: global), as transformers reads config.json."""
    n = config["num_hidden_layers"]
    if config["model_type"] == "olmo2":
        return [0] * n
    window = config.get("sliding_window") or 4096
    pattern = 2 if config["model_type"] == "gemma2" else config.get("sliding_window_pattern", 6)
    kinds = config.get("layer_types") or [
        "sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(n)]
    return [window if kind == "sliding_attention" else 0 for kind in kinds]


def forward(config, t, ids, caps):
    family = config["model_type"]
    gemma = family != "olmo2"
    H = config["num_attention_heads"]
    KV = config.get("num_key_value_heads", H)
    eps = config.get("rms_norm_eps", 1e-6)
    x = t["model.embed_tokens.weight"][ids]
    T, d = x.shape
    hd = config.get("head_dim") or d // H
    if gemma:
        # transformers multiplies by the scale rounded to the activations' type.
        x = x * float(np.float32(math.sqrt(d)))
        scale = config.get("query_pre_attn_scalar", 256) ** -0.5
    else:
        scale = hd ** -0.5
    cap = config.get("attn_logit_softcapping",
                     50.0 if family == "gemma2" else None) or 0
    final_cap = config.get("final_logit_softcapping",
                           30.0 if family == "gemma2" else None) or 0
    parameters = config.get("rope_parameters")
    if parameters and "full_attention" in parameters:
        full = dict(parameters["full_attention"])
        theta = full.pop("rope_theta")
        local_theta = parameters["sliding_attention"]["rope_theta"]
        scaling = full
    else:
        theta = config.get("rope_theta", 1000000.0 if family == "gemma3_text" else 10000.0)
        local_theta = config.get("rope_local_base_freq", 10000.0)
        scaling = dict(config.get("rope_scaling") or {})
    scaling["max_position_embeddings"] = config["max_position_embeddings"]

    def norm(y, name):
        weight = t[name]
        return rms_norm(y, 1.0 + weight if gemma else weight, eps)

    windows = layer_kinds(config)
    for i, window in enumerate(windows):
        p = "model.layers.%d." % i
        h = norm(x, p + "input_layernorm.weight") if gemma else x
        q = h @ t[p + "self_attn.q_proj.weight"].T
        k = h @ t[p + "self_attn.k_proj.weight"].T
        v = (h @ t[p + "self_attn.v_proj.weight"].T).reshape(T, KV, hd)
        if family == "olmo2":
            q, k = norm(q, p + "self_attn.q_norm.weight"), norm(k, p + "self_attn.k_norm.weight")
        q, k = q.reshape(T, H, hd), k.reshape(T, KV, hd)
        if family == "gemma3_text":
            q, k = norm(q, p + "self_attn.q_norm.weight"), norm(k, p + "self_attn.k_norm.weight")
        if family == "gemma3_text" and window:
            q, k = rope(q, local_theta, False), rope(k, local_theta, False)
        else:
            q, k = rope(q, theta, False, scaling), rope(k, theta, False, scaling)
        attended = attention(q, k, v, scale, window, cap, caps) @ t[p + "self_attn.o_proj.weight"].T
        x = x + norm(attended, p + "post_attention_layernorm.weight")
        h = norm(x, p + "pre_feedforward_layernorm.weight") if gemma else x
        gate = h @ t[p + "mlp.gate_proj.weight"].T
        gate = gelu_tanh(gate) if gemma else gate * torch.sigmoid(gate)
        fed = (gate * (h @ t[p + "mlp.up_proj.weight"].T)) @ t[p + "mlp.down_proj.weight"].T
        x = x + norm(fed, p + "post_feedforward_layernorm.weight")
    x = norm(x, "model.norm.weight")
    head = t.get("lm_head.weight")
    if head is None or config.get("tie_word_embeddings", gemma):
        head = t["model.embed_tokens.weight"]
    logits = x @ head.T
    if final_cap:
        caps.logits += int((logits.abs() > final_cap).sum())
        logits = soft_cap(logits, final_cap)
    return logits


# ---------------------------------------------------------------------------
# The family's entries in torch_reference.py
# ---------------------------------------------------------------------------

MAKES = {family: make for family in ARCHITECTURES}


def reads(model, config):
    return config is not None and config["model_type"] in MODEL_TYPES.values()


def reference_logits(model, config, ids, args):
    config, tensors = load_hf(model)
    caps = Caps()
    logits = forward(config, tensors, torch.tensor(ids, dtype=torch.long), caps)
    if caps.scores or caps.logits:
        print("soft caps squashed %d scores and %d logits" % (caps.scores, caps.logits))
    return logits
