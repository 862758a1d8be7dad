"""GPT-NeoX, Phi, GPT-J and StableLM: partial rotary, parallel blocks.

make-model:
  gpt_neox  a Hugging Face directory (GPTNeoXForCausalLM names: fused
            per-head query_key_value, embed_out); --rotary-pct, --act,
            --sequential (use_parallel_residual false)
  phi       a Hugging Face directory (PhiForCausalLM names: separate
            q/k/v projections, dense, fc1/fc2, a biased lm_head);
            --rotary-pct is its partial_rotary_factor
  gptj      a Hugging Face directory (GPTJForCausalLM names, under
            "transformer."); --rotary-pct * head size is its rotary_dim
  stablelm  a Hugging Face directory (StableLmForCausalLM: LLaMA's names
            plus LayerNorm biases, Q/K/V biases, --kv-heads);
            --rotary-pct is its partial_rotary_factor, --parallel sets
            use_parallel_residual, --qk-layernorm qk_layernorm (a
            q_layernorm.norms.{head} and k_layernorm.norms.{head} weight
            per head, as StableLM 2 12B)

The reference:
  gpt_neox  LayerNorm blocks with biases; x + attn(ln1(x)) + mlp(ln2(x))
            (or sequential); RoPE on each head's first rotary_pct
            features, rotate_half pairing within them; GELU (erf or tanh);
            an untied head.
  phi       x + attn(ln(x)) + mlp(ln(x)), one LayerNorm for both; RoPE on
            the first partial_rotary_factor features; GELU tanh; a head
            with a bias.
  gptj      as phi, but RoPE pairs neighbours (2i, 2i + 1) within the
            first rotary_dim features (rotate_every_two) and Q/K/V and the
            output projection have no biases.
  stablelm  LLaMA's blocks (SwiGLU, GQA) with LayerNorms, Q/K/V biases and
            RoPE on the first partial_rotary_factor features
            (rotate_half); with use_parallel_residual, phi's layer; with
            qk_layernorm, each head's queries and keys pass a LayerNorm
            without bias, with that head's weights, before RoPE.
"""
import json
import math
import os

import torch

from reference_families.common import (Init, causal_attention, gelu_tanh, layer_norm,
                                       load_hf, write_llama2c_tokenizer, write_safetensors)

DEFAULT_HIDDEN = 0  # 4 x dim, as both families' configs default to


def add_make_arguments(parser):
    parser.add_argument("--rotary-pct", type=float, default=0.25,
                        help="gpt_neox rotary_pct, phi partial_rotary_factor")
    parser.add_argument("--act", choices=["gelu", "gelu_new"], default="gelu",
                        help="gpt_neox hidden_act (phi is always gelu_new)")
    parser.add_argument("--sequential", action="store_true",
                        help="gpt_neox use_parallel_residual false")
    parser.add_argument("--parallel", action="store_true",
                        help="stablelm use_parallel_residual true")
    parser.add_argument("--qk-layernorm", action="store_true",
                        help="stablelm qk_layernorm true (per-head norms)")


# ---------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------


def _write(args, config, tensors):
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as fh:
        json.dump(config, fh, indent=2)
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors)
    write_llama2c_tokenizer(os.path.join(args.out, "tokenizer.bin"), args.vocab)


