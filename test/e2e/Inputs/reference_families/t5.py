"""T5 (v1.0 and v1.1/FLAN), an encoder-decoder.

make-model:
  t5       a Hugging Face directory of T5ForConditionalGeneration
           (--decoder-layers, --head-dim as d_kv, --buckets,
           --max-distance, --ffn relu|gated-gelu, --tie/--no-tie). The
           tokenizer comes from make_hf_tokenizer.py t5.

compare takes the encoder's ids as --source-ids (--token-ids are the
decoder's) and checks the decoder's logits; --drop leaves the relative
position bias or the cross-attention out of the reference (a negative
check: the test must notice).

The reference: RMS norms (no mean, no bias), pre-norm residual blocks,
the relative position bias of each stack's block 0 in all its blocks
(buckets computed as transformers does), and cross-attention over the
final-normed encoder output; no 1/sqrt(d) on the scores.
"""
import json
import math
import os

import torch

from reference_families.common import Init, gelu_tanh, load_hf, rms_norm, write_safetensors

# ---------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------


def make_t5(args):
    """T5ForConditionalGeneration's tensors: v1.0 (ReLU, tied head) or
    v1.1 (gated GELU, untied head), as --ffn and --tie say."""
    init = Init(args.seed)
    d, f = args.dim, args.hidden or 2 * args.dim
    hd = args.head_dim or d // args.heads
    inner = args.heads * hd
    gated = args.ffn == "gated-gelu"
    shared = init.normal(args.vocab, d)
    tensors = [("shared.weight", shared)]
    for stack, layers in (("encoder", args.layers),
                          ("decoder", args.decoder_layers or args.layers)):
        tensors.append(("%s.block.0.layer.0.SelfAttention.relative_attention_bias.weight"
                        % stack, init.normal(args.buckets, args.heads)))
        blocks = ["SelfAttention"] + (["EncDecAttention"] if stack == "decoder" else [])
        for layer in range(layers):
            p = "%s.block.%d." % (stack, layer)
            for index, block in enumerate(blocks):
                # Unscaled scores: T5 folds 1/sqrt(d_kv) into the query.
                tensors += [(p + "layer.%d.%s.q.weight" % (index, block),
                             init.linear(inner, d) / math.sqrt(hd)),
                            (p + "layer.%d.%s.k.weight" % (index, block), init.linear(inner, d)),
                            (p + "layer.%d.%s.v.weight" % (index, block), init.linear(inner, d)),
                            (p + "layer.%d.%s.o.weight" % (index, block), init.linear(d, inner)),
                            (p + "layer.%d.layer_norm.weight" % index, init.norm(d))]
            q = p + "layer.%d." % len(blocks)
            if gated:
                tensors += [(q + "DenseReluDense.wi_0.weight", init.linear(f, d)),
                            (q + "DenseReluDense.wi_1.weight", init.linear(f, d))]
            else:
                tensors += [(q + "DenseReluDense.wi.weight", init.linear(f, d))]
            tensors += [(q + "DenseReluDense.wo.weight", init.linear(d, f)),
                        (q + "layer_norm.weight", init.norm(d))]
        tensors.append(("%s.final_layer_norm.weight" % stack, init.norm(d)))
    if args.tie:
        # The stacks' tied copies of `shared`, as some checkpoints keep them.
        tensors += [("encoder.embed_tokens.weight", shared),
                    ("decoder.embed_tokens.weight", shared)]
    else:
        tensors.append(("lm_head.weight", init.linear(args.vocab, d)))
    config = {
        "model_type": "t5", "architectures": ["T5ForConditionalGeneration"],
        "d_model": d, "d_kv": hd, "d_ff": f, "num_layers": args.layers,
        "num_decoder_layers": args.decoder_layers or args.layers,
        "num_heads": args.heads, "relative_attention_num_buckets": args.buckets,
        "relative_attention_max_distance": args.max_distance,
        "layer_norm_epsilon": args.eps, "feed_forward_proj": args.ffn,
        "tie_word_embeddings": args.tie, "vocab_size": args.vocab,
        "n_positions": args.context, "is_encoder_decoder": True,
        "decoder_start_token_id": 0, "eos_token_id": 1, "pad_token_id": 0,
        "dropout_rate": 0.1, "torch_dtype": "float32",
    }
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as fh:
        json.dump(config, fh, indent=2)
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors)


# ---------------------------------------------------------------------------
# The reference (float64)
# ---------------------------------------------------------------------------


def t5_relative_bucket(relative, bidirectional, num_buckets, max_distance):
    """T5's bucket of each key - query distance in `relative` (a long
    tensor), computed as transformers does (the logarithm in float32)."""
    buckets = torch.zeros_like(relative)
    if bidirectional:
        num_buckets //= 2
        buckets += (relative > 0).long() * num_buckets
        distance = relative.abs()
    else:
        distance = -torch.min(relative, torch.zeros_like(relative))
    exact = num_buckets // 2
    large = exact + (torch.log(distance.float() / exact)
                     / math.log(max_distance / exact)
                     * (num_buckets - exact)).long()
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return buckets + torch.where(distance < exact, distance, large)


