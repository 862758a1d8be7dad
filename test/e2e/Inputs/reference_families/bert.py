"""BERT, an encoder: its masked-LM logits, embeddings and fill-mask
predictions.

make-model:
  bert     a Hugging Face directory of BertForMaskedLM ("bert."
           names, cls.predictions.*; --no-mlm-head: BertModel with its
           pooler); --hidden-act picks the activation. The tokenizer
           comes from make_hf_tokenizer.py bert.

compare's LOGITS holds the masked-LM logits of every position (the final
hidden states [n][hidden] for a model without the head). Two commands of
its own:

  check-fill-mask MODEL JSON --ids-file IDS
      Checks an encoder's fill-mask --json lines: one per [MASK] among the
      prompt's ids (IDS, space-separated), each listing the reference's
      largest masked-LM logits in order (logits within --tol).

  compare-embedding MODEL JSON (--token-ids 1,5,9 | --ids-file IDS)
                    --pooling mean|cls|last|max|mean_sqrt_len [--normalize]
      Checks the {"embedding": [...]} line an encoder's --embed printed to
      JSON against the reference's pooled final hidden states (mean over
      the n tokens, or the first token's) within --tol, relative to the
      largest reference element.

The reference:
  bert     word + position + token_type[0] embeddings, their LayerNorm,
           post-LN blocks x = LN(x + attn(x)), x = LN(x + FFN(x)) with
           bidirectional attention (q/k/v/o biases) and GELU (erf; tanh for
           gelu_new), then the masked-LM head: dense, GELU, LayerNorm and the
           word embeddings (tied) plus a bias.
"""
import json
import math
import os

import numpy as np
import torch

from reference_families.common import (Init, bert_layer_tensors, gelu_tanh, layer_norm,
                                       load_hf, write_safetensors)

# ---------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------


def make_bert(args):
    init = Init(args.seed)
    d, f = args.dim, args.hidden or 4 * args.dim
    p0 = "bert." if args.mlm_head else ""
    tensors = [(p0 + "embeddings.word_embeddings.weight", init.normal(args.vocab, d)),
               (p0 + "embeddings.position_embeddings.weight", init.normal(args.context, d, scale=0.5)),
               (p0 + "embeddings.token_type_embeddings.weight", init.normal(2, d, scale=0.5)),
               (p0 + "embeddings.LayerNorm.weight", init.norm(d)),
               (p0 + "embeddings.LayerNorm.bias", init.normal(d, scale=0.1))]
    for layer in range(args.layers):
        p = p0 + "encoder.layer.%d." % layer
        tensors += bert_layer_tensors(init, p, d, f)
    if args.mlm_head:
        tensors += [
            ("cls.predictions.transform.dense.weight", init.linear(d, d)),
            ("cls.predictions.transform.dense.bias", init.normal(d, scale=0.1)),
            ("cls.predictions.transform.LayerNorm.weight", init.norm(d)),
            ("cls.predictions.transform.LayerNorm.bias", init.normal(d, scale=0.1)),
            ("cls.predictions.bias", init.normal(args.vocab, scale=0.5)),
        ]
        # Tied to the word embeddings and the bias: saved anyway.
        tensors += [("cls.predictions.decoder.weight", tensors[0][1]),
                    ("cls.predictions.decoder.bias", tensors[-1][1])]
    else:
        tensors += [("pooler.dense.weight", init.linear(d, d)),
                    ("pooler.dense.bias", init.normal(d, scale=0.1))]
    config = {
        "model_type": "bert",
        "architectures": ["BertForMaskedLM" if args.mlm_head else "BertModel"],
        "hidden_size": d, "num_hidden_layers": args.layers,
        "num_attention_heads": args.heads, "intermediate_size": f,
        "vocab_size": args.vocab, "max_position_embeddings": args.context,
        "hidden_act": args.hidden_act, "pad_token_id": 0,
    }
    if args.config_style == 4:
        # transformers 4.x writes every key; 5.x leaves out those at their
        # defaults (type_vocab_size 2, layer_norm_eps 1e-12, absolute
        # positions) and writes dtype.
        config.update({"type_vocab_size": 2, "layer_norm_eps": args.eps,
                       "position_embedding_type": "absolute",
                       "torch_dtype": "float32"})
    else:
        config["dtype"] = "float32"
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as fh:
        json.dump(config, fh, indent=2)
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors)


