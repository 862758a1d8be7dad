#!/usr/bin/env python3
"""PyTorch reference for tfmc's end-to-end numerics tests.

Two commands:

  make-model FAMILY OUT [options]
      Writes a seeded random-weight model. FAMILY is
        llama    a Hugging Face directory (config.json, model.safetensors,
                 tokenizer.bin: a llama2.c-format tokenizer of vocab pieces)
        mistral  the same with a sliding window (--window)
        qwen2    the same with Q/K/V biases
        mixtral  the same with a mixture of --experts SwiGLU experts,
                 --top-k per token
        gemma    the same with Gemma's head_dim (--head-dim), (1 + w)
                 RMSNorm, sqrt(hidden) embedding scale and GeGLU
        (--config-style 5 writes transformers 5.x keys: rope_parameters,
        dtype)
        bloom    a Hugging Face directory (BloomForCausalLM names, fused
                 per-head query_key_value; tokenizer.bin as for llama)
        gpt2     a Hugging Face directory (config.json, model.safetensors,
                 vocab.json + merges.txt: 256 byte tokens + <|endoftext|>;
                 a larger vocab_size leaves the ids above 256 to the model only)
        llama2c  a llama2.c checkpoint OUT (+ OUT.tok, its tokenizer)
        bert     a Hugging Face directory of BertForMaskedLM ("bert."
                 names, cls.predictions.*; --no-mlm-head: BertModel with its
                 pooler); --hidden-act picks the activation. The tokenizer
                 comes from make_hf_tokenizer.py bert.
        t5       a Hugging Face directory of T5ForConditionalGeneration
                 (--decoder-layers, --head-dim as d_kv, --buckets,
                 --max-distance, --ffn relu|gated-gelu, --tie/--no-tie). The
                 tokenizer comes from make_hf_tokenizer.py t5.
      The files are written by hand (the safetensors package is not needed).

  compare MODEL LOGITS --token-ids 1,5,9 [--tol 1e-4] [--projections f16|bf16|q8_0|q4_0]
          [--kv-cache f16] [--activations int8]
      Reads MODEL back with its own parsers, runs an independent float64
      PyTorch implementation of the family over the whole sequence, and checks
      the raw f32 logits [n][vocab] in LOGITS (what a tfmc binary writes with
      --dump-logits) position by position:
          max|ours - ref| / max|ref| <= tol.
      Prints the worst error and its position; exits 1 on a mismatch.
      For bert, LOGITS holds the masked-LM logits of every position (the
      final hidden states [n][hidden] for a model without the head).
      MODEL may also be preset:gpt2-sinusoidal-tiny (with --seed, tfmc's
      --seed): its weights are regenerated as tfmc's presets draw them
      (splitmix64, canonical names in sorted order).

  check-fill-mask MODEL JSON --ids-file IDS
      Checks an encoder's fill-mask --json lines: one per [MASK] among the
      prompt's ids (IDS, space-separated), each listing the reference's
      largest masked-LM logits in order (logits within --tol).

  compare-embedding MODEL JSON (--token-ids 1,5,9 | --ids-file IDS)
                    --pooling mean|cls
      Checks the {"embedding": [...]} line an encoder's --embed printed to
      JSON against the reference's pooled final hidden states (mean over
      the n tokens, or the first token's) within --tol, relative to the
      largest reference element.

The reference is written from the math of each family and shares no code
with tfmc:
  llama    RMSNorm, RoPE (half-split pairs (i, i+hd/2) as Hugging Face; the
           llama2.c layout rotates interleaved pairs (2i, 2i+1)), causal
           attention with GQA/MQA by repeating kv heads, SwiGLU, tied or
           separate classifier.
  mistral  the query at position i sees keys (i - W, i] only.
  qwen2    q/k/v projections add their biases; with use_sliding_window,
           the sliding_attention layers (layer_types, else those from
           max_window_layers on) see keys (i - W, i] only.
  mixtral  the MLP is a mixture of experts: router logits, the top-k
           experts per token, weighted by the softmax over their logits.
  gemma    x * sqrt(hidden) after the embedding, norms scale by (1 + w),
           down(gelu_tanh(gate) * up), heads of head_dim features.
  bloom    LayerNorm of the embeddings, ALiBi (scores + slope_h * key
           position; the ALiBi paper's slopes, also for head counts that
           are not a power of two), LayerNorm blocks with biases, GELU
           tanh, tied head.
  gpt2     learned positions, LayerNorm with bias, Conv1D [in, out] weights
           with fused c_attn, GELU tanh approximation (gelu_new), tied head.
  gpt2-sinusoidal  gpt2 with the original Transformer's fixed encodings
           PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(same) added
           to the token embeddings instead of a learned table.
  bert     word + position + token_type[0] embeddings, their LayerNorm,
           post-LN blocks x = LN(x + attn(x)), x = LN(x + FFN(x)) with
           bidirectional attention (q/k/v/o biases) and GELU (erf; tanh for
           gelu_new), then the masked-LM head: dense, GELU, LayerNorm and the
           word embeddings (tied) plus a bias.
"""
import argparse
import json
import math
import os
import struct
import sys