def make_gpt_neox(args):
    init = Init(args.seed)
    d, H = args.dim, args.heads
    hd, hidden = d // H, args.hidden or 4 * args.dim
    p0 = "gpt_neox."
    tensors = [(p0 + "embed_in.weight", init.normal(args.vocab, d))]
    for layer in range(args.layers):
        p = p0 + "layers.%d." % layer
        # [heads, (q, k, v), head_dim] rows.
        qkv = torch.stack([torch.from_numpy(init.linear(d, d)).reshape(H, hd, d)
                           for _ in range(3)], dim=1).reshape(3 * d, d).numpy()
        tensors += [
            (p + "input_layernorm.weight", init.norm(d)),
            (p + "input_layernorm.bias", init.normal(d, scale=0.1)),
            (p + "post_attention_layernorm.weight", init.norm(d)),
            (p + "post_attention_layernorm.bias", init.normal(d, scale=0.1)),
            (p + "attention.query_key_value.weight", qkv),
            (p + "attention.query_key_value.bias", init.normal(3 * d, scale=0.3)),
            (p + "attention.dense.weight", init.linear(d, d)),
            (p + "attention.dense.bias", init.normal(d, scale=0.1)),
            (p + "mlp.dense_h_to_4h.weight", init.linear(hidden, d)),
            (p + "mlp.dense_h_to_4h.bias", init.normal(hidden, scale=0.1)),
            (p + "mlp.dense_4h_to_h.weight", init.linear(d, hidden)),
            (p + "mlp.dense_4h_to_h.bias", init.normal(d, scale=0.1)),
        ]
    tensors += [(p0 + "final_layer_norm.weight", init.norm(d)),
                (p0 + "final_layer_norm.bias", init.normal(d, scale=0.1)),
                ("embed_out.weight", init.linear(args.vocab, d))]
    config = {
        "model_type": "gpt_neox", "architectures": ["GPTNeoXForCausalLM"],
        "hidden_size": d, "num_hidden_layers": args.layers,
        "num_attention_heads": H, "intermediate_size": hidden,
        "vocab_size": args.vocab, "max_position_embeddings": args.context,
        "rotary_pct": args.rotary_pct, "rotary_emb_base": args.rope_theta,
        "layer_norm_eps": args.eps, "hidden_act": args.act,
        "use_parallel_residual": not args.sequential,
        "tie_word_embeddings": False, "bos_token_id": 1, "eos_token_id": 2,
    }
    _write(args, config, tensors)


def make_phi(args):
    init = Init(args.seed)
    d, H = args.dim, args.heads
    hd, hidden = d // H, args.hidden or 4 * args.dim
    p0 = "model."
    tensors = [(p0 + "embed_tokens.weight", init.normal(args.vocab, d))]
    for layer in range(args.layers):
        p = p0 + "layers.%d." % layer
        tensors += [
            (p + "input_layernorm.weight", init.norm(d)),
            (p + "input_layernorm.bias", init.normal(d, scale=0.1)),
        ]
        for name in ("q_proj", "k_proj", "v_proj", "dense"):
            tensors += [(p + "self_attn.%s.weight" % name, init.linear(d, d)),
                        (p + "self_attn.%s.bias" % name, init.normal(d, scale=0.2))]
        tensors += [
            (p + "mlp.fc1.weight", init.linear(hidden, d)),
            (p + "mlp.fc1.bias", init.normal(hidden, scale=0.1)),
            (p + "mlp.fc2.weight", init.linear(d, hidden)),
            (p + "mlp.fc2.bias", init.normal(d, scale=0.1)),
        ]
    tensors += [(p0 + "final_layernorm.weight", init.norm(d)),
                (p0 + "final_layernorm.bias", init.normal(d, scale=0.1)),
                ("lm_head.weight", init.linear(args.vocab, d)),
                ("lm_head.bias", init.normal(args.vocab, scale=0.5))]
    config = {
        "model_type": "phi", "architectures": ["PhiForCausalLM"],
        "hidden_size": d, "num_hidden_layers": args.layers,
        "num_attention_heads": H, "num_key_value_heads": H,
        "intermediate_size": hidden, "vocab_size": args.vocab,
        "max_position_embeddings": args.context,
        "partial_rotary_factor": args.rotary_pct, "rope_theta": args.rope_theta,
        "layer_norm_eps": args.eps, "hidden_act": "gelu_new",
        "qk_layernorm": False, "tie_word_embeddings": False,
        "bos_token_id": 1, "eos_token_id": 2,
    }
    _write(args, config, tensors)


