"""RoBERTa and DistilBERT: BERT's encoder under other names.

make-model:
  roberta     a RobertaForMaskedLM directory ("roberta." names, a position
              table of max_position_embeddings = --context + 2 rows, one
              token type, lm_head.*); the tokenizer comes from
              make_hf_tokenizer.py bert (any vocabulary of --vocab ids)
  distilbert  a DistilBertForMaskedLM directory ("distilbert." names:
              q_lin, sa_layer_norm, ffn.lin1, output_layer_norm, ...; no
              token types; vocab_transform, vocab_layer_norm,
              vocab_projector)

The reference:
  roberta     BERT's post-LN encoder and masked-LM head, the token at index
              i reading position row pad_token_id + 1 + i (padding_idx 1:
              row i + 2), plus token type row 0.
  distilbert  BERT's post-LN encoder and masked-LM head without token
              types, eps 1e-12.
"""
import json
import math
import os

import torch

from reference_families.common import (Init, bert_layer_tensors, layer_norm, load_hf,
                                       write_safetensors)

DEFAULT_HIDDEN = 0  # 4 x dim


def gelu_erf(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def _write(args, config, tensors):
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as fh:
        json.dump(config, fh, indent=2)
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors)


def make_roberta(args):
    init = Init(args.seed)
    d, f = args.dim, args.hidden or 4 * args.dim
    p0 = "roberta."
    word = init.normal(args.vocab, d)
    tensors = [(p0 + "embeddings.word_embeddings.weight", word),
               (p0 + "embeddings.position_embeddings.weight",
                init.normal(args.context + 2, d, scale=0.5)),
               (p0 + "embeddings.token_type_embeddings.weight", init.normal(1, d, scale=0.5)),
               (p0 + "embeddings.LayerNorm.weight", init.norm(d)),
               (p0 + "embeddings.LayerNorm.bias", init.normal(d, scale=0.1))]
    for layer in range(args.layers):
        p = p0 + "encoder.layer.%d." % layer
        tensors += bert_layer_tensors(init, p, d, f)
    bias = init.normal(args.vocab, scale=0.5)
    tensors += [("lm_head.dense.weight", init.linear(d, d)),
                ("lm_head.dense.bias", init.normal(d, scale=0.1)),
                ("lm_head.layer_norm.weight", init.norm(d)),
                ("lm_head.layer_norm.bias", init.normal(d, scale=0.1)),
                ("lm_head.bias", bias),
                # Tied to the word embeddings and to lm_head.bias: saved anyway.
                ("lm_head.decoder.weight", word), ("lm_head.decoder.bias", bias)]
    config = {
        "model_type": "roberta", "architectures": ["RobertaForMaskedLM"],
        "hidden_size": d, "num_hidden_layers": args.layers,
        "num_attention_heads": args.heads, "intermediate_size": f,
        "vocab_size": args.vocab, "max_position_embeddings": args.context + 2,
        "type_vocab_size": 1, "layer_norm_eps": 1e-5, "hidden_act": "gelu",
        "position_embedding_type": "absolute", "pad_token_id": 1,
        "bos_token_id": 0, "eos_token_id": 2, "torch_dtype": "float32",
    }
    _write(args, config, tensors)


def make_distilbert(args):
    init = Init(args.seed)
    d, f = args.dim, args.hidden or 4 * args.dim
    p0 = "distilbert."
    tensors = [(p0 + "embeddings.word_embeddings.weight", init.normal(args.vocab, d)),
               (p0 + "embeddings.position_embeddings.weight",
                init.normal(args.context, d, scale=0.5)),
               (p0 + "embeddings.LayerNorm.weight", init.norm(d)),
               (p0 + "embeddings.LayerNorm.bias", init.normal(d, scale=0.1))]
    for layer in range(args.layers):
        p = p0 + "transformer.layer.%d." % layer
        for name in ("q_lin", "k_lin", "v_lin", "out_lin"):
            tensors += [(p + "attention.%s.weight" % name, init.linear(d, d)),
                        (p + "attention.%s.bias" % name, init.normal(d, scale=0.3))]
        tensors += [
            (p + "sa_layer_norm.weight", init.norm(d)),
            (p + "sa_layer_norm.bias", init.normal(d, scale=0.1)),
            (p + "ffn.lin1.weight", init.linear(f, d)),
            (p + "ffn.lin1.bias", init.normal(f, scale=0.1)),
            (p + "ffn.lin2.weight", init.linear(d, f)),
            (p + "ffn.lin2.bias", init.normal(d, scale=0.1)),
            (p + "output_layer_norm.weight", init.norm(d)),
            (p + "output_layer_norm.bias", init.normal(d, scale=0.1)),
        ]
    tensors += [("vocab_transform.weight", init.linear(d, d)),
                ("vocab_transform.bias", init.normal(d, scale=0.1)),
                ("vocab_layer_norm.weight", init.norm(d)),
                ("vocab_layer_norm.bias", init.normal(d, scale=0.1)),
                ("vocab_projector.weight", tensors[0][1]),
                ("vocab_projector.bias", init.normal(args.vocab, scale=0.5))]
    config = {
        "model_type": "distilbert", "architectures": ["DistilBertForMaskedLM"],
        "dim": d, "n_layers": args.layers, "n_heads": args.heads,
        "hidden_dim": f, "vocab_size": args.vocab,
        "max_position_embeddings": args.context, "activation": "gelu",
        "sinusoidal_pos_embds": False, "pad_token_id": 0,
        "torch_dtype": "float32",
    }
    _write(args, config, tensors)