import numpy as np
import torch

# ---------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------


def encode_tensor(array, dtype):
    """The little-endian bytes of a float32 array in `dtype` (F32, F16 or
    BF16), rounded to nearest even by numpy / PyTorch."""
    array = np.ascontiguousarray(array, dtype="<f4")
    if dtype == "F16":
        return array.astype("<f2").tobytes()
    if dtype == "BF16":
        return torch.from_numpy(array).to(torch.bfloat16).view(torch.int16).numpy().tobytes()
    return array.tobytes()


def write_safetensors(path, tensors, dtype="F32"):
    """tensors: list of (name, float32 ndarray), stored as `dtype`. Layout: u64
    LE header length, JSON header {name: {dtype, shape, data_offsets}}, raw
    little-endian data."""
    header = {"__metadata__": {"format": "pt"}}
    offset = 0
    blobs = []
    for name, array in tensors:
        data = encode_tensor(array, dtype)
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def write_llama2c_tokenizer(path, vocab):
    """A llama2.c tokenizer.bin with `vocab` pieces: <unk>, <s>, </s>, the 256
    byte-fallback pieces, then filler words."""
    pieces = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
    letters = "abcdefghijklmnopqrstuvwxyz"
    i = 0
    while len(pieces) < vocab:
        word = letters[i % 26] + (letters[(i // 26) % 26] if i >= 26 else "")
        pieces.append("\u2581" + word if i % 2 else word)
        i += 1
    # Duplicates would confuse an encoder; make them unique deterministically.
    seen = set()
    for j, piece in enumerate(pieces):
        while piece in seen:
            piece += "x"
        seen.add(piece)
        pieces[j] = piece
    pieces = pieces[:vocab]
    encoded = [p.replace("\u2581", " ").encode() if not p.startswith("<")
               else p.encode() for p in pieces]
    with open(path, "wb") as f:
        f.write(struct.pack("<i", max(len(p) for p in encoded)))
        for j, piece in enumerate(encoded):
            score = 0.0 if j < 259 else -float(j)
            f.write(struct.pack("<fi", score, len(piece)))
            f.write(piece)


def bytes_to_unicode():
    """GPT-2's reversible byte -> printable character map."""
    bs = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1))
          + list(range(ord("\xae"), ord("\xff") + 1)))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