# ---------------------------------------------------------------------------
# The reference (float64)
# ---------------------------------------------------------------------------


def gelu_erf(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def bert_forward(config, t, ids):
    """(final hidden states [T, d], masked-LM logits [T, vocab] or None)."""
    p0 = "bert." if "bert.embeddings.word_embeddings.weight" in t else ""
    eps = config.get("layer_norm_eps", 1e-12)
    H = config.get("num_attention_heads", 12)
    act = {"gelu": gelu_erf, "gelu_new": gelu_tanh,
           "gelu_pytorch_tanh": gelu_tanh}[config.get("hidden_act", "gelu")]
    e = p0 + "embeddings."
    T = len(ids)
    x = (t[e + "word_embeddings.weight"][ids]
         + t[e + "token_type_embeddings.weight"][0]
         + t[e + "position_embeddings.weight"][torch.arange(T)])
    x = layer_norm(x, t[e + "LayerNorm.weight"], t[e + "LayerNorm.bias"], eps)
    d = x.shape[1]
    hd = d // H

    def linear(h, name):
        return h @ t[name + ".weight"].T + t[name + ".bias"]

    for i in range(config.get("num_hidden_layers", 12)):
        p = p0 + "encoder.layer.%d." % i
        q, k, v = (linear(x, p + "attention.self." + n).reshape(T, H, hd)
                   for n in ("query", "key", "value"))
        # Bidirectional: every position sees every position.
        scores = torch.einsum("thd,shd->hts", q, k) / math.sqrt(hd)
        attended = torch.einsum("hts,shd->thd", torch.softmax(scores, dim=-1), v)
        a = linear(attended.reshape(T, d), p + "attention.output.dense")
        x = layer_norm(x + a, t[p + "attention.output.LayerNorm.weight"],
                       t[p + "attention.output.LayerNorm.bias"], eps)
        h = linear(act(linear(x, p + "intermediate.dense")), p + "output.dense")
        x = layer_norm(x + h, t[p + "output.LayerNorm.weight"],
                       t[p + "output.LayerNorm.bias"], eps)
    if "cls.predictions.bias" not in t:
        return x, None
    h = act(linear(x, "cls.predictions.transform.dense"))
    h = layer_norm(h, t["cls.predictions.transform.LayerNorm.weight"],
                   t["cls.predictions.transform.LayerNorm.bias"], eps)
    return x, h @ t[e + "word_embeddings.weight"].T + t["cls.predictions.bias"]


# ---------------------------------------------------------------------------
# Checks of an encoder's outputs
# ---------------------------------------------------------------------------


def compare_embedding(args):
    if args.ids_file:
        with open(args.ids_file) as fh:
            ids = [int(s) for s in fh.read().split()]
    else:
        ids = [int(s) for s in args.token_ids.split(",")]
    config, tensors = load_hf(args.model)
    with torch.no_grad():
        hidden, _ = bert_forward(config, tensors, torch.tensor(ids, dtype=torch.long))
    # sentence-transformers' Pooling modes, then its Normalize module.
    pooled = {"mean": lambda h: h.mean(dim=0),
              "cls": lambda h: h[0],
              "last": lambda h: h[-1],
              "max": lambda h: h.max(dim=0).values,
              "mean_sqrt_len": lambda h: h.sum(dim=0) / math.sqrt(h.shape[0])}
    ref = pooled[args.pooling](hidden)
    if args.normalize:
        ref = torch.nn.functional.normalize(ref, p=2, dim=0)
    ref = ref.numpy()
    with open(args.json) as fh:
        lines = [line for line in fh if line.startswith("{")]
    if len(lines) != 1:
        print("FAIL: %s holds %d JSON lines, expected 1" % (args.json, len(lines)))
        return 1
    printed = json.loads(lines[0])
    ours = np.array(printed["embedding"], dtype=np.float64)
    if ours.shape != ref.shape or printed.get("tokens") != len(ids):
        print("FAIL: %d values for %s tokens, expected %d for %d"
              % (ours.size, printed.get("tokens"), ref.size, len(ids)))
        return 1
    if printed.get("pooling") != args.pooling or \
            printed.get("normalized", False) != args.normalize:
        print("FAIL: the binary says pooling %r, normalized %r"
              % (printed.get("pooling"), printed.get("normalized")))
        return 1
    error = np.abs(ours - ref).max() / np.abs(ref).max()
    status = "PASS" if error <= args.tol else "FAIL"
    print("%s: %s-pooled%s embedding of %d values, relative error %.3e (tol %.1e)"
          % (status, args.pooling, ", normalized" if args.normalize else "",
             ref.size, error, args.tol))
    return 0 if status == "PASS" else 1


def check_fill_mask(args):
    with open(args.ids_file) as fh:
        ids = [int(s) for s in fh.read().split()]
    with open(os.path.join(args.model, "tokenizer.json"), encoding="utf-8") as fh:
        mask = json.load(fh)["model"]["vocab"]["[MASK]"]
    config, tensors = load_hf(args.model)
    with torch.no_grad():
        _, logits = bert_forward(config, tensors, torch.tensor(ids, dtype=torch.long))
    logits = logits.numpy()
    with open(args.json) as fh:
        lines = [json.loads(line) for line in fh if line.startswith("{")]
    positions = [line["position"] for line in lines]
    expected = [i for i, token in enumerate(ids) if token == mask]
    if positions != expected:
        print("FAIL: predictions at positions %s, [MASK] at %s" % (positions, expected))
        return 1
    k = len(lines[0]["top"]) if lines else 0
    for line in lines:
        row = logits[line["position"]]
        best = [int(i) for i in np.argsort(-row, kind="stable")[:k]]
        got = [entry["id"] for entry in line["top"]]
        ours = np.array([entry["logit"] for entry in line["top"]])
        error = np.abs(ours - row[best]).max() / np.abs(row).max()
        if got != best or error > args.tol:
            print("FAIL: position %d: ids %s, reference %s (logit error %.3e)"
                  % (line["position"], got, best, error))
            return 1
    print("PASS: %d masks x top %d" % (len(lines), k))
    return 0


# ---------------------------------------------------------------------------
# The family's entries in torch_reference.py
# ---------------------------------------------------------------------------

MAKES = {"bert": make_bert}


def add_make_arguments(make):
    make.add_argument("--no-mlm-head", dest="mlm_head", action="store_false",
                      default=True, help="bert: a BertModel (no masked-LM head)")
    make.add_argument("--hidden-act", default="gelu",
                      help="bert: config.json's hidden_act")


def add_commands(sub):
    """compare-embedding and check-fill-mask: {command: handler}."""
    emb = sub.add_parser("compare-embedding",
                         help="check an encoder's --embed output against the reference")
    emb.add_argument("model", help="Hugging Face bert directory")
    emb.add_argument("json", help="file holding the --embed output")
    ids = emb.add_mutually_exclusive_group(required=True)
    ids.add_argument("--token-ids")
    ids.add_argument("--ids-file", help="the ids, space-separated")
    emb.add_argument("--pooling", required=True,
                     choices=["mean", "cls", "last", "max", "mean_sqrt_len"])
    emb.add_argument("--normalize", action="store_true",
                     help="L2-normalise the pooled vector")
    emb.add_argument("--tol", type=float, default=1e-4)
    fill = sub.add_parser("check-fill-mask",
                          help="check an encoder's fill-mask --json output against the reference")
    fill.add_argument("model", help="Hugging Face bert directory (with tokenizer.json)")
    fill.add_argument("json", help="file holding the --json output")
    fill.add_argument("--ids-file", required=True, help="the prompt's ids, space-separated")
    fill.add_argument("--tol", type=float, default=1e-4)
    return {"compare-embedding": compare_embedding, "check-fill-mask": check_fill_mask}


def reads(model, config):
    return config is not None and config["model_type"] == "bert"


def reference_logits(model, config, ids, args):
    hidden, logits = bert_forward(*load_hf(model), torch.tensor(ids, dtype=torch.long))
    return hidden if logits is None else logits