def encoder(x, t, layers, names, H, eps):
    """Post-LN blocks: x = LN(x + attn(x)), x = LN(x + FFN(x))."""
    T, d = x.shape
    hd = d // H

    def linear(h, name):
        return h @ t[name + ".weight"].T + t[name + ".bias"]

    def ln(h, name):
        return layer_norm(h, t[name + ".weight"], t[name + ".bias"], eps)

    for i in range(layers):
        n = {k: v % i for k, v in names.items()}
        q, k, v = (linear(x, n[m]).reshape(T, H, hd) for m in ("q", "k", "v"))
        scores = torch.einsum("thd,shd->hts", q, k) / math.sqrt(hd)
        attended = torch.einsum("hts,shd->thd", torch.softmax(scores, dim=-1), v)
        x = ln(x + linear(attended.reshape(T, d), n["o"]), n["attn_norm"])
        x = ln(x + linear(gelu_erf(linear(x, n["up"])), n["down"]), n["ffn_norm"])
    return x


def roberta_forward(config, t, ids):
    e = "roberta.embeddings."
    eps = config.get("layer_norm_eps", 1e-12)
    T = len(ids)
    first = config.get("pad_token_id", 1) + 1
    x = (t[e + "word_embeddings.weight"][ids]
         + t[e + "token_type_embeddings.weight"][0]
         + t[e + "position_embeddings.weight"][torch.arange(T) + first])
    x = layer_norm(x, t[e + "LayerNorm.weight"], t[e + "LayerNorm.bias"], eps)
    p = "roberta.encoder.layer.%d."
    x = encoder(x, t, config["num_hidden_layers"], {
        "q": p + "attention.self.query", "k": p + "attention.self.key",
        "v": p + "attention.self.value", "o": p + "attention.output.dense",
        "attn_norm": p + "attention.output.LayerNorm", "up": p + "intermediate.dense",
        "down": p + "output.dense", "ffn_norm": p + "output.LayerNorm"},
        config["num_attention_heads"], eps)
    h = gelu_erf(x @ t["lm_head.dense.weight"].T + t["lm_head.dense.bias"])
    h = layer_norm(h, t["lm_head.layer_norm.weight"], t["lm_head.layer_norm.bias"], eps)
    return h @ t[e + "word_embeddings.weight"].T + t["lm_head.bias"]


def distilbert_forward(config, t, ids):
    e = "distilbert.embeddings."
    eps = 1e-12
    T = len(ids)
    x = t[e + "word_embeddings.weight"][ids] + t[e + "position_embeddings.weight"][torch.arange(T)]
    x = layer_norm(x, t[e + "LayerNorm.weight"], t[e + "LayerNorm.bias"], eps)
    p = "distilbert.transformer.layer.%d."
    x = encoder(x, t, config["n_layers"], {
        "q": p + "attention.q_lin", "k": p + "attention.k_lin",
        "v": p + "attention.v_lin", "o": p + "attention.out_lin",
        "attn_norm": p + "sa_layer_norm", "up": p + "ffn.lin1",
        "down": p + "ffn.lin2", "ffn_norm": p + "output_layer_norm"},
        config["n_heads"], eps)
    h = gelu_erf(x @ t["vocab_transform.weight"].T + t["vocab_transform.bias"])
    h = layer_norm(h, t["vocab_layer_norm.weight"], t["vocab_layer_norm.bias"], eps)
    return h @ t[e + "word_embeddings.weight"].T + t["vocab_projector.bias"]


MAKES = {"roberta": make_roberta, "distilbert": make_distilbert}
FORWARDS = {"roberta": roberta_forward, "distilbert": distilbert_forward}


def reads(model, config):
    return config is not None and config["model_type"] in FORWARDS


def reference_logits(model, config, ids, args):
    config, tensors = load_hf(model)
    return FORWARDS[config["model_type"]](config, tensors, torch.tensor(ids, dtype=torch.long))