def t5_position_bias(table, queries, keys, bidirectional, max_distance):
    """[heads, queries, keys]: table[bucket(key - query), head]."""
    relative = (torch.arange(keys)[None, :] - torch.arange(queries)[:, None])
    buckets = t5_relative_bucket(relative, bidirectional, table.shape[0],
                                 max_distance)
    return table[buckets].permute(2, 0, 1)


def t5_attention(rows, memory, t, p, heads, bias, causal):
    """T5's attention: no 1/sqrt(d) on the scores, `bias` (or None) added."""
    n, m = rows.shape[0], memory.shape[0]
    q = (rows @ t[p + "q.weight"].T).view(n, heads, -1).transpose(0, 1)
    k = (memory @ t[p + "k.weight"].T).view(m, heads, -1).transpose(0, 1)
    v = (memory @ t[p + "v.weight"].T).view(m, heads, -1).transpose(0, 1)
    scores = q @ k.transpose(1, 2)
    if bias is not None:
        scores = scores + bias
    if causal:
        scores = scores.masked_fill(
            torch.ones(n, m, dtype=torch.bool).triu(1), float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return out.transpose(0, 1).reshape(n, -1) @ t[p + "o.weight"].T


def t5_forward(config, t, source, target, drop=None):
    """T5ForConditionalGeneration's logits of every target position, from
    the math: RMS norms (no mean, no bias), pre-norm residual blocks, the
    relative position bias of each stack's block 0 in all its blocks, and
    cross-attention over the final-normed encoder output. `drop` leaves out
    "relative-bias" or "cross-attention" (what the tests must notice)."""
    d, heads = config["d_model"], config["num_heads"]
    eps = config.get("layer_norm_epsilon", 1e-6)
    buckets_max = config.get("relative_attention_max_distance", 128)
    gated = config.get("feed_forward_proj", "relu") == "gated-gelu"

    def ffn(h, p):
        if gated:
            inner = gelu_tanh(h @ t[p + "wi_0.weight"].T) * (h @ t[p + "wi_1.weight"].T)
        else:
            inner = torch.relu(h @ t[p + "wi.weight"].T)
        return inner @ t[p + "wo.weight"].T

    def bias(stack, n, m, bidirectional):
        if drop == "relative-bias":
            return None
        table = t[stack + ".block.0.layer.0.SelfAttention.relative_attention_bias.weight"]
        return t5_position_bias(table, n, m, bidirectional, buckets_max)

    embed = t["shared.weight"]
    x = embed[source]
    n = x.shape[0]
    encoder_bias = bias("encoder", n, n, True)
    for layer in range(config["num_layers"]):
        p = "encoder.block.%d.layer." % layer
        h = rms_norm(x, t[p + "0.layer_norm.weight"], eps)
        x = x + t5_attention(h, h, t, p + "0.SelfAttention.", heads, encoder_bias, False)
        x = x + ffn(rms_norm(x, t[p + "1.layer_norm.weight"], eps), p + "1.DenseReluDense.")
    memory = rms_norm(x, t["encoder.final_layer_norm.weight"], eps)

    y = embed[target]
    m = y.shape[0]
    decoder_bias = bias("decoder", m, m, False)
    for layer in range(config.get("num_decoder_layers") or config["num_layers"]):
        p = "decoder.block.%d.layer." % layer
        h = rms_norm(y, t[p + "0.layer_norm.weight"], eps)
        y = y + t5_attention(h, h, t, p + "0.SelfAttention.", heads, decoder_bias, True)
        if drop != "cross-attention":
            h = rms_norm(y, t[p + "1.layer_norm.weight"], eps)
            y = y + t5_attention(h, memory, t, p + "1.EncDecAttention.", heads, None, False)
        y = y + ffn(rms_norm(y, t[p + "2.layer_norm.weight"], eps), p + "2.DenseReluDense.")
    y = rms_norm(y, t["decoder.final_layer_norm.weight"], eps)
    if config.get("tie_word_embeddings", True):
        return (y * d ** -0.5) @ embed.T
    return y @ t["lm_head.weight"].T


# ---------------------------------------------------------------------------
# The family's entries in torch_reference.py
# ---------------------------------------------------------------------------

MAKES = {"t5": make_t5}


def add_make_arguments(make):
    make.add_argument("--decoder-layers", type=int, default=0,
                      help="t5: decoder layers (default: --layers)")
    make.add_argument("--buckets", type=int, default=32,
                      help="t5: relative_attention_num_buckets")
    make.add_argument("--max-distance", type=int, default=128,
                      help="t5: relative_attention_max_distance")
    make.add_argument("--ffn", choices=["relu", "gated-gelu"], default="relu",
                      help="t5: feed_forward_proj")


def add_compare_arguments(cmp):
    cmp.add_argument("--source-ids",
                     help="t5: the encoder's ids (--token-ids are the decoder's)")
    cmp.add_argument("--drop", choices=["relative-bias", "cross-attention"],
                     help="t5: leave this out of the reference (a negative check)")


def reads(model, config):
    return config is not None and config["model_type"] == "t5"


def reference_logits(model, config, ids, args):
    if not args.source_ids:
        raise SystemExit("t5: compare needs the encoder's ids (--source-ids)")
    config, tensors = load_hf(model)
    source = [int(s) for s in args.source_ids.split(",")]
    return t5_forward(config, tensors, torch.tensor(source), torch.tensor(ids),
                      args.drop)