def make_gptj(args):
    init = Init(args.seed)
    d, H = args.dim, args.heads
    hd, hidden = d // H, args.hidden or 4 * args.dim
    p0 = "transformer."
    tensors = [(p0 + "wte.weight", init.normal(args.vocab, d))]
    for layer in range(args.layers):
        p = p0 + "h.%d." % layer
        tensors += [(p + "ln_1.weight", init.norm(d)),
                    (p + "ln_1.bias", init.normal(d, scale=0.1))]
        for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
            tensors.append((p + "attn.%s.weight" % name, init.linear(d, d)))
        tensors += [
            (p + "mlp.fc_in.weight", init.linear(hidden, d)),
            (p + "mlp.fc_in.bias", init.normal(hidden, scale=0.1)),
            (p + "mlp.fc_out.weight", init.linear(d, hidden)),
            (p + "mlp.fc_out.bias", init.normal(d, scale=0.1)),
        ]
    tensors += [(p0 + "ln_f.weight", init.norm(d)),
                (p0 + "ln_f.bias", init.normal(d, scale=0.1)),
                ("lm_head.weight", init.linear(args.vocab, d)),
                ("lm_head.bias", init.normal(args.vocab, scale=0.5))]
    config = {
        "model_type": "gptj", "architectures": ["GPTJForCausalLM"],
        "n_embd": d, "n_layer": args.layers, "n_head": H, "n_inner": hidden,
        "vocab_size": args.vocab, "n_positions": args.context,
        "rotary_dim": int(args.rotary_pct * hd), "layer_norm_epsilon": args.eps,
        "activation_function": "gelu_new", "tie_word_embeddings": False,
        "bos_token_id": 1, "eos_token_id": 2,
    }
    _write(args, config, tensors)


def make_stablelm(args):
    init = Init(args.seed)
    d, H = args.dim, args.heads
    KV = args.kv_heads or H
    hd, hidden = d // H, args.hidden or 4 * args.dim
    p0 = "model."
    tensors = [(p0 + "embed_tokens.weight", init.normal(args.vocab, d))]
    for layer in range(args.layers):
        p = p0 + "layers.%d." % layer
        norms = ["input_layernorm"] + ([] if args.parallel else ["post_attention_layernorm"])
        for norm in norms:
            tensors += [(p + norm + ".weight", init.norm(d)),
                        (p + norm + ".bias", init.normal(d, scale=0.1))]
        for name, rows in (("q_proj", H * hd), ("k_proj", KV * hd), ("v_proj", KV * hd)):
            tensors += [(p + "self_attn.%s.weight" % name, init.linear(rows, d)),
                        (p + "self_attn.%s.bias" % name, init.normal(rows, scale=0.2))]
        if args.qk_layernorm:
            for which, heads in (("q", H), ("k", KV)):
                tensors += [(p + "self_attn.%s_layernorm.norms.%d.weight" % (which, h),
                             init.norm(hd)) for h in range(heads)]
        tensors += [
            (p + "self_attn.o_proj.weight", init.linear(d, H * hd)),
            (p + "mlp.gate_proj.weight", init.linear(hidden, d)),
            (p + "mlp.up_proj.weight", init.linear(hidden, d)),
            (p + "mlp.down_proj.weight", init.linear(d, hidden)),
        ]
    tensors += [(p0 + "norm.weight", init.norm(d)),
                (p0 + "norm.bias", init.normal(d, scale=0.1)),
                ("lm_head.weight", init.linear(args.vocab, d))]
    config = {
        "model_type": "stablelm", "architectures": ["StableLmForCausalLM"],
        "hidden_size": d, "num_hidden_layers": args.layers,
        "num_attention_heads": H, "num_key_value_heads": KV,
        "intermediate_size": hidden, "vocab_size": args.vocab,
        "max_position_embeddings": args.context,
        "partial_rotary_factor": args.rotary_pct, "rope_theta": args.rope_theta,
        "layer_norm_eps": args.eps, "hidden_act": "silu", "use_qkv_bias": True,
        "qk_layernorm": args.qk_layernorm, "use_parallel_residual": args.parallel,
        "tie_word_embeddings": False, "bos_token_id": 1, "eos_token_id": 2,
    }
    _write(args, config, tensors)


# ---------------------------------------------------------------------------
# The reference (float64)
# ---------------------------------------------------------------------------


def partial_rope(x, rotary, theta):
    """x: [T, heads, hd]; rotates each head's first `rotary` features at
    positions 0..T-1, pairing (i, i + rotary / 2) (rotate_half), and keeps
    the rest."""
    T = x.shape[0]
    half = rotary // 2
    freq = theta ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary)
    angle = torch.arange(T, dtype=torch.float64)[:, None] * freq[None, :]
    cos, sin = torch.cos(angle)[:, None, :], torch.sin(angle)[:, None, :]
    a, b = x[..., :half], x[..., half:rotary]
    return torch.cat([a * cos - b * sin, b * cos + a * sin, x[..., rotary:]], dim=-1)


