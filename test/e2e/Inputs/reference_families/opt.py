"""OPT: GPT-2's blocks with separate Q/K/V and ReLU, positions offset by 2.

make-model:
  opt  a Hugging Face directory (OPTForCausalLM names under
       "model.decoder.": embed_tokens, embed_positions with
       max_position_embeddings + 2 rows, self_attn.{q,k,v,out}_proj,
       self_attn_layer_norm, fc1, fc2, final_layer_norm), a tied head

The reference:
  opt  x = embed[ids] + embed_positions[position + 2]; pre-LayerNorm layers
       with biased projections, causal attention, fc2(relu(fc1(.))); the
       final LayerNorm, logits against the token embedding.
"""
import json
import os

import torch

from reference_families.common import (Init, causal_attention, layer_norm, load_hf,
                                       write_llama2c_tokenizer, write_safetensors)

DEFAULT_HIDDEN = 0  # 4 x dim
OFFSET = 2  # OPTLearnedPositionalEmbedding's


def make_opt(args):
    init = Init(args.seed)
    d, H = args.dim, args.heads
    f = args.hidden or 4 * d
    p0 = "model.decoder."
    tensors = [(p0 + "embed_tokens.weight", init.normal(args.vocab, d)),
               (p0 + "embed_positions.weight",
                init.normal(args.context + OFFSET, d, scale=0.5))]
    for layer in range(args.layers):
        p = p0 + "layers.%d." % layer
        for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
            tensors += [(p + "self_attn.%s.weight" % name, init.linear(d, d)),
                        (p + "self_attn.%s.bias" % name, init.normal(d, scale=0.2))]
        tensors += [
            (p + "self_attn_layer_norm.weight", init.norm(d)),
            (p + "self_attn_layer_norm.bias", init.normal(d, scale=0.1)),
            (p + "fc1.weight", init.linear(f, d)),
            (p + "fc1.bias", init.normal(f, scale=0.1)),
            (p + "fc2.weight", init.linear(d, f)),
            (p + "fc2.bias", init.normal(d, scale=0.1)),
            (p + "final_layer_norm.weight", init.norm(d)),
            (p + "final_layer_norm.bias", init.normal(d, scale=0.1)),
        ]
    tensors += [(p0 + "final_layer_norm.weight", init.norm(d)),
                (p0 + "final_layer_norm.bias", init.normal(d, scale=0.1))]
    config = {
        "model_type": "opt", "architectures": ["OPTForCausalLM"],
        "hidden_size": d, "ffn_dim": f, "num_hidden_layers": args.layers,
        "num_attention_heads": H, "vocab_size": args.vocab,
        "max_position_embeddings": args.context, "word_embed_proj_dim": d,
        "do_layer_norm_before": True, "activation_function": "relu",
        "enable_bias": True, "layer_norm_elementwise_affine": True,
        "tie_word_embeddings": True, "bos_token_id": 2, "eos_token_id": 2,
        "pad_token_id": 1, "torch_dtype": "float32",
    }
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as fh:
        json.dump(config, fh, indent=2)
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors)
    write_llama2c_tokenizer(os.path.join(args.out, "tokenizer.bin"), args.vocab)


def forward(config, t, ids):
    H = config["num_attention_heads"]
    p0 = "model.decoder."
    T = len(ids)
    x = (t[p0 + "embed_tokens.weight"][ids]
         + t[p0 + "embed_positions.weight"][torch.arange(T) + OFFSET])
    d = x.shape[1]
    hd = d // H
    for i in range(config["num_hidden_layers"]):
        p = p0 + "layers.%d." % i

        def proj(name, y):
            return y @ t[p + name + ".weight"].T + t[p + name + ".bias"]

        def ln(name, y):
            return layer_norm(y, t[p + name + ".weight"], t[p + name + ".bias"], 1e-5)

        h = ln("self_attn_layer_norm", x)
        q = proj("self_attn.q_proj", h).reshape(T, H, hd)
        k = proj("self_attn.k_proj", h).reshape(T, H, hd)
        v = proj("self_attn.v_proj", h).reshape(T, H, hd)
        x = x + proj("self_attn.out_proj", causal_attention(q, k, v))
        x = x + proj("fc2", torch.relu(proj("fc1", ln("final_layer_norm", x))))
    x = layer_norm(x, t[p0 + "final_layer_norm.weight"], t[p0 + "final_layer_norm.bias"], 1e-5)
    return x @ t[p0 + "embed_tokens.weight"].T


MAKES = {"opt": make_opt}


def reads(model, config):
    return config is not None and config["model_type"] == "opt"


def reference_logits(model, config, ids, args):
    config, tensors = load_hf(model)
    return forward(config, tensors, torch.tensor(ids, dtype=torch.long))
