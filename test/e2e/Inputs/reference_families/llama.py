"""LLaMA and the families that keep its Hugging Face layout, and llama2.c
checkpoints.

make-model:
  llama    a Hugging Face directory (config.json, model.safetensors,
           tokenizer.bin: a llama2.c-format tokenizer of vocab pieces)
  mistral  the same with a sliding window (--window)
  qwen2    the same with Q/K/V biases
  qwen3    the same with --head-dim, an RMSNorm of each head's queries and
           keys (self_attn.q_norm / k_norm) and no biases
  mixtral  the same with a mixture of --experts SwiGLU experts,
           --top-k per token
  gemma    the same with Gemma's head_dim (--head-dim), (1 + w)
           RMSNorm, sqrt(hidden) embedding scale and GeGLU
  (--config-style 5 writes transformers 5.x keys: rope_parameters,
  dtype; --dtype stores every tensor as f16 or bf16)
  llama2c  a llama2.c checkpoint OUT (+ OUT.tok, its tokenizer)

The reference:
  llama    RMSNorm, RoPE (half-split pairs (i, i+hd/2) as Hugging Face; the
           llama2.c layout rotates interleaved pairs (2i, 2i+1)), causal
           attention with GQA/MQA by repeating kv heads, SwiGLU, tied or
           separate classifier.
  mistral  the query at position i sees keys (i - W, i] only.
  qwen3    each head's queries and keys are RMS-normalised (their own
           [head_dim] weights) before RoPE.
  qwen2    q/k/v projections add their biases; with use_sliding_window,
           the sliding_attention layers (layer_types, else those from
           max_window_layers on) see keys (i - W, i] only.
  mixtral  the MLP is a mixture of experts: router logits, the top-k
           experts per token, weighted by the softmax over their logits.
  gemma    x * sqrt(hidden) after the embedding, norms scale by (1 + w),
           down(gelu_tanh(gate) * up), heads of head_dim features.
compare's --projections, --kv-cache and --activations round what tfmc's
--weights, --kv-cache=f16 and --int8-inputs / --bf16-inputs round.
"""
import json
import math
import os
import struct
import sys

import numpy as np
import torch

from reference_families.common import (Init, causal_attention, gelu_tanh, load_hf,
                                       GGUF_FILE_TYPES, quantize_inputs, rms_norm, rope,
                                       round_like_gguf, round_to,
                                       write_llama2c_tokenizer, write_safetensors)

# ---------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------


ARCHITECTURES = {"llama": "LlamaForCausalLM", "mistral": "MistralForCausalLM",
                 "mixtral": "MixtralForCausalLM",
                 "qwen2": "Qwen2ForCausalLM", "qwen3": "Qwen3ForCausalLM",
                 "gemma": "GemmaForCausalLM"}