def write_gpt2_tokenizer(directory, vocab):
    byte_map = bytes_to_unicode()
    tokens = {byte_map[b]: b for b in range(256)}
    tokens["<|endoftext|>"] = 256
    if vocab < len(tokens):
        sys.exit("gpt2 models here need vocab_size >= %d (256 bytes + <|endoftext|>)"
                 % len(tokens))
    with open(os.path.join(directory, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(tokens, f, ensure_ascii=False)
    with open(os.path.join(directory, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")


class Init:
    """Seeded weights scaled so activations stay O(1) through the network."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def linear(self, out_features, in_features):
        return (self.rng.standard_normal((out_features, in_features))
                / math.sqrt(in_features)).astype(np.float32)

    def normal(self, *shape, scale=1.0):
        return (scale * self.rng.standard_normal(shape)).astype(np.float32)

    def norm(self, dim):
        return (1.0 + 0.1 * self.rng.standard_normal(dim)).astype(np.float32)


ARCHITECTURES = {"llama": "LlamaForCausalLM", "mistral": "MistralForCausalLM",
                 "mixtral": "MixtralForCausalLM",
                 "qwen2": "Qwen2ForCausalLM", "gemma": "GemmaForCausalLM"}


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
    if family == "gemma":
        config["head_dim"] = hd
        config["hidden_act"] = "gelu"  # transformers runs hidden_activation
        config["hidden_activation"] = "gelu_pytorch_tanh"
    if args.config_style == 5:
        config["rope_parameters"] = {"rope_theta": args.rope_theta,
                                     "rope_type": "default"}
        config["dtype"] = "float32"
    else:
        config["rope_theta"] = args.rope_theta
        config["torch_dtype"] = "float32"
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as fh:
        json.dump(config, fh, indent=2)
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors,
                      args.dtype.upper())
    write_llama2c_tokenizer(os.path.join(args.out, "tokenizer.bin"), args.vocab)


def gpt2_tensors(init, vocab, context, dim, hidden, layers):
    """Random GPT-2 weights under their Hugging Face names."""
    d, f = dim, hidden
    tensors = [("wte.weight", init.normal(vocab, d, scale=0.5)),
               ("wpe.weight", init.normal(context, d, scale=0.5))]
    for layer in range(layers):
        p = "h.%d." % layer
        # Conv1D stores [in, out]: the transpose of nn.Linear.
        tensors += [
            (p + "ln_1.weight", init.norm(d)), (p + "ln_1.bias", init.normal(d, scale=0.1)),
            (p + "attn.c_attn.weight", init.linear(3 * d, d).T.copy()),
            (p + "attn.c_attn.bias", init.normal(3 * d, scale=0.1)),
            (p + "attn.c_proj.weight", init.linear(d, d).T.copy()),
            (p + "attn.c_proj.bias", init.normal(d, scale=0.1)),
            (p + "ln_2.weight", init.norm(d)), (p + "ln_2.bias", init.normal(d, scale=0.1)),
            (p + "mlp.c_fc.weight", init.linear(f, d).T.copy()),
            (p + "mlp.c_fc.bias", init.normal(f, scale=0.1)),
            (p + "mlp.c_proj.weight", init.linear(d, f).T.copy()),
            (p + "mlp.c_proj.bias", init.normal(d, scale=0.1)),
        ]
    tensors += [("ln_f.weight", init.norm(d)), ("ln_f.bias", init.normal(d, scale=0.1))]
    return tensors


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


def make_gpt2(args):
    init = Init(args.seed)
    d, f = args.dim, args.hidden or 4 * args.dim
    tensors = gpt2_tensors(init, args.vocab, args.context, d, f, args.layers)
    config = {
        "model_type": "gpt2", "architectures": ["GPT2LMHeadModel"],
        "n_embd": d, "n_layer": args.layers, "n_head": args.heads,
        "n_inner": f, "vocab_size": args.vocab, "n_positions": args.context,
        "n_ctx": args.context, "layer_norm_epsilon": args.eps,
        "activation_function": "gelu_new",
        "bos_token_id": 256, "eos_token_id": 256,
    }
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as fh:
        json.dump(config, fh, indent=2)
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors)
    write_gpt2_tokenizer(args.out, args.vocab)


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
        for name in ("query", "key", "value"):
            tensors += [(p + "attention.self.%s.weight" % name, init.linear(d, d)),
                        (p + "attention.self.%s.bias" % name, init.normal(d, scale=0.3))]
        tensors += [
            (p + "attention.output.dense.weight", init.linear(d, d)),
            (p + "attention.output.dense.bias", init.normal(d, scale=0.1)),
            (p + "attention.output.LayerNorm.weight", init.norm(d)),
            (p + "attention.output.LayerNorm.bias", init.normal(d, scale=0.1)),
            (p + "intermediate.dense.weight", init.linear(f, d)),
            (p + "intermediate.dense.bias", init.normal(f, scale=0.1)),
            (p + "output.dense.weight", init.linear(d, f)),
            (p + "output.dense.bias", init.normal(d, scale=0.1)),
            (p + "output.LayerNorm.weight", init.norm(d)),
            (p + "output.LayerNorm.bias", init.normal(d, scale=0.1)),
        ]
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
# Readers (independent of the writers' in-memory state: the files are the truth)
# ---------------------------------------------------------------------------


def read_safetensors(path):
    with open(path, "rb") as fh:
        raw = fh.read()
    (length,) = struct.unpack_from("<Q", raw, 0)
    header = json.loads(raw[8:8 + length])
    base = 8 + length
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        data = raw[base + begin:base + end]
        if info["dtype"] == "BF16":  # the top half of a float32
            bits = np.frombuffer(data, dtype="<u2").astype(np.uint32) << 16
            array = bits.view(np.float32)
        else:
            dtypes = {"F32": "<f4", "F16": "<f2"}
            assert info["dtype"] in dtypes, (name, info["dtype"])
            array = np.frombuffer(data, dtype=dtypes[info["dtype"]])
        out[name] = torch.from_numpy(array.reshape(info["shape"]).astype(np.float64))
    return out


def load_hf(directory):
    with open(os.path.join(directory, "config.json")) as fh:
        config = json.load(fh)
    return config, read_safetensors(os.path.join(directory, "model.safetensors"))


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


# ---------------------------------------------------------------------------
# The reference models (float64)
# ---------------------------------------------------------------------------


def rms_norm(x, weight, eps):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * weight


def layer_norm(x, weight, bias, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * weight + bias


def rope(x, theta, interleaved):
    """x: [T, heads, hd]; rotates each head at positions 0..T-1."""
    T, _, hd = x.shape
    i = torch.arange(hd // 2, dtype=torch.float64)
    freq = theta ** (-2.0 * i / hd)
    angle = torch.arange(T, dtype=torch.float64)[:, None] * freq[None, :]
    cos, sin = torch.cos(angle)[:, None, :], torch.sin(angle)[:, None, :]
    if interleaved:
        a, b = x[..., 0::2], x[..., 1::2]
        out = torch.empty_like(x)
        out[..., 0::2] = a * cos - b * sin
        out[..., 1::2] = a * sin + b * cos
        return out
    a, b = x[..., :hd // 2], x[..., hd // 2:]
    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1)


def causal_attention(q, k, v, window=0):
    """q: [T, H, hd]; k, v: [T, KV, hd] with H a multiple of KV. With a
    window W, query i sees keys (i - W, i] only."""
    T, H, hd = q.shape
    group = H // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = torch.einsum("thd,shd->hts", q, k) / math.sqrt(hd)
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    if window:
        mask |= torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-window)
    scores = scores.masked_fill(mask, float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    return torch.einsum("hts,shd->thd", probs, v).reshape(T, H * hd)


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
        q = rope(project(h, w, "wq").reshape(T, H, hd), cfg["theta"], cfg["interleaved"])
        k = rope(project(h, w, "wk").reshape(T, KV, hd), cfg["theta"], cfg["interleaved"])
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


# How close each int8-quantized projection input came to a rounding tie, in
# units of the float32 error the binary's value may carry: INT8_TIE_ULPS
# units in the last place of the input in quant steps (the roundings
# accumulated through the layers; a flip was seen at 3 ulps). Below 1 the
# binary may round it the other way.
INT8_TIE_DISTANCES = []
INT8_TIE_ULPS = 16


def quantize_inputs(h, weight, activations):
    """`h` as a projection over `weight` reads it: as it is, or, with
    activations "int8" and a matrix of whole blocks of 32 (one tfmc packs
    as Q4_0), each row's blocks of 32 quantized to int8 as llama.cpp's
    Q8_0 activations are, in float32 like the kernel: d = max|x| / 127,
    q = round-half-even(x * (1 / d)) (0 for an all-zero block), and
    dequantized back to q * d.

    The binary computes `h` in float32, not float64: a value within float32
    error of a rounding tie (x / d = k + 1/2) may round the other way there,
    and one such flip moves the logits by about 1e-2 relative. Each call
    records how close its values come to a tie, in quant steps
    (INT8_TIE_DISTANCES), for compare to refuse a model and prompt whose
    quantization is not decided."""
    if activations == "bf16" and weight.shape[-1] % 2 == 0:
        return round_inputs_to_bf16(h)
    if activations != "int8" or weight.shape[-1] % 32 != 0:
        return h
    blocks = h.to(torch.float32).reshape(*h.shape[:-1], -1, 32)
    scale = blocks.abs().amax(dim=-1, keepdim=True) / 127.0
    inverse = torch.where(scale == 0, torch.zeros_like(scale), 1.0 / scale)
    steps = (blocks * inverse).to(torch.float64)
    margin = INT8_TIE_ULPS * 2.0 ** -23 * steps.abs().clamp(min=1.0)
    INT8_TIE_DISTANCES.append(float(
        ((steps - torch.floor(steps) - 0.5).abs() / margin).min()))
    quants = torch.round(blocks * inverse)
    return (quants.to(torch.float64) * scale.to(torch.float64)).reshape(h.shape)


def round_inputs_to_bf16(h):
    """`h` rounded to bfloat16 (to nearest even, from float32 as the
    kernel rounds it), as tfmc --bf16-inputs reads a projection's input
    over bf16 weights. A value within float32 error of a rounding tie
    (halfway between two bf16) may round the other way in the binary: each
    call records, as quantize_inputs does, how close its values come to
    one, in units of INT8_TIE_ULPS float32 ulps."""
    single = h.to(torch.float32)
    magnitude = single.to(torch.float64).abs()
    nonzero = magnitude > 0
    # The spacing of bf16 values (8 significant bits) around each input.
    exponent = torch.floor(torch.log2(torch.where(nonzero, magnitude,
                                                  torch.ones_like(magnitude))))
    spacing = torch.pow(2.0, exponent - 7)
    steps = h.to(torch.float64).abs() / spacing
    margin = INT8_TIE_ULPS * 2.0 ** -23 * magnitude / spacing
    distance = (steps - torch.floor(steps) - 0.5).abs() / margin.clamp(min=1e-30)
    distance = torch.where(nonzero, distance, torch.full_like(distance, math.inf))
    if distance.numel():
        INT8_TIE_DISTANCES.append(float(distance.min()))
    return single.to(torch.bfloat16).to(torch.float64)


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
    family = config["model_type"]
    tied = (config.get("tie_word_embeddings", family == "gemma")
            or "lm_head.weight" not in t)
    head = t["model.embed_tokens.weight"] if tied else t["lm_head.weight"]
    H = config["num_attention_heads"]
    theta = config.get("rope_theta",
                       config.get("rope_parameters", {}).get("rope_theta", 10000.0))
    cfg = dict(heads=H, kv_heads=config.get("num_key_value_heads", H),
               eps=config.get("rms_norm_eps", 1e-6), theta=theta,
               interleaved=False, head_dim=config.get("head_dim"),
               windows=layer_windows(config, family),
               top_k=config.get("num_experts_per_tok", 0),
               gemma=family == "gemma")
    return cfg, t["model.embed_tokens.weight"], layers, t["model.norm.weight"], head


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def gpt2_forward(config, t, ids):
    eps = config.get("layer_norm_epsilon", 1e-5)
    H = config["n_head"]
    x = t["wte.weight"][ids] + t["wpe.weight"][torch.arange(len(ids))]
    T, d = x.shape
    hd = d // H
    for i in range(config["n_layer"]):
        p = "h.%d." % i
        h = layer_norm(x, t[p + "ln_1.weight"], t[p + "ln_1.bias"], eps)
        qkv = h @ t[p + "attn.c_attn.weight"] + t[p + "attn.c_attn.bias"]
        q, k, v = (part.reshape(T, H, hd) for part in qkv.split(d, dim=-1))
        x = x + causal_attention(q, k, v) @ t[p + "attn.c_proj.weight"] \
            + t[p + "attn.c_proj.bias"]
        h = layer_norm(x, t[p + "ln_2.weight"], t[p + "ln_2.bias"], eps)
        h = gelu_tanh(h @ t[p + "mlp.c_fc.weight"] + t[p + "mlp.c_fc.bias"])
        x = x + h @ t[p + "mlp.c_proj.weight"] + t[p + "mlp.c_proj.bias"]
    x = layer_norm(x, t["ln_f.weight"], t["ln_f.bias"], eps)
    return x @ t["wte.weight"].T


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


def sinusoidal_positions(n, d, base=10000.0):
    """The original Transformer's encodings of positions 0..n-1:
    PE(p, 2i) = sin(p / base^(2i/d)), PE(p, 2i+1) = cos(p / base^(2i/d))."""
    p = torch.arange(n, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d, 2, dtype=torch.float64)[None, :]
    angle = p / base ** (two_i / d)
    pe = torch.empty(n, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe


# The shapes of tfmc's sinusoidal GPT-2 preset (models/gpt2/Presets.cpp).
SINUSOIDAL_PRESETS = {"gpt2-sinusoidal-tiny": dict(dim=64, hidden=256, layers=2,
                                                   heads=4, vocab=257)}


def splitmix_symmetric(seed, count, start):
    """Draws start..start+count-1 of splitmix64(seed), each mapped to
    [-1, 1) as tfmc's presets do: (z >> 40) * 2^-24 * 2 - 1."""
    gamma = np.uint64(0x9e3779b97f4a7c15)
    k = np.arange(start + 1, start + count + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + k * gamma
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xbf58476d1ce4e5b9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94d049bb133111eb)
        z = z ^ (z >> np.uint64(31))
    return ((z >> np.uint64(40)).astype(np.float64) * 2.0 ** -24 * 2.0 - 1.0) \
        .astype(np.float32)


def preset_weights(shapes, seed):
    """tfmc's seeded preset weights: in name order, a norm weight is
    1 + 0.1 u, another vector 0.1 u, a matrix u / sqrt(columns), all in f32,
    with u the next draws of one splitmix64 stream."""
    out, drawn = {}, 0
    for name in sorted(shapes):
        shape = shapes[name]
        count = int(np.prod(shape))
        u = splitmix_symmetric(seed, count, drawn)
        drawn += count
        amplitude = np.float32(0.1) if len(shape) == 1 else \
            np.float32(1.0) / np.sqrt(np.float32(shape[-1]))
        centre = np.float32(1.0 if "norm" in name and name.endswith(".weight") else 0.0)
        values = centre + amplitude * u
        out[name] = torch.from_numpy(values.reshape(shape).astype(np.float64))
    return out


def gpt2_sinusoidal_preset(name, seed):
    """The canonical weights ([out, in] matrices) of a sinusoidal GPT-2
    preset: no position table, LayerNorms and projections with biases,
    tied head."""
    p = SINUSOIDAL_PRESETS[name]
    d, f = p["dim"], p["hidden"]
    shapes = {"token_embedding": [p["vocab"], d],
              "final_norm.weight": [d], "final_norm.bias": [d]}
    for i in range(p["layers"]):
        layer = "layers.%d." % i
        for part, shape in [("attn_norm.weight", [d]), ("attn_norm.bias", [d]),
                            ("attn.wq", [d, d]), ("attn.wk", [d, d]),
                            ("attn.wv", [d, d]), ("attn.wo", [d, d]),
                            ("attn.bq", [d]), ("attn.bk", [d]), ("attn.bv", [d]),
                            ("attn.bo", [d]), ("ffn_norm.weight", [d]),
                            ("ffn_norm.bias", [d]), ("ffn.w_up", [f, d]),
                            ("ffn.b_up", [f]), ("ffn.w_down", [d, f]),
                            ("ffn.b_down", [d])]:
            shapes[layer + part] = shape
    return p, preset_weights(shapes, seed)


def gpt2_sinusoidal_forward(preset, t, ids, eps=1e-5):
    H, T = preset["heads"], len(ids)
    x = t["token_embedding"][ids] + sinusoidal_positions(T, preset["dim"])
    hd = preset["dim"] // H
    for i in range(preset["layers"]):
        p = "layers.%d." % i
        h = layer_norm(x, t[p + "attn_norm.weight"], t[p + "attn_norm.bias"], eps)
        q, k, v = ((h @ t[p + "attn.w" + n].T + t[p + "attn.b" + n]).reshape(T, H, hd)
                   for n in "qkv")
        x = x + causal_attention(q, k, v) @ t[p + "attn.wo"].T + t[p + "attn.bo"]
        h = layer_norm(x, t[p + "ffn_norm.weight"], t[p + "ffn_norm.bias"], eps)
        h = gelu_tanh(h @ t[p + "ffn.w_up"].T + t[p + "ffn.b_up"])
        x = x + h @ t[p + "ffn.w_down"].T + t[p + "ffn.b_down"]
    x = layer_norm(x, t["final_norm.weight"], t["final_norm.bias"], eps)
    return x @ t["token_embedding"].T


def alibi_slopes(heads):
    """The ALiBi paper's slopes: 2^(-8i/n) for the largest power of two n <=
    heads, then every other slope of 2n for the remaining heads."""
    def geometric(n):
        return [2.0 ** (-8.0 * i / n) for i in range(1, n + 1)]
    n = 2 ** int(math.floor(math.log2(heads)))
    return geometric(n) + geometric(2 * n)[0::2][:heads - n]


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


def round_to(w, dtype):
    """`w` (float64 holding float32 values) rounded to float16 / bfloat16 by
    PyTorch's own casts (nearest even), back in float64; or, for q8_0 /
    q4_0, quantized row by row and dequantized by the independent Python
    implementation of the GGUF block formats (gguf_quantize.py). A matrix
    whose rows are not whole blocks of 32 stays as it is, as tfmc keeps it
    f32 (docs/weight-types.md)."""
    if dtype in ("q8_0", "q4_0"):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import gguf_quantize
        if w.shape[-1] % 32 != 0:
            return w
        blocks = w.to(torch.float32).numpy().reshape(-1, 32)
        quantize = {"q8_0": gguf_quantize.quantize_q8_0,
                    "q4_0": gguf_quantize.quantize_q4_0}[dtype]
        values = np.frombuffer(gguf_quantize.dequantize(quantize(blocks), dtype),
                               dtype="<f4").reshape(w.shape)
        return torch.from_numpy(values.copy()).to(torch.float64)
    torch_type = {"f16": torch.float16, "bf16": torch.bfloat16}[dtype]
    return w.to(torch.float32).to(torch_type).to(torch.float64)


def round_projections(model, dtype):
    """The llama-family weights with every projection matrix (what tfmc packs
    into panels: q, k, v, o, gate, up, down, the classifier) rounded to
    `dtype`; the embedding table and the norms stay as stored, also when the
    classifier is tied to the table."""
    cfg, embed, layers, final_norm, head = model
    if dtype == "f32":
        return model
    layers = [{k: round_to(v, dtype) if k in ("wq", "wk", "wv", "wo", "w1", "w2", "w3")
               else v for k, v in w.items()} for w in layers]
    return cfg, embed, layers, final_norm, round_to(head, dtype)


def reference_logits(model, ids, projections="f32", kv_cache="f32", seed=42,
                     activations="f32"):
    ids = torch.tensor(ids, dtype=torch.long)
    if model.startswith("preset:"):
        preset, tensors = gpt2_sinusoidal_preset(model[len("preset:"):], seed)
        return gpt2_sinusoidal_forward(preset, tensors, ids)
    if os.path.isdir(model):
        config, tensors = load_hf(model)
        if kv_cache != "f32" and config["model_type"] in ("gpt2", "bloom", "bert"):
            raise SystemExit("--kv-cache %s: the reference rounds the cache of "
                             "llama families only" % kv_cache)
        if config["model_type"] == "gpt2":
            return gpt2_forward(config, tensors, ids)
        if config["model_type"] == "bloom":
            return bloom_forward(config, tensors, ids)
        if config["model_type"] == "bert":
            hidden, logits = bert_forward(config, tensors, ids)
            return hidden if logits is None else logits
        model = round_projections(llama_from_hf(config, tensors), projections)
    else:
        model = round_projections(load_llama2c(model), projections)
    model[0]["kv_cache"] = kv_cache
    model[0]["activations"] = activations
    return llama_forward(*model, ids)


def compare(args):
    ids = [int(s) for s in args.token_ids.split(",")]
    with torch.no_grad():
        if args.source_ids:
            config, tensors = load_hf(args.model)
            source = [int(s) for s in args.source_ids.split(",")]
            ref = t5_forward(config, tensors, torch.tensor(source),
                             torch.tensor(ids), args.drop).numpy()
        else:
            ref = reference_logits(args.model, ids, args.projections,
                                   args.kv_cache, args.seed,
                                   args.activations).numpy()
    n, vocab = ref.shape
    if INT8_TIE_DISTANCES:
        closest = min(INT8_TIE_DISTANCES)
        if closest < 1:
            print("UNDECIDED: a rounded (int8 or bf16) input lies within %d float32 ulps of a "
                  "rounding tie (%.2f x): the binary may round it either way; "
                  "choose another model seed or prompt" % (INT8_TIE_ULPS, closest))
            return 1
    ours = np.fromfile(args.logits, dtype="<f4")
    if ours.size != n * vocab:
        print("FAIL: %s holds %d floats, expected %d positions x %d vocab"
              % (args.logits, ours.size, n, vocab))
        return 1
    ours = ours.reshape(n, vocab).astype(np.float64)
    if not np.all(np.isfinite(ours)):
        bad = int(np.argwhere(~np.isfinite(ours))[0][0])
        print("FAIL: non-finite logits at position %d" % bad)
        return 1
    errors = np.abs(ours - ref).max(axis=1) / np.abs(ref).max(axis=1)
    worst = int(errors.argmax())
    status = "PASS" if errors[worst] <= args.tol else "FAIL"
    print("%s: %d positions x %d vocab, worst relative error %.3e at position %d"
          " (tol %.1e)" % (status, n, vocab, errors[worst], worst, args.tol))
    if status == "FAIL":
        failing = [i for i in range(n) if errors[i] > args.tol]
        print("  failing positions: %s" % failing)
        print("  per-position errors: %s" % " ".join("%.1e" % e for e in errors))
        return 1
    return 0


def compare_embedding(args):
    if args.ids_file:
        with open(args.ids_file) as fh:
            ids = [int(s) for s in fh.read().split()]
    else:
        ids = [int(s) for s in args.token_ids.split(",")]
    config, tensors = load_hf(args.model)
    with torch.no_grad():
        hidden, _ = bert_forward(config, tensors, torch.tensor(ids, dtype=torch.long))
    ref = (hidden.mean(dim=0) if args.pooling == "mean" else hidden[0]).numpy()
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
    error = np.abs(ours - ref).max() / np.abs(ref).max()
    status = "PASS" if error <= args.tol else "FAIL"
    print("%s: %s-pooled embedding of %d values, relative error %.3e (tol %.1e)"
          % (status, args.pooling, ref.size, error, args.tol))
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


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("make-model", help="write a random-weight model")
    make.add_argument("family", choices=["llama", "mistral", "mixtral", "qwen2", "gemma",
                                         "bloom", "gpt2", "llama2c", "bert", "t5"])
    make.add_argument("out")
    make.add_argument("--dim", type=int, default=64)
    make.add_argument("--hidden", type=int, default=0,
                      help="FFN width (default: 172 for llama, 4*dim for gpt2)")
    make.add_argument("--layers", type=int, default=2)
    make.add_argument("--heads", type=int, default=4)
    make.add_argument("--kv-heads", type=int, default=0, help="default: --heads")
    make.add_argument("--vocab", type=int, default=512)
    make.add_argument("--context", type=int, default=128)
    make.add_argument("--tie", dest="tie", action="store_true", default=True)
    make.add_argument("--no-tie", dest="tie", action="store_false")
    make.add_argument("--eps", type=float, default=1e-5)
    make.add_argument("--rope-theta", type=float, default=10000.0)
    make.add_argument("--seed", type=int, default=0)
    make.add_argument("--experts", type=int, default=4, help="mixtral: experts")
    make.add_argument("--top-k", type=int, default=2,
                      help="mixtral: experts per token")
    make.add_argument("--window", type=int, default=0,
                      help="mistral, qwen2: sliding window (0: none)")
    make.add_argument("--max-window-layers", type=int, default=0,
                      help="qwen2 with --window: the layers below this one "
                           "attend fully")
    make.add_argument("--head-dim", type=int, default=0,
                      help="default: dim / heads (gemma writes it to config.json)")
    make.add_argument("--dtype", choices=["f32", "f16", "bf16"], default="f32",
                      help="llama families: the safetensors dtype of every tensor")
    make.add_argument("--config-style", type=int, choices=[4, 5], default=4,
                      help="transformers version whose config.json keys to write")
    make.add_argument("--no-mlm-head", dest="mlm_head", action="store_false",
                      default=True, help="bert: a BertModel (no masked-LM head)")
    make.add_argument("--hidden-act", default="gelu",
                      help="bert: config.json's hidden_act")
    make.add_argument("--decoder-layers", type=int, default=0,
                      help="t5: decoder layers (default: --layers)")
    make.add_argument("--buckets", type=int, default=32,
                      help="t5: relative_attention_num_buckets")
    make.add_argument("--max-distance", type=int, default=128,
                      help="t5: relative_attention_max_distance")
    make.add_argument("--ffn", choices=["relu", "gated-gelu"], default="relu",
                      help="t5: feed_forward_proj")
    cmp = sub.add_parser("compare", help="check dumped logits against the reference")
    cmp.add_argument("model", help="Hugging Face directory, llama2.c .bin or "
                     "preset:gpt2-sinusoidal-tiny")
    cmp.add_argument("--seed", type=int, default=42,
                     help="a preset's weight seed (tfmc compile --seed)")
    cmp.add_argument("logits")
    cmp.add_argument("--token-ids", required=True)
    cmp.add_argument("--tol", type=float, default=1e-4)
    cmp.add_argument("--source-ids",
                     help="t5: the encoder's ids (--token-ids are the decoder's)")
    cmp.add_argument("--drop", choices=["relative-bias", "cross-attention"],
                     help="t5: leave this out of the reference (a negative check)")
    emb = sub.add_parser("compare-embedding",
                         help="check an encoder's --embed output against the reference")
    emb.add_argument("model", help="Hugging Face bert directory")
    emb.add_argument("json", help="file holding the --embed output")
    ids = emb.add_mutually_exclusive_group(required=True)
    ids.add_argument("--token-ids")
    ids.add_argument("--ids-file", help="the ids, space-separated")
    emb.add_argument("--pooling", choices=["mean", "cls"], required=True)
    emb.add_argument("--tol", type=float, default=1e-4)
    fill = sub.add_parser("check-fill-mask",
                          help="check an encoder's fill-mask --json output against the reference")
    fill.add_argument("model", help="Hugging Face bert directory (with tokenizer.json)")
    fill.add_argument("json", help="file holding the --json output")
    fill.add_argument("--ids-file", required=True, help="the prompt's ids, space-separated")
    fill.add_argument("--tol", type=float, default=1e-4)
    cmp.add_argument("--projections", choices=["f32", "f16", "bf16", "q8_0", "q4_0"],
                     default="f32",
                     help="llama families: round the projection matrices to this "
                          "type first (what tfmc --weights=f16|bf16|q8_0|q4_0 computes with)")
    cmp.add_argument("--kv-cache", choices=["f32", "f16"], default="f32",
                     help="llama families: round keys and values to this type "
                          "(what tfmc --kv-cache=f16 attends over)")
    cmp.add_argument("--activations", choices=["f32", "int8", "bf16"], default="f32",
                     help="llama families: quantize each projection's input to "
                          "int8 per block of 32 where its matrix is whole blocks "
                          "(what tfmc --int8-inputs computes for Q4_0), or round "
                          "it to bf16 where its matrix has an even number of "
                          "columns (what tfmc --bf16-inputs computes for bf16)")
    args = parser.parse_args()
    if args.command == "check-fill-mask":
        return check_fill_mask(args)
    if args.command == "compare":
        return compare(args)
    if args.command == "compare-embedding":
        return compare_embedding(args)
    if args.family not in ("gpt2", "bert", "t5") and not args.hidden:
        args.hidden = 172
    makers = {"gpt2": make_gpt2, "bloom": make_bloom, "llama2c": make_llama2c,
              "bert": make_bert, "t5": make_t5}
    makers.get(args.family, make_llama)(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
