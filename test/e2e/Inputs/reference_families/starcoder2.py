"""StarCoder2: LLaMA's layout with LayerNorms, biases and a GELU MLP.

make-model:
  starcoder2  a Hugging Face directory (Starcoder2ForCausalLM names:
              self_attn.{q,k,v,o}_proj with biases, LayerNorms with biases,
              mlp.c_fc / mlp.c_proj); --window (sliding_window, every
              layer), --kv-heads, --tie

The reference:
  starcoder2  LayerNorm (norm_epsilon); Q/K/V with biases, RoPE rotating
              halves, causal attention within the window, a biased output;
              c_proj(gelu_tanh(c_fc(LN(x)))); the final LayerNorm; a tied
              or separate head.
"""
import json
import os

import torch

from reference_families.common import (Init, causal_attention, gelu_tanh, layer_norm,
                                       load_hf, rope, write_llama2c_tokenizer,
                                       write_safetensors)

DEFAULT_HIDDEN = 0  # 4 x dim


def make_starcoder2(args):
    init = Init(args.seed)
    d, H = args.dim, args.heads
    KV = args.kv_heads or H
    hd, f = d // H, args.hidden or 4 * args.dim
    tensors = [("model.embed_tokens.weight", init.normal(args.vocab, d))]
    for layer in range(args.layers):
        p = "model.layers.%d." % layer
        for norm in ("input_layernorm", "post_attention_layernorm"):
            tensors += [(p + norm + ".weight", init.norm(d)),
                        (p + norm + ".bias", init.normal(d, scale=0.1))]
        for name, rows, cols in (("q_proj", H * hd, d), ("k_proj", KV * hd, d),
                                 ("v_proj", KV * hd, d), ("o_proj", d, H * hd)):
            tensors += [(p + "self_attn.%s.weight" % name, init.linear(rows, cols)),
                        (p + "self_attn.%s.bias" % name, init.normal(rows, scale=0.2))]
        tensors += [(p + "mlp.c_fc.weight", init.linear(f, d)),
                    (p + "mlp.c_fc.bias", init.normal(f, scale=0.1)),
                    (p + "mlp.c_proj.weight", init.linear(d, f)),
                    (p + "mlp.c_proj.bias", init.normal(d, scale=0.1))]
    tensors += [("model.norm.weight", init.norm(d)),
                ("model.norm.bias", init.normal(d, scale=0.1))]
    if not args.tie:
        tensors.append(("lm_head.weight", init.linear(args.vocab, d)))
    config = {
        "model_type": "starcoder2", "architectures": ["Starcoder2ForCausalLM"],
        "hidden_size": d, "intermediate_size": f, "num_hidden_layers": args.layers,
        "num_attention_heads": H, "num_key_value_heads": KV,
        "vocab_size": args.vocab, "max_position_embeddings": args.context,
        "norm_epsilon": args.eps, "rope_theta": args.rope_theta,
        "hidden_act": "gelu_pytorch_tanh", "use_bias": True,
        "sliding_window": args.window or None, "tie_word_embeddings": args.tie,
        "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "float32",
    }
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as fh:
        json.dump(config, fh, indent=2)
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors)
    write_llama2c_tokenizer(os.path.join(args.out, "tokenizer.bin"), args.vocab)


def forward(config, t, ids):
    H = config["num_attention_heads"]
    KV = config.get("num_key_value_heads") or H
    eps, theta = config.get("norm_epsilon", 1e-5), config.get("rope_theta", 10000.0)
    window = config.get("sliding_window") or 0
    x = t["model.embed_tokens.weight"][ids]
    T, d = x.shape
    hd = d // H
    for i in range(config["num_hidden_layers"]):
        p = "model.layers.%d." % i

        def proj(name, y):
            return y @ t[p + name + ".weight"].T + t[p + name + ".bias"]

        def ln(name, y):
            return layer_norm(y, t[p + name + ".weight"], t[p + name + ".bias"], eps)

        h = ln("input_layernorm", x)
        q = rope(proj("self_attn.q_proj", h).reshape(T, H, hd), theta, False)
        k = rope(proj("self_attn.k_proj", h).reshape(T, KV, hd), theta, False)
        v = proj("self_attn.v_proj", h).reshape(T, KV, hd)
        x = x + proj("self_attn.o_proj", causal_attention(q, k, v, window))
        x = x + proj("mlp.c_proj", gelu_tanh(proj("mlp.c_fc", ln("post_attention_layernorm", x))))
    x = layer_norm(x, t["model.norm.weight"], t["model.norm.bias"], eps)
    head = t.get("lm_head.weight")
    if head is None or config.get("tie_word_embeddings", True):
        head = t["model.embed_tokens.weight"]
    return x @ head.T


MAKES = {"starcoder2": make_starcoder2}


def reads(model, config):
    return config is not None and config["model_type"] == "starcoder2"


def reference_logits(model, config, ids, args):
    config, tensors = load_hf(model)
    return forward(config, tensors, torch.tensor(ids, dtype=torch.long))