def make_llama(args):
    """LLaMA and the families that keep its Hugging Face layout."""
    init = Init(args.seed)
    family = args.family
    hd = args.head_dim or args.dim // args.heads
    d, f = args.dim, args.hidden
    kv = args.kv_heads or args.heads
    # Gemma stores norm weights as offsets from 1.
    norm = (lambda n: init.normal(n, scale=0.1)) if family == "gemma" else init.norm
    tensors = [("model.embed_tokens.weight", init.normal(args.vocab, d))]
    for layer in range(args.layers):
        p = "model.layers.%d." % layer
        tensors += [
            (p + "input_layernorm.weight", norm(d)),
            (p + "self_attn.q_proj.weight", init.linear(args.heads * hd, d)),
            (p + "self_attn.k_proj.weight", init.linear(kv * hd, d)),
            (p + "self_attn.v_proj.weight", init.linear(kv * hd, d)),
        ]
        if family == "qwen2":
            tensors += [
                (p + "self_attn.q_proj.bias", init.normal(args.heads * hd, scale=0.5)),
                (p + "self_attn.k_proj.bias", init.normal(kv * hd, scale=0.5)),
                (p + "self_attn.v_proj.bias", init.normal(kv * hd, scale=0.5)),
            ]
        if family == "qwen3":
            tensors += [(p + "self_attn.q_norm.weight", init.norm(hd)),
                        (p + "self_attn.k_norm.weight", init.norm(hd))]
        tensors += [
            (p + "self_attn.o_proj.weight", init.linear(d, args.heads * hd)),
            (p + "post_attention_layernorm.weight", norm(d)),
        ]
        if family == "mixtral":
            moe = p + "block_sparse_moe."
            # A router with large weights, so tokens prefer different experts.
            tensors.append((moe + "gate.weight", 4.0 * init.linear(args.experts, d)))
            for e in range(args.experts):
                tensors += [(moe + "experts.%d.w1.weight" % e, init.linear(f, d)),
                            (moe + "experts.%d.w2.weight" % e, init.linear(d, f)),
                            (moe + "experts.%d.w3.weight" % e, init.linear(f, d))]
        else:
            tensors += [
                (p + "mlp.gate_proj.weight", init.linear(f, d)),
                (p + "mlp.up_proj.weight", init.linear(f, d)),
                (p + "mlp.down_proj.weight", init.linear(d, f)),
            ]
    tensors.append(("model.norm.weight", norm(d)))
    if not args.tie:
        tensors.append(("lm_head.weight", init.linear(args.vocab, d)))
    config = {
        "model_type": family, "architectures": [ARCHITECTURES[family]],
        "hidden_size": d, "intermediate_size": f,
        "num_hidden_layers": args.layers, "num_attention_heads": args.heads,
        "num_key_value_heads": kv, "vocab_size": args.vocab,
        "max_position_embeddings": args.context, "rms_norm_eps": args.eps,
        "tie_word_embeddings": args.tie,
        "hidden_act": "silu", "bos_token_id": 1, "eos_token_id": 2,
    }
    if family in ("mistral", "mixtral"):
        config["sliding_window"] = args.window or None
    if family == "mixtral":
        config["num_local_experts"] = args.experts
        config["num_experts_per_tok"] = args.top_k
    if family == "qwen2":
        # With --window, the layers from --max-window-layers on are windowed
        # (transformers 4.x); --config-style 5 also lists every layer's kind
        # as layer_types, as transformers 5.x writes it.
        config["use_sliding_window"] = bool(args.window)
        config["sliding_window"] = args.window or 4096
        config["max_window_layers"] = (args.max_window_layers if args.window
                                       else args.layers)
        if args.window and args.config_style == 5:
            config["layer_types"] = [
                "sliding_attention" if i >= args.max_window_layers else "full_attention"
                for i in range(args.layers)]
    if family == "qwen3":
        config["head_dim"] = hd
        config["attention_bias"] = False
        config["use_sliding_window"] = False
    if family == "gemma":
        config["head_dim"] = hd
        config["hidden_act"] = "gelu"  # transformers runs hidden_activation
        config["hidden_activation"] = "gelu_pytorch_tanh"
    scaling = json.loads(args.rope_scaling) if args.rope_scaling else {}
    if args.config_style == 5:
        config["rope_parameters"] = {"rope_theta": args.rope_theta,
                                     "rope_type": "default"}
        config["rope_parameters"].update(scaling)
        config["dtype"] = "float32"
    else:
        config["rope_theta"] = args.rope_theta
        if scaling:
            config["rope_scaling"] = scaling
        config["torch_dtype"] = "float32"
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as fh:
        json.dump(config, fh, indent=2)
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors,
                      args.dtype.upper())
    write_llama2c_tokenizer(os.path.join(args.out, "tokenizer.bin"), args.vocab)