def rotate_every_two(x, rotary, theta):
    """x: [T, heads, hd]; rotates each head's first `rotary` features at
    positions 0..T-1, pairing neighbours (2i, 2i + 1), and keeps the rest."""
    T = x.shape[0]
    freq = theta ** (-2.0 * torch.arange(rotary // 2, dtype=torch.float64) / rotary)
    angle = torch.arange(T, dtype=torch.float64)[:, None] * freq[None, :]
    cos, sin = torch.cos(angle)[:, None, :], torch.sin(angle)[:, None, :]
    out = x.clone()
    a, b = x[..., 0:rotary:2], x[..., 1:rotary:2]
    out[..., 0:rotary:2] = a * cos - b * sin
    out[..., 1:rotary:2] = b * cos + a * sin
    return out


def gelu_erf(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def gpt_neox_forward(config, t, ids):
    eps, theta = config["layer_norm_eps"], config.get("rotary_emb_base", 10000.0)
    H = config["num_attention_heads"]
    act = gelu_erf if config.get("hidden_act", "gelu") == "gelu" else gelu_tanh
    p0 = "gpt_neox."
    x = t[p0 + "embed_in.weight"][ids]
    T, d = x.shape
    hd = d // H
    rotary = int(hd * config.get("rotary_pct", 0.25))
    parallel = config.get("use_parallel_residual", True)
    for i in range(config["num_hidden_layers"]):
        p = p0 + "layers.%d." % i

        def ln(name, y):
            return layer_norm(y, t[p + name + ".weight"], t[p + name + ".bias"], eps)

        def mlp(h):
            h = act(h @ t[p + "mlp.dense_h_to_4h.weight"].T + t[p + "mlp.dense_h_to_4h.bias"])
            return h @ t[p + "mlp.dense_4h_to_h.weight"].T + t[p + "mlp.dense_4h_to_h.bias"]

        h = ln("input_layernorm", x)
        qkv = (h @ t[p + "attention.query_key_value.weight"].T
               + t[p + "attention.query_key_value.bias"]).reshape(T, H, 3, hd)
        q = partial_rope(qkv[:, :, 0], rotary, theta)
        k = partial_rope(qkv[:, :, 1], rotary, theta)
        attended = causal_attention(q, k, qkv[:, :, 2]) @ t[p + "attention.dense.weight"].T \
            + t[p + "attention.dense.bias"]
        if parallel:
            x = x + attended + mlp(ln("post_attention_layernorm", x))
        else:
            x = x + attended
            x = x + mlp(ln("post_attention_layernorm", x))
    x = layer_norm(x, t[p0 + "final_layer_norm.weight"], t[p0 + "final_layer_norm.bias"], eps)
    return x @ t["embed_out.weight"].T


def phi_forward(config, t, ids):
    eps, theta = config["layer_norm_eps"], config.get("rope_theta", 10000.0)
    H = config["num_attention_heads"]
    p0 = "model."
    x = t[p0 + "embed_tokens.weight"][ids]
    T, d = x.shape
    hd = d // H
    rotary = int(hd * config.get("partial_rotary_factor", 0.5))
    for i in range(config["num_hidden_layers"]):
        p = p0 + "layers.%d." % i

        def proj(name, y):
            return y @ t[p + name + ".weight"].T + t[p + name + ".bias"]

        h = layer_norm(x, t[p + "input_layernorm.weight"], t[p + "input_layernorm.bias"], eps)
        q = partial_rope(proj("self_attn.q_proj", h).reshape(T, H, hd), rotary, theta)
        k = partial_rope(proj("self_attn.k_proj", h).reshape(T, H, hd), rotary, theta)
        v = proj("self_attn.v_proj", h).reshape(T, H, hd)
        attended = proj("self_attn.dense", causal_attention(q, k, v))
        fed = proj("mlp.fc2", gelu_tanh(proj("mlp.fc1", h)))
        x = x + attended + fed
    x = layer_norm(x, t[p0 + "final_layernorm.weight"], t[p0 + "final_layernorm.bias"], eps)
    return x @ t["lm_head.weight"].T + t["lm_head.bias"]


# ---------------------------------------------------------------------------
# The family's entries in torch_reference.py
# ---------------------------------------------------------------------------

def gptj_forward(config, t, ids):
    eps, H = config["layer_norm_epsilon"], config["n_head"]
    p0 = "transformer."
    x = t[p0 + "wte.weight"][ids]
    T, d = x.shape
    hd = d // H
    rotary = config.get("rotary_dim") or hd
    for i in range(config["n_layer"]):
        p = p0 + "h.%d." % i

        def proj(name, y, bias=True):
            out = y @ t[p + name + ".weight"].T
            return out + t[p + name + ".bias"] if bias else out

        h = layer_norm(x, t[p + "ln_1.weight"], t[p + "ln_1.bias"], eps)
        q = rotate_every_two(proj("attn.q_proj", h, False).reshape(T, H, hd), rotary, 10000.0)
        k = rotate_every_two(proj("attn.k_proj", h, False).reshape(T, H, hd), rotary, 10000.0)
        v = proj("attn.v_proj", h, False).reshape(T, H, hd)
        attended = proj("attn.out_proj", causal_attention(q, k, v), False)
        fed = proj("mlp.fc_out", gelu_tanh(proj("mlp.fc_in", h)))
        x = x + attended + fed
    x = layer_norm(x, t[p0 + "ln_f.weight"], t[p0 + "ln_f.bias"], eps)
    return x @ t["lm_head.weight"].T + t["lm_head.bias"]


def stablelm_forward(config, t, ids):
    eps, theta = config["layer_norm_eps"], config.get("rope_theta", 10000.0)
    H = config["num_attention_heads"]
    KV = config.get("num_key_value_heads") or H
    p0 = "model."
    x = t[p0 + "embed_tokens.weight"][ids]
    T, d = x.shape
    hd = d // H
    rotary = int(hd * config.get("partial_rotary_factor", 0.25))
    for i in range(config["num_hidden_layers"]):
        p = p0 + "layers.%d." % i

        def proj(name, y, bias=True):
            out = y @ t[p + name + ".weight"].T
            return out + t[p + name + ".bias"] if bias else out

        def ln(name, y):
            return layer_norm(y, t[p + name + ".weight"], t[p + name + ".bias"], eps)

        def mlp(y):
            gate = proj("mlp.gate_proj", y, False)
            return proj("mlp.down_proj", gate * torch.sigmoid(gate) * proj("mlp.up_proj", y, False),
                        False)

        def head_norms(which, y):
            """StableLmLayerNormPerHead: head h's LayerNorm, no bias."""
            if not config.get("qk_layernorm", False):
                return y
            weights = torch.stack([t[p + "self_attn.%s_layernorm.norms.%d.weight" % (which, h)]
                                   for h in range(y.shape[1])])
            return layer_norm(y, weights, 0.0, eps)

        h = ln("input_layernorm", x)
        q = head_norms("q", proj("self_attn.q_proj", h).reshape(T, H, hd))
        k = head_norms("k", proj("self_attn.k_proj", h).reshape(T, KV, hd))
        q, k = partial_rope(q, rotary, theta), partial_rope(k, rotary, theta)
        v = proj("self_attn.v_proj", h).reshape(T, KV, hd)
        attended = proj("self_attn.o_proj", causal_attention(q, k, v), False)
        if config.get("use_parallel_residual", False):
            x = x + attended + mlp(h)
        else:
            x = x + attended
            x = x + mlp(ln("post_attention_layernorm", x))
    x = layer_norm(x, t[p0 + "norm.weight"], t[p0 + "norm.bias"], eps)
    return x @ t["lm_head.weight"].T


MAKES = {"gpt_neox": make_gpt_neox, "phi": make_phi, "gptj": make_gptj,
         "stablelm": make_stablelm}
FORWARDS = {"gpt_neox": gpt_neox_forward, "phi": phi_forward, "gptj": gptj_forward,
            "stablelm": stablelm_forward}


def reads(model, config):
    return config is not None and config["model_type"] in FORWARDS


def reference_logits(model, config, ids, args):
    config, tensors = load_hf(model)
    return FORWARDS[config["model_type"]](config, tensors, torch.tensor(ids, dtype=torch.long))