def make_llama2c(args):
    """llama2.c order: header (dim, hidden, layers, heads, kv_heads, vocab,
    seq_len; vocab < 0 when a classifier follows), token embedding, then each
    kind stacked over layers (rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3),
    rms_final, freq_cis_real/imag [seq_len, hd/2], optional wcls."""
    init = Init(args.seed)
    d, f, L = args.dim, args.hidden, args.layers
    hd = d // args.heads
    kv = args.kv_heads or args.heads
    blocks = [init.normal(args.vocab, d)]
    blocks.append(np.stack([init.norm(d) for _ in range(L)]))
    for rows, cols in [(args.heads * hd, d), (kv * hd, d), (kv * hd, d),
                       (d, args.heads * hd)]:
        blocks.append(np.stack([init.linear(rows, cols) for _ in range(L)]))
    blocks.append(np.stack([init.norm(d) for _ in range(L)]))
    blocks.append(np.stack([init.linear(f, d) for _ in range(L)]))   # w1 (gate)
    blocks.append(np.stack([init.linear(d, f) for _ in range(L)]))   # w2 (down)
    blocks.append(np.stack([init.linear(f, d) for _ in range(L)]))   # w3 (up)
    blocks.append(init.norm(d))
    # The legacy tables are filled with junk: the compiler must not use them.
    blocks.append(init.normal(args.context, hd // 2))
    blocks.append(init.normal(args.context, hd // 2))
    if not args.tie:
        blocks.append(init.linear(args.vocab, d))
    vocab_field = args.vocab if args.tie else -args.vocab
    with open(args.out, "wb") as fh:
        fh.write(struct.pack("<7i", d, f, L, args.heads, kv, vocab_field, args.context))
        for block in blocks:
            fh.write(np.ascontiguousarray(block, dtype="<f4").tobytes())
    write_llama2c_tokenizer(args.out + ".tok", args.vocab)


# ---------------------------------------------------------------------------
# Readers
# ---------------------------------------------------------------------------


def load_llama2c(path):
    with open(path, "rb") as fh:
        raw = fh.read()
    d, f, L, H, KV, vocab, seq = struct.unpack_from("<7i", raw, 0)
    tied = vocab > 0
    vocab = abs(vocab)
    hd = d // H
    data = np.frombuffer(raw, dtype="<f4", offset=28).astype(np.float64)
    pos = 0

    def take(*shape):
        nonlocal pos
        n = int(np.prod(shape))
        block = torch.from_numpy(data[pos:pos + n].reshape(shape).copy())
        pos += n
        return block

    w = {"embed": take(vocab, d), "attn_norm": take(L, d),
         "wq": take(L, H * hd, d), "wk": take(L, KV * hd, d),
         "wv": take(L, KV * hd, d), "wo": take(L, d, H * hd),
         "ffn_norm": take(L, d), "w1": take(L, f, d), "w2": take(L, d, f),
         "w3": take(L, f, d), "final_norm": take(d)}
    take(seq, hd // 2)
    take(seq, hd // 2)
    w["head"] = w["embed"] if tied else take(vocab, d)
    if pos != data.size:
        sys.exit("llama2.c file %s: %d trailing floats" % (path, data.size - pos))
    layers = [{k: w[k][i] for k in ("attn_norm", "wq", "wk", "wv", "wo",
                                     "ffn_norm", "w1", "w2", "w3")}
              for i in range(L)]
    cfg = dict(heads=H, kv_heads=KV, eps=1e-5, theta=10000.0, interleaved=True)
    return cfg, w["embed"], layers, w["final_norm"], w["head"]


def layer_windows(config, family):
    """Each layer's sliding window (0: full attention), as transformers
    reads config.json: Mistral's and Mixtral's sliding_window for every
    layer; Qwen2's only with use_sliding_window, for the layers that
    layer_types calls sliding_attention, else those from max_window_layers
    (default 28) on."""
    n = config["num_hidden_layers"]
    window = config.get("sliding_window") or 0
    if family in ("mistral", "mixtral"):
        return [window] * n
    if family != "qwen2" or not config.get("use_sliding_window", False):
        return [0] * n
    kinds = config.get("layer_types") or [
        "sliding_attention" if i >= config.get("max_window_layers", 28) else "full_attention"
        for i in range(n)]
    return [window if kind == "sliding_attention" else 0 for kind in kinds]


def llama_from_hf(config, t):
    layers = []
    for i in range(config["num_hidden_layers"]):
        p = "model.layers.%d." % i
        layers.append({
            "attn_norm": t[p + "input_layernorm.weight"],
            "wq": t[p + "self_attn.q_proj.weight"], "wk": t[p + "self_attn.k_proj.weight"],
            "wv": t[p + "self_attn.v_proj.weight"], "wo": t[p + "self_attn.o_proj.weight"],
            "ffn_norm": t[p + "post_attention_layernorm.weight"],
            "w1": t.get(p + "mlp.gate_proj.weight"), "w3": t.get(p + "mlp.up_proj.weight"),
            "w2": t.get(p + "mlp.down_proj.weight")})
        if config.get("num_local_experts"):
            moe = p + "block_sparse_moe."
            layers[-1]["router"] = t[moe + "gate.weight"]
            layers[-1]["experts"] = [
                {name: t[moe + "experts.%d.%s.weight" % (e, name)]
                 for name in ("w1", "w2", "w3")}
                for e in range(config["num_local_experts"])]
        for name in ("q", "k", "v"):
            bias = t.get(p + "self_attn.%s_proj.bias" % name)
            if bias is not None:
                layers[-1]["b" + name] = bias
        for name in ("q", "k"):
            weight = t.get(p + "self_attn.%s_norm.weight" % name)
            if weight is not None:
                layers[-1][name + "_norm"] = weight
    family = config["model_type"]
    tied = (config.get("tie_word_embeddings", family == "gemma")
            or "lm_head.weight" not in t)
    head = t["model.embed_tokens.weight"] if tied else t["lm_head.weight"]
    H = config["num_attention_heads"]
    theta = config.get("rope_theta",
                       config.get("rope_parameters", {}).get("rope_theta", 10000.0))
    scaling = dict(config.get("rope_scaling") or {})
    parameters = dict(config.get("rope_parameters") or {})
    parameters.pop("rope_theta", None)
    if parameters.get("rope_type", "default") != "default":
        scaling = parameters
    scaling["max_position_embeddings"] = config["max_position_embeddings"]
    if "original_max_position_embeddings" in config:
        scaling["top_original"] = config["original_max_position_embeddings"]
    cfg = dict(heads=H, kv_heads=config.get("num_key_value_heads", H),
               eps=config.get("rms_norm_eps", 1e-6), theta=theta,
               rope_scaling=scaling,
               interleaved=False, head_dim=config.get("head_dim"),
               windows=layer_windows(config, family),
               top_k=config.get("num_experts_per_tok", 0),
               gemma=family == "gemma")
    return cfg, t["model.embed_tokens.weight"], layers, t["model.norm.weight"], head


# ---------------------------------------------------------------------------
# The reference (float64)
# ---------------------------------------------------------------------------


def llama_forward(cfg, embed, layers, final_norm, head, ids):
    H, KV = cfg["heads"], cfg["kv_heads"]
    x = embed[ids]
    T, d = x.shape
    hd = cfg.get("head_dim") or d // H
    gemma = cfg.get("gemma", False)
    if gemma:
        # transformers multiplies by the scale rounded to the activations' type.
        x = x * float(np.float32(math.sqrt(d)))

    def norm(x, weight):
        return rms_norm(x, 1.0 + weight if gemma else weight, cfg["eps"])

    def matmul(h, weight):
        return quantize_inputs(h, weight, cfg.get("activations")) @ weight.T

    def project(h, w, name):
        out = matmul(h, w[name])
        bias = w.get("b" + name[1:])
        return out if bias is None else out + bias

    used = set()
    for i, w in enumerate(layers):
        h = norm(x, w["attn_norm"])
        q = project(h, w, "wq").reshape(T, H, hd)
        k = project(h, w, "wk").reshape(T, KV, hd)
        if "q_norm" in w:
            # Qwen3: every head's queries and keys by their own RMS.
            q, k = norm(q, w["q_norm"]), norm(k, w["k_norm"])
        q = rope(q, cfg["theta"], cfg["interleaved"], cfg.get("rope_scaling"))
        k = rope(k, cfg["theta"], cfg["interleaved"], cfg.get("rope_scaling"))
        v = project(h, w, "wv").reshape(T, KV, hd)
        if cfg.get("kv_cache", "f32") != "f32":
            # What an f16 KV cache holds: keys (after RoPE) and values rounded.
            k, v = round_to(k, cfg["kv_cache"]), round_to(v, cfg["kv_cache"])
        window = cfg["windows"][i] if "windows" in cfg else 0
        x = x + matmul(causal_attention(q, k, v, window), w["wo"])
        h = norm(x, w["ffn_norm"])
        if "router" in w:
            x = x + mixture(h, w, cfg["top_k"], used)
            continue
        gate = matmul(h, w["w1"])
        gate = gelu_tanh(gate) if gemma else gate * torch.sigmoid(gate)
        x = x + matmul(gate * matmul(h, w["w3"]), w["w2"])
    if used:
        print("experts chosen: %d distinct (layer, expert) pairs" % len(used))
    return matmul(norm(x, final_norm), head)


def mixture(h, w, top_k, used):
    """Mixtral: each token's top_k experts by router logit, weighted by the
    softmax over the chosen logits (= the full softmax renormalised)."""
    logits = h @ w["router"].T
    out = torch.zeros_like(h)
    for t in range(h.shape[0]):
        chosen = torch.topk(logits[t], top_k).indices
        weights = torch.softmax(logits[t, chosen], dim=-1)
        for weight, e in zip(weights, chosen.tolist()):
            used.add((id(w), e))
            expert = w["experts"][e]
            gate = h[t] @ expert["w1"].T
            inner = gate * torch.sigmoid(gate) * (h[t] @ expert["w3"].T)
            out[t] += weight * (inner @ expert["w2"].T)
    return out


def round_projections(model, dtype):
    """The llama-family weights with every projection matrix (what tfmc packs
    into panels: q, k, v, o, gate, up, down, the classifier) rounded to
    `dtype`; the norms stay as stored, and so does the embedding table
    unless the classifier is tied to it: tfmc then looks the rows up in the
    classifier's panels, rounded as they are."""
    cfg, embed, layers, final_norm, head = model
    if dtype == "f32":
        return model
    if dtype in GGUF_FILE_TYPES:
        # As a GGUF file of that type holds them: the embedding table too.
        names = {"wq": "attn_q", "wk": "attn_k", "wv": "attn_v", "wo": "attn_output",
                 "w1": "ffn_gate", "w2": "ffn_down", "w3": "ffn_up"}
        layers = [{k: round_like_gguf(v, names[k] + ".weight", dtype) if k in names
                   else v for k, v in w.items()} for w in layers]
        rounded_embed = round_like_gguf(embed, "token_embd.weight", dtype)
        rounded_head = (rounded_embed if head is embed
                        else round_like_gguf(head, "output.weight", dtype))
        return cfg, rounded_embed, layers, final_norm, rounded_head
    layers = [{k: round_to(v, dtype) if k in ("wq", "wk", "wv", "wo", "w1", "w2", "w3")
               else v for k, v in w.items()} for w in layers]
    rounded_head = round_to(head, dtype)
    if head is embed:
        embed = rounded_head
    return cfg, embed, layers, final_norm, rounded_head


# ---------------------------------------------------------------------------
# The family's entries in torch_reference.py
# ---------------------------------------------------------------------------

MAKES = {family: make_llama for family in ARCHITECTURES}
MAKES["llama2c"] = make_llama2c
DEFAULT_HIDDEN = 172
ROUNDING = ("projections", "kv_cache", "activations")


def add_make_arguments(make):
    make.add_argument("--experts", type=int, default=4, help="mixtral: experts")
    make.add_argument("--top-k", type=int, default=2,
                      help="mixtral: experts per token")
    make.add_argument("--window", type=int, default=0,
                      help="mistral, qwen2: sliding window (0: none)")
    make.add_argument("--max-window-layers", type=int, default=0,
                      help="qwen2 with --window: the layers below this one "
                           "attend fully")
    make.add_argument("--dtype", choices=["f32", "f16", "bf16"], default="f32",
                      help="llama families: the safetensors dtype of every tensor")


def reads(model, config):
    """A Hugging Face directory of a LLaMA-layout family, or a llama2.c file."""
    if config is None:
        return not model.startswith("preset:")
    return config["model_type"] in ARCHITECTURES


def reference_logits(model, config, ids, args):
    ids = torch.tensor(ids, dtype=torch.long)
    if config is None:
        weights = round_projections(load_llama2c(model), args.projections)
    else:
        weights = round_projections(llama_from_hf(*load_hf(model)), args.projections)
    weights[0]["kv_cache"] = args.kv_cache
    weights[0]["activations"] = args.activations
    return llama_forward(*weights, ids)
