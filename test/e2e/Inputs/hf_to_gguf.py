"""Converts a Hugging Face model directory to GGUF as llama.cpp's converter does.

  hf_to_gguf.py model HF_DIR OUT.gguf [--split-experts] [--pooling P]
      [--tokenizer-json TOKENIZER_JSON --pre NAME] [--set KEY=TYPE:VALUE]...
      [--unset KEY]... [--drop-tensor NAME]...
  hf_to_gguf.py vocab TOKENIZER_JSON OUT.gguf [--pre NAME] [--bos TEXT]
      [--eos TEXT] [--add-bos] [--add-eos] [--set KEY=TYPE:VALUE]...
      [--unset KEY]...

`model` writes the f32 weights and hyperparameters of a llama, mixtral,
qwen2, qwen3, gemma, gemma2, gemma3_text, olmo2, phi3, starcoder2, falcon,
bloom, gpt_neox, phi, stablelm, bert or t5 directory (as torch_reference.py
make-model writes them) under llama.cpp's names and with its converter's conventions, written
here from its documented behaviour, not from its code:
  - llama/mixtral (architecture `llama`): Q and K rows permuted from the
    Hugging Face rotate-halves order to adjacent pairs; Mixtral's experts
    merged into one [experts, out, in] tensor per matrix (`ffn_gate_exps`),
    or one tensor per expert with --split-experts (older files);
  - qwen2: Q/K/V biases, nothing permuted (llama.cpp rotates halves);
  - qwen3: nothing permuted either, head size as key_length, the per-head
    norms as attn_q_norm / attn_k_norm;
  - gemma: every norm weight stored as 1 + w, head size as key_length;
  - gemma2, gemma3_text (architecture `gemma3`): gemma's conventions (the
    per-head query and key norms stored as 1 + w too), the norms after the
    sublayers as post_attention_norm / post_ffw_norm and the one before the
    MLP as ffn_norm, attention.sliding_window, gemma2's soft caps;
    query_pre_attn_scalar, Gemma 3's window pattern and local RoPE base are
    not written (llama.cpp derives them: the head size, every 6th layer,
    10000);
  - phi3: attn_qkv and ffn_up (gate and up) kept fused as stored, LongRoPE
    as rope_factors_short / rope_factors_long tensors with
    rope.scaling.original_context_length and attn_factor, the partial
    rotation as rope.dimension_count, attention.sliding_window;
  - starcoder2: LLaMA's names unpermuted with LayerNorm and projection
    biases, c_fc / c_proj as ffn_up / ffn_down, attention.sliding_window;
  - falcon: query_key_value reordered from its layout's grouping to all
    queries, then keys, then values; the new decoder architecture's second
    norm as attn_norm_2;
  - olmo2: nothing permuted, the norms as post_attention_norm /
    post_ffw_norm, the whole-width query and key norms as attn_q_norm /
    attn_k_norm;
  - bloom: the per-head fused query_key_value reordered to all queries,
    then all keys, then all values; the tied head written as output.weight;
  - gpt_neox (architecture `gptneox`): query_key_value reordered as BLOOM's,
    rope.dimension_count = int(rotary_pct * head size), the
    use_parallel_residual flag, no RoPE base;
  - phi (architecture `phi2`): separate q/k/v with biases, one norm per
    layer, the head's bias as output.bias;
  - stablelm: LLaMA's tensors unpermuted plus LayerNorm biases, the
    partial rotation as rope.dimension_count, no ffn_norm in a parallel
    layer, per-head query and key norms stacked [heads, head_dim] as
    attn_q_norm / attn_k_norm;
  - bert (BertModel or BertForMaskedLM): the encoder only, "bert." stripped,
    the masked-LM head, the pooler and position_ids dropped; token_types,
    position_embd, token_embd_norm, attn_output_norm (post-attention
    LayerNorm), layer_output_norm (post-FFN LayerNorm); bert.attention.causal
    false, tokenizer.ggml.token_type_count = type_vocab_size (1 when
    config.json leaves it out, as the converter does), bert.pooling_type
    from --pooling (what a sentence-transformers Pooling module gives).
  - t5 (T5ForConditionalGeneration): t5.* keys (block_count for the
    encoder, decoder_block_count, key_length/value_length = d_kv,
    relative_buckets_count, layer_norm_rms_epsilon, decoder_start_token_id;
    no maximum distance), shared -> token_embd, lm_head -> output (absent
    when tied), enc./dec.blk.N.attn_{norm,q,k,v,o}, blk.0's
    relative_attention_bias -> attn_rel_b, dec.blk.N.cross_attn_*,
    DenseReluDense wi (or wi_1) -> ffn_up, wi_0 -> ffn_gate, wo -> ffn_down,
    {enc,dec}.output_norm; the stacks' embed_tokens copies dropped.
With --tokenizer-json, a Unigram tokenizer.json (T5) is embedded as the
`t5` tokenizer model (embed_unigram_tokenizer says how), a byte-level BPE
tokenizer.json as
llama.cpp's `gpt2` tokenizer model (tokens, merges, token types) with
`tokenizer.ggml.pre` NAME, and a WordPiece one as the `bert` model: every
piece in "phantom space" form (a word-initial piece gets a leading U+2581,
a continuation piece loses its "##", control tokens stay as they are), ids
the model has beyond the tokenizer as [PAD<id>] (unused), and the ids of
[UNK], [SEP], [PAD], [CLS] and [MASK]. `vocab` writes only that tokenizer
(no tensors).
--set KEY=TYPE:VALUE (TYPE u32, f32, str, bool, bytes in hex or f32s
comma-separated) replaces or adds a key,
--unset KEY leaves one out, and (model) --drop-tensor NAME a tensor, for
the error tests.
"""
import argparse
import json
import math
import os
import struct
import sys

import numpy as np

GGUF_UINT8, GGUF_UINT32, GGUF_INT32, GGUF_FLOAT32, GGUF_BOOL, GGUF_STRING, GGUF_ARRAY = \
    0, 4, 5, 6, 7, 8, 9
TOKEN_NORMAL, TOKEN_UNKNOWN, TOKEN_CONTROL, TOKEN_USER_DEFINED, TOKEN_UNUSED = 1, 2, 3, 4, 5
ALIGNMENT = 32


def read_safetensors(path):
    with open(path, "rb") as fh:
        blob = fh.read()
    (header_len,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + header_len])
    base = 8 + header_len
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32", "%s: only F32 is converted" % name
        begin, end = info["data_offsets"]
        tensors[name] = np.frombuffer(blob[base + begin:base + end],
                                      dtype="<f4").reshape(info["shape"])
    return tensors


class Writer:
    """GGUF v3: header, metadata, tensor infos, aligned tensor data."""

    def __init__(self, architecture):
        self.meta = []
        self.tensors = []
        self.string("general.architecture", architecture)

    @staticmethod
    def encode_string(s):
        data = s.encode("utf-8")
        return struct.pack("<Q", len(data)) + data

    def u32(self, key, value):
        self.meta.append((key, struct.pack("<I", GGUF_UINT32) + struct.pack("<I", value)))

    def f32(self, key, value):
        self.meta.append((key, struct.pack("<I", GGUF_FLOAT32) + struct.pack("<f", value)))

    def flag(self, key, value):
        self.meta.append((key, struct.pack("<I", GGUF_BOOL) + struct.pack("<B", int(value))))

    def string(self, key, value):
        self.meta.append((key, struct.pack("<I", GGUF_STRING) + self.encode_string(value)))

    def array(self, key, element_type, values):
        payload = struct.pack("<IIQ", GGUF_ARRAY, element_type, len(values))
        if element_type == GGUF_STRING:
            payload += b"".join(self.encode_string(v) for v in values)
        elif element_type == GGUF_INT32:
            payload += struct.pack("<%di" % len(values), *values)
        elif element_type == GGUF_UINT8:
            payload += bytes(values)
        else:
            payload += struct.pack("<%df" % len(values), *values)
        self.meta.append((key, payload))

    def override(self, setting):
        """KEY=TYPE:VALUE (TYPE u32, f32, str, bool, bytes in hex or f32s,
        comma-separated) replaces or adds KEY."""
        key, typed = setting.split("=", 1)
        kind, text = typed.split(":", 1)
        self.meta = [(k, v) for k, v in self.meta if k != key]
        {"u32": lambda: self.u32(key, int(text)), "f32": lambda: self.f32(key, float(text)),
         "str": lambda: self.string(key, text),
         "bool": lambda: self.flag(key, text == "true"),
         "bytes": lambda: self.array(key, GGUF_UINT8, bytes.fromhex(text)),
         "f32s": lambda: self.array(key, GGUF_FLOAT32,
                                    [float(v) for v in text.split(",")])}[kind]()

    def tensor(self, name, array):
        self.tensors.append((name, np.ascontiguousarray(array, dtype="<f4")))

    def write(self, path):
        out = b"GGUF" + struct.pack("<IQQ", 3, len(self.tensors), len(self.meta))
        for key, payload in self.meta:
            out += self.encode_string(key) + payload
        data = b""
        for name, array in self.tensors:
            # ggml lists dimensions innermost first.
            dims = list(reversed(array.shape))
            out += self.encode_string(name) + struct.pack("<I", len(dims))
            out += b"".join(struct.pack("<Q", d) for d in dims)
            out += struct.pack("<IQ", 0, len(data))  # F32
            data += array.tobytes()
            data += b"\0" * (-len(data) % ALIGNMENT)
        out += b"\0" * (-len(out) % ALIGNMENT)
        with open(path, "wb") as fh:
            fh.write(out + data)


def permute_for_pairs(w, heads):
    """Rows of each head from (first halves, second halves) to pairs."""
    return (w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def decoder_metadata(writer, arch, config, heads, kv_heads, eps_key, eps):
    writer.u32(arch + ".context_length", config.get("max_position_embeddings",
                                                    config.get("seq_length", 2048)))
    writer.u32(arch + ".embedding_length", config["hidden_size"])
    writer.u32(arch + ".block_count", config.get("num_hidden_layers",
                                                 config.get("n_layer")))
    writer.u32(arch + ".attention.head_count", heads)
    writer.u32(arch + ".attention.head_count_kv", kv_heads)
    writer.f32(arch + ".attention." + eps_key, eps)


def rope_theta(config):
    return config.get("rope_theta", config.get("rope_parameters", {}).get("rope_theta", 10000.0))


def rope_scaling(config):
    scaling = config.get("rope_scaling") or {}
    parameters = config.get("rope_parameters") or {}
    if parameters.get("rope_type", "default") != "default":
        scaling = parameters
    return scaling


def convert_rope_scaling(config, writer, arch, head_dim):
    """What llama.cpp's converter writes for a RoPE scaling: linear and yarn
    as rope.scaling.* keys, llama3 as a rope_freqs tensor of one divisor of
    theta's frequency per pair."""
    scaling = rope_scaling(config)
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    if kind in ("linear", "yarn"):
        writer.string(arch + ".rope.scaling.type", kind)
        writer.f32(arch + ".rope.scaling.factor", scaling["factor"])
    if kind == "yarn":
        writer.u32(arch + ".rope.scaling.original_context_length",
                   scaling.get("original_max_position_embeddings",
                               config["max_position_embeddings"]))
    if kind == "llama3":
        factor = scaling["factor"]
        original = scaling["original_max_position_embeddings"]
        low = original / scaling["low_freq_factor"]
        high = original / scaling["high_freq_factor"]
        divisors = []
        for i in range(head_dim // 2):
            wavelength = 2 * math.pi * rope_theta(config) ** (2 * i / head_dim)
            if wavelength < high:
                divisors.append(1.0)
            elif wavelength > low:
                divisors.append(factor)
            else:
                smooth = ((original / wavelength - scaling["low_freq_factor"]) /
                          (scaling["high_freq_factor"] - scaling["low_freq_factor"]))
                divisors.append(1 / ((1 - smooth) / factor + smooth))
        writer.tensor("rope_freqs.weight", np.array(divisors))


def convert_llama_layout(config, t, writer, family, split_experts):
    arch = "llama" if family in ("llama", "mixtral") else family
    heads = config["num_attention_heads"]
    kv = config.get("num_key_value_heads", heads)
    decoder_metadata(writer, arch, config, heads, kv, "layer_norm_rms_epsilon",
                     config.get("rms_norm_eps", 1e-6))
    writer.u32(arch + ".feed_forward_length", config["intermediate_size"])
    writer.f32(arch + ".rope.freq_base", rope_theta(config))
    convert_rope_scaling(config, writer, arch,
                         config.get("head_dim") or config["hidden_size"] // heads)
    if family in ("gemma", "qwen3"):
        writer.u32(arch + ".attention.key_length", config["head_dim"])
        writer.u32(arch + ".attention.value_length", config["head_dim"])
    if family == "mixtral":
        writer.u32(arch + ".expert_count", config["num_local_experts"])
        writer.u32(arch + ".expert_used_count", config["num_experts_per_tok"])

    def norm(w):
        return w + 1.0 if family == "gemma" else w

    permute = arch == "llama"
    writer.tensor("token_embd.weight", t["model.embed_tokens.weight"])
    for layer in range(config["num_hidden_layers"]):
        p, b = "model.layers.%d." % layer, "blk.%d." % layer
        q = t[p + "self_attn.q_proj.weight"]
        k = t[p + "self_attn.k_proj.weight"]
        writer.tensor(b + "attn_norm.weight", norm(t[p + "input_layernorm.weight"]))
        writer.tensor(b + "attn_q.weight", permute_for_pairs(q, heads) if permute else q)
        writer.tensor(b + "attn_k.weight", permute_for_pairs(k, kv) if permute else k)
        writer.tensor(b + "attn_v.weight", t[p + "self_attn.v_proj.weight"])
        for name in ("q", "k", "v"):
            bias = t.get(p + "self_attn.%s_proj.bias" % name)
            if bias is not None:
                writer.tensor(b + "attn_%s.bias" % name, bias)
        for name in ("q", "k"):
            qk_norm = t.get(p + "self_attn.%s_norm.weight" % name)
            if qk_norm is not None:
                writer.tensor(b + "attn_%s_norm.weight" % name, qk_norm)
        writer.tensor(b + "attn_output.weight", t[p + "self_attn.o_proj.weight"])
        writer.tensor(b + "ffn_norm.weight", norm(t[p + "post_attention_layernorm.weight"]))
        if family == "mixtral":
            moe = p + "block_sparse_moe."
            writer.tensor(b + "ffn_gate_inp.weight", t[moe + "gate.weight"])
            experts = config["num_local_experts"]
            for ours, theirs in (("gate", "w1"), ("down", "w2"), ("up", "w3")):
                matrices = [t[moe + "experts.%d.%s.weight" % (e, theirs)]
                            for e in range(experts)]
                if split_experts:
                    for e, m in enumerate(matrices):
                        writer.tensor(b + "ffn_%s.%d.weight" % (ours, e), m)
                else:
                    writer.tensor(b + "ffn_%s_exps.weight" % ours, np.stack(matrices))
        else:
            for name in ("gate", "up", "down"):
                writer.tensor(b + "ffn_%s.weight" % name, t[p + "mlp.%s_proj.weight" % name])
    writer.tensor("output_norm.weight", norm(t["model.norm.weight"]))
    if "lm_head.weight" in t and not config.get("tie_word_embeddings", False):
        writer.tensor("output.weight", t["lm_head.weight"])


def copy_tensors(writer, t, source, target, names, transform=None):
    """Writes each tensor `source` + theirs + .weight / .bias that `t` holds
    as `target` + ours + the same suffix (through transform(theirs, tensor)
    when given), for (theirs, ours) in `names`."""
    for theirs, ours in names:
        for kind in ("weight", "bias"):
            tensor = t.get(source + theirs + "." + kind)
            if tensor is not None:
                writer.tensor(target + ours + "." + kind,
                              transform(theirs, tensor) if transform else tensor)


def convert_sublayer_norms(config, t, writer, arch):
    """Gemma 2, Gemma 3 and OLMo-2: norms after each sublayer."""
    gemma = arch != "olmo2"
    heads = config["num_attention_heads"]
    kv = config.get("num_key_value_heads", heads)
    decoder_metadata(writer, arch, config, heads, kv, "layer_norm_rms_epsilon",
                     config.get("rms_norm_eps", 1e-6))
    writer.u32(arch + ".feed_forward_length", config["intermediate_size"])
    writer.f32(arch + ".rope.freq_base", rope_theta(config))
    head_dim = config.get("head_dim") or config["hidden_size"] // heads
    convert_rope_scaling(config, writer, arch, head_dim)
    if gemma:
        writer.u32(arch + ".attention.key_length", head_dim)
        writer.u32(arch + ".attention.value_length", head_dim)
        writer.u32(arch + ".attention.sliding_window", config["sliding_window"])
    if arch == "gemma2":
        for key in ("attn_logit_softcapping", "final_logit_softcapping"):
            if config.get(key):
                writer.f32(arch + "." + key, config[key])

    def norm(w):
        return w + 1.0 if gemma else w

    writer.tensor("token_embd.weight", t["model.embed_tokens.weight"])
    for layer in range(config["num_hidden_layers"]):
        p, b = "model.layers.%d." % layer, "blk.%d." % layer
        names = [("input_layernorm", "attn_norm"),
                 ("self_attn.q_proj", "attn_q"), ("self_attn.k_proj", "attn_k"),
                 ("self_attn.v_proj", "attn_v"), ("self_attn.o_proj", "attn_output"),
                 ("self_attn.q_norm", "attn_q_norm"), ("self_attn.k_norm", "attn_k_norm"),
                 ("post_attention_layernorm", "post_attention_norm"),
                 ("pre_feedforward_layernorm", "ffn_norm"),
                 ("mlp.gate_proj", "ffn_gate"), ("mlp.up_proj", "ffn_up"),
                 ("mlp.down_proj", "ffn_down"),
                 ("post_feedforward_layernorm", "post_ffw_norm")]
        copy_tensors(writer, t, p, b, names,
                     lambda theirs, w: norm(w) if "norm" in theirs else w)
    writer.tensor("output_norm.weight", norm(t["model.norm.weight"]))
    if "lm_head.weight" in t and not config.get("tie_word_embeddings", False):
        writer.tensor("output.weight", t["lm_head.weight"])


def convert_phi3(config, t, writer):
    """Phi-3 (architecture `phi3`): the fused attn_qkv and ffn_up (gate and
    up) kept as stored, LongRoPE's factors as rope_factors_short/long
    tensors with the original context and the factor on cos and sin as
    keys, the partial rotation as rope.dimension_count."""
    heads = config["num_attention_heads"]
    kv = config.get("num_key_value_heads") or heads
    head_dim = config["hidden_size"] // heads
    decoder_metadata(writer, "phi3", config, heads, kv, "layer_norm_rms_epsilon",
                     config.get("rms_norm_eps", 1e-5))
    writer.u32("phi3.feed_forward_length", config["intermediate_size"])
    writer.f32("phi3.rope.freq_base", rope_theta(config))
    writer.u32("phi3.rope.dimension_count",
               int(head_dim * config.get("partial_rotary_factor", 1.0)))
    if config.get("sliding_window"):
        writer.u32("phi3.attention.sliding_window", config["sliding_window"])
    scaling = rope_scaling(config)
    if scaling.get("rope_type", scaling.get("type")) in ("longrope", "su"):
        original = config["original_max_position_embeddings"]
        scale = config["max_position_embeddings"] / original
        writer.u32("phi3.rope.scaling.original_context_length", original)
        writer.f32("phi3.rope.scaling.attn_factor",
                   1.0 if scale <= 1 else math.sqrt(1 + math.log(scale) / math.log(original)))
        writer.tensor("rope_factors_long.weight", np.array(scaling["long_factor"]))
        writer.tensor("rope_factors_short.weight", np.array(scaling["short_factor"]))
    writer.tensor("token_embd.weight", t["model.embed_tokens.weight"])
    for layer in range(config["num_hidden_layers"]):
        copy_tensors(writer, t, "model.layers.%d." % layer, "blk.%d." % layer,
                     (("input_layernorm", "attn_norm"),
                      ("self_attn.qkv_proj", "attn_qkv"),
                      ("self_attn.o_proj", "attn_output"),
                      ("post_attention_layernorm", "ffn_norm"),
                      ("mlp.gate_up_proj", "ffn_up"), ("mlp.down_proj", "ffn_down")))
    writer.tensor("output_norm.weight", t["model.norm.weight"])
    writer.tensor("output.weight", t["lm_head.weight"])


def convert_starcoder2(config, t, writer):
    """StarCoder2: LLaMA's tensors unpermuted with LayerNorm and projection
    biases, the MLP's c_fc / c_proj as ffn_up / ffn_down."""
    heads = config["num_attention_heads"]
    kv = config.get("num_key_value_heads") or heads
    decoder_metadata(writer, "starcoder2", config, heads, kv, "layer_norm_epsilon",
                     config.get("norm_epsilon", 1e-5))
    writer.u32("starcoder2.feed_forward_length", config["intermediate_size"])
    writer.f32("starcoder2.rope.freq_base", rope_theta(config))
    if config.get("sliding_window"):
        writer.u32("starcoder2.attention.sliding_window", config["sliding_window"])
    writer.tensor("token_embd.weight", t["model.embed_tokens.weight"])
    names = (("input_layernorm", "attn_norm"), ("self_attn.q_proj", "attn_q"),
             ("self_attn.k_proj", "attn_k"), ("self_attn.v_proj", "attn_v"),
             ("self_attn.o_proj", "attn_output"), ("post_attention_layernorm", "ffn_norm"),
             ("mlp.c_fc", "ffn_up"), ("mlp.c_proj", "ffn_down"))
    for layer in range(config["num_hidden_layers"]):
        copy_tensors(writer, t, "model.layers.%d." % layer, "blk.%d." % layer, names)
    copy_tensors(writer, t, "model.", "", (("norm", "output_norm"),))
    if "lm_head.weight" in t and not config.get("tie_word_embeddings", True):
        writer.tensor("output.weight", t["lm_head.weight"])


def convert_falcon(config, t, writer):
    """Falcon: query_key_value reordered to all queries, then the keys, then
    the values (from each layout's grouping), the new architecture's second
    norm as attn_norm_2, the tied head written as output.weight only when
    untied."""
    d, heads = config["hidden_size"], config["num_attention_heads"]
    hd = d // heads
    new = config.get("new_decoder_architecture", False)
    kv = (config.get("num_kv_heads") or heads) if new else (
        1 if config.get("multi_query", True) else heads)
    decoder_metadata(writer, "falcon", config, heads, kv, "layer_norm_epsilon",
                     config.get("layer_norm_epsilon", 1e-5))
    writer.u32("falcon.feed_forward_length", config.get("ffn_hidden_size") or 4 * d)
    writer.f32("falcon.rope.freq_base", rope_theta(config))

    def reorder(w):
        if new:
            g = w.reshape(kv, heads // kv + 2, hd, *w.shape[1:])
            q, k, v = g[:, :-2], g[:, -2], g[:, -1]
        elif kv == 1:
            return w
        else:
            g = w.reshape(heads, 3, hd, *w.shape[1:])
            q, k, v = g[:, 0], g[:, 1], g[:, 2]
        return np.concatenate([x.reshape(-1, *w.shape[1:]) for x in (q, k, v)])

    p0 = "transformer."
    writer.tensor("token_embd.weight", t[p0 + "word_embeddings.weight"])
    for layer in range(config["num_hidden_layers"]):
        p, b = p0 + "h.%d." % layer, "blk.%d." % layer
        norms = (("ln_attn", "attn_norm"), ("ln_mlp", "attn_norm_2")) if new and \
            p + "ln_attn.weight" in t else (("input_layernorm", "attn_norm"),
                                              ("post_attention_layernorm", "ffn_norm"))
        copy_tensors(writer, t, p, b, norms + (
            ("self_attention.query_key_value", "attn_qkv"),
            ("self_attention.dense", "attn_output"),
            ("mlp.dense_h_to_4h", "ffn_up"), ("mlp.dense_4h_to_h", "ffn_down")),
            lambda theirs, w: reorder(np.asarray(w)) if "query_key_value" in theirs else w)
    copy_tensors(writer, t, p0, "", (("ln_f", "output_norm"),))
    if "lm_head.weight" in t and not config.get("tie_word_embeddings", True):
        writer.tensor("output.weight", t["lm_head.weight"])


def convert_bloom(config, t, writer):
    t = {k[len("transformer."):] if k.startswith("transformer.") else k: v
         for k, v in t.items()}
    d, heads = config["hidden_size"], config["n_head"]
    decoder_metadata(writer, "bloom", config, heads, heads, "layer_norm_epsilon",
                     config.get("layer_norm_epsilon", 1e-5))
    writer.u32("bloom.feed_forward_length", 4 * d)
    writer.tensor("token_embd.weight", t["word_embeddings.weight"])
    writer.tensor("token_embd_norm.weight", t["word_embeddings_layernorm.weight"])
    writer.tensor("token_embd_norm.bias", t["word_embeddings_layernorm.bias"])
    names = [("input_layernorm", "attn_norm"), ("self_attention.dense", "attn_output"),
             ("post_attention_layernorm", "ffn_norm"), ("mlp.dense_h_to_4h", "ffn_up"),
             ("mlp.dense_4h_to_h", "ffn_down")]
    for layer in range(config["n_layer"]):
        p, b = "h.%d." % layer, "blk.%d." % layer
        qkv = t[p + "self_attention.query_key_value.weight"].reshape(heads, 3, d // heads, d)
        qkv_bias = t[p + "self_attention.query_key_value.bias"].reshape(heads, 3, d // heads)
        writer.tensor(b + "attn_qkv.weight",
                      np.concatenate([qkv[:, i].reshape(d, d) for i in range(3)]))
        writer.tensor(b + "attn_qkv.bias",
                      np.concatenate([qkv_bias[:, i].reshape(d) for i in range(3)]))
        for theirs, ours in names:
            writer.tensor(b + ours + ".weight", t[p + theirs + ".weight"])
            writer.tensor(b + ours + ".bias", t[p + theirs + ".bias"])
    writer.tensor("output_norm.weight", t["ln_f.weight"])
    writer.tensor("output_norm.bias", t["ln_f.bias"])
    writer.tensor("output.weight", t["word_embeddings.weight"])


def convert_gpt_neox(config, t, writer):
    """llama.cpp's GPTNeoXModel: the per-head query_key_value reordered as
    BLOOM's is, rotary_pct as rope.dimension_count, use_parallel_residual
    as a flag, and no RoPE base (Pythia's 10000)."""
    t = {k[len("gpt_neox."):] if k.startswith("gpt_neox.") else k: v for k, v in t.items()}
    d, heads = config["hidden_size"], config["num_attention_heads"]
    hd = d // heads
    decoder_metadata(writer, "gptneox", config, heads, heads, "layer_norm_epsilon",
                     config.get("layer_norm_eps", 1e-5))
    writer.u32("gptneox.feed_forward_length", config["intermediate_size"])
    writer.u32("gptneox.rope.dimension_count", int(config.get("rotary_pct", 0.25) * hd))
    writer.flag("gptneox.use_parallel_residual", config.get("use_parallel_residual", True))
    writer.tensor("token_embd.weight", t["embed_in.weight"])
    names = [("input_layernorm", "attn_norm"), ("attention.dense", "attn_output"),
             ("post_attention_layernorm", "ffn_norm"), ("mlp.dense_h_to_4h", "ffn_up"),
             ("mlp.dense_4h_to_h", "ffn_down")]
    for layer in range(config["num_hidden_layers"]):
        p, b = "layers.%d." % layer, "blk.%d." % layer
        qkv = t[p + "attention.query_key_value.weight"].reshape(heads, 3, hd, d)
        qkv_bias = t[p + "attention.query_key_value.bias"].reshape(heads, 3, hd)
        writer.tensor(b + "attn_qkv.weight",
                      np.concatenate([qkv[:, i].reshape(d, d) for i in range(3)]))
        writer.tensor(b + "attn_qkv.bias",
                      np.concatenate([qkv_bias[:, i].reshape(d) for i in range(3)]))
        for theirs, ours in names:
            writer.tensor(b + ours + ".weight", t[p + theirs + ".weight"])
            writer.tensor(b + ours + ".bias", t[p + theirs + ".bias"])
    writer.tensor("output_norm.weight", t["final_layer_norm.weight"])
    writer.tensor("output_norm.bias", t["final_layer_norm.bias"])
    writer.tensor("output.weight", t["embed_out.weight"])


def convert_phi(config, t, writer):
    """llama.cpp's Phi2Model over PhiForCausalLM names: separate q/k/v,
    one norm per layer (no ffn_norm), the head and its bias as output."""
    d, heads = config["hidden_size"], config["num_attention_heads"]
    hd = d // heads
    decoder_metadata(writer, "phi2", config, heads, config.get("num_key_value_heads") or heads,
                     "layer_norm_epsilon", config.get("layer_norm_eps", 1e-5))
    writer.u32("phi2.feed_forward_length", config["intermediate_size"])
    writer.u32("phi2.rope.dimension_count", int(config.get("partial_rotary_factor", 0.5) * hd))
    writer.f32("phi2.rope.freq_base", rope_theta(config))
    writer.tensor("token_embd.weight", t["model.embed_tokens.weight"])
    names = [("input_layernorm", "attn_norm"), ("self_attn.q_proj", "attn_q"),
             ("self_attn.k_proj", "attn_k"), ("self_attn.v_proj", "attn_v"),
             ("self_attn.dense", "attn_output"), ("mlp.fc1", "ffn_up"), ("mlp.fc2", "ffn_down")]
    for layer in range(config["num_hidden_layers"]):
        p, b = "model.layers.%d." % layer, "blk.%d." % layer
        for theirs, ours in names:
            writer.tensor(b + ours + ".weight", t[p + theirs + ".weight"])
            writer.tensor(b + ours + ".bias", t[p + theirs + ".bias"])
    writer.tensor("output_norm.weight", t["model.final_layernorm.weight"])
    writer.tensor("output_norm.bias", t["model.final_layernorm.bias"])
    writer.tensor("output.weight", t["lm_head.weight"])
    writer.tensor("output.bias", t["lm_head.bias"])


def convert_stablelm(config, t, writer):
    """llama.cpp's StableLMModel: LLaMA's tensors unpermuted (it rotates
    halves) plus the LayerNorm biases; partial_rotary_factor as
    rope.dimension_count; a parallel layer has no ffn_norm."""
    d, heads = config["hidden_size"], config["num_attention_heads"]
    hd = d // heads
    decoder_metadata(writer, "stablelm", config, heads,
                     config.get("num_key_value_heads") or heads, "layer_norm_epsilon",
                     config.get("layer_norm_eps", 1e-5))
    writer.u32("stablelm.feed_forward_length", config["intermediate_size"])
    writer.u32("stablelm.rope.dimension_count",
               int(config.get("partial_rotary_factor", 0.25) * hd))
    writer.f32("stablelm.rope.freq_base", rope_theta(config))
    writer.flag("stablelm.use_parallel_residual", config.get("use_parallel_residual", False))
    writer.tensor("token_embd.weight", t["model.embed_tokens.weight"])
    names = [("input_layernorm", "attn_norm", True), ("self_attn.q_proj", "attn_q", True),
             ("self_attn.k_proj", "attn_k", True), ("self_attn.v_proj", "attn_v", True),
             ("self_attn.o_proj", "attn_output", False),
             ("post_attention_layernorm", "ffn_norm", True),
             ("mlp.gate_proj", "ffn_gate", False), ("mlp.up_proj", "ffn_up", False),
             ("mlp.down_proj", "ffn_down", False)]
    for layer in range(config["num_hidden_layers"]):
        p, b = "model.layers.%d." % layer, "blk.%d." % layer
        for theirs, ours, biased in names:
            if p + theirs + ".weight" not in t:
                continue
            writer.tensor(b + ours + ".weight", t[p + theirs + ".weight"])
            if biased and p + theirs + ".bias" in t:
                writer.tensor(b + ours + ".bias", t[p + theirs + ".bias"])
        for which in ("q", "k"):
            part = p + "self_attn.%s_layernorm.norms.%%d.weight" % which
            norms = []
            while part % len(norms) in t:
                norms.append(t[part % len(norms)])
            if norms:
                writer.tensor(b + "attn_%s_norm.weight" % which, np.stack(norms))
    writer.tensor("output_norm.weight", t["model.norm.weight"])
    writer.tensor("output_norm.bias", t["model.norm.bias"])
    writer.tensor("output.weight", t["lm_head.weight"])


def convert_bert(config, t, writer, pooling):
    t = {k[len("bert."):] if k.startswith("bert.") else k: v for k, v in t.items()}
    decoder_metadata(writer, "bert", config, config["num_attention_heads"],
                     config["num_attention_heads"], "layer_norm_epsilon",
                     config.get("layer_norm_eps", 1e-12))
    writer.u32("bert.feed_forward_length", config["intermediate_size"])
    writer.flag("bert.attention.causal", False)
    writer.u32("tokenizer.ggml.token_type_count", config.get("type_vocab_size", 1))
    if pooling:
        writer.u32("bert.pooling_type", {"none": 0, "mean": 1, "cls": 2}[pooling])
    for theirs, ours in (("word_embeddings", "token_embd"), ("token_type_embeddings", "token_types"),
                         ("position_embeddings", "position_embd")):
        writer.tensor(ours + ".weight", t["embeddings.%s.weight" % theirs])
    writer.tensor("token_embd_norm.weight", t["embeddings.LayerNorm.weight"])
    writer.tensor("token_embd_norm.bias", t["embeddings.LayerNorm.bias"])
    names = [("attention.self.query", "attn_q"), ("attention.self.key", "attn_k"),
             ("attention.self.value", "attn_v"), ("attention.output.dense", "attn_output"),
             ("attention.output.LayerNorm", "attn_output_norm"),
             ("intermediate.dense", "ffn_up"), ("output.dense", "ffn_down"),
             ("output.LayerNorm", "layer_output_norm")]
    for layer in range(config["num_hidden_layers"]):
        p, b = "encoder.layer.%d." % layer, "blk.%d." % layer
        for theirs, ours in names:
            writer.tensor(b + ours + ".weight", t[p + theirs + ".weight"])
            writer.tensor(b + ours + ".bias", t[p + theirs + ".bias"])


def convert_t5(config, t, writer):
    layers = config["num_layers"]
    decoder_layers = config.get("num_decoder_layers") or layers
    writer.u32("t5.context_length", config.get("n_positions", 512))
    writer.u32("t5.embedding_length", config["d_model"])
    writer.u32("t5.feed_forward_length", config["d_ff"])
    writer.u32("t5.block_count", layers)
    writer.u32("t5.decoder_block_count", decoder_layers)
    writer.u32("t5.attention.head_count", config["num_heads"])
    writer.u32("t5.attention.key_length", config["d_kv"])
    writer.u32("t5.attention.value_length", config["d_kv"])
    writer.f32("t5.attention.layer_norm_epsilon", config["layer_norm_epsilon"])
    writer.f32("t5.attention.layer_norm_rms_epsilon", config["layer_norm_epsilon"])
    writer.u32("t5.attention.relative_buckets_count",
               config["relative_attention_num_buckets"])
    writer.u32("t5.decoder_start_token_id", config.get("decoder_start_token_id", 0))
    writer.tensor("token_embd.weight", t["shared.weight"])
    if "lm_head.weight" in t and not config.get("tie_word_embeddings", True):
        writer.tensor("output.weight", t["lm_head.weight"])
    ffn = {"wi": "ffn_up", "wi_0": "ffn_gate", "wi_1": "ffn_up", "wo": "ffn_down"}
    for stack, ours, count in (("encoder", "enc", layers), ("decoder", "dec", decoder_layers)):
        blocks = [("SelfAttention", "attn")]
        if stack == "decoder":
            blocks.append(("EncDecAttention", "cross_attn"))
        for layer in range(count):
            p, b = "%s.block.%d.layer." % (stack, layer), "%s.blk.%d." % (ours, layer)
            for index, (theirs, name) in enumerate(blocks):
                for m in "qkvo":
                    writer.tensor(b + "%s_%s.weight" % (name, m),
                                  t[p + "%d.%s.%s.weight" % (index, theirs, m)])
                writer.tensor(b + name + "_norm.weight", t[p + "%d.layer_norm.weight" % index])
                bias = p + "%d.%s.relative_attention_bias.weight" % (index, theirs)
                if bias in t:
                    writer.tensor(b + "attn_rel_b.weight", t[bias])
            index = len(blocks)
            for theirs, name in ffn.items():
                key = p + "%d.DenseReluDense.%s.weight" % (index, theirs)
                if key in t:
                    writer.tensor(b + name + ".weight", t[key])
            writer.tensor(b + "ffn_norm.weight", t[p + "%d.layer_norm.weight" % index])
        writer.tensor(ours + ".output_norm.weight", t[stack + ".final_layer_norm.weight"])


def embed_wordpiece_tokenizer(writer, path, vocab_size):
    """A WordPiece tokenizer.json as llama.cpp's `bert` tokenizer model."""
    with open(path, encoding="utf-8") as fh:
        tok = json.load(fh)
    model = tok["model"]
    added = {a["id"]: a for a in tok.get("added_tokens", [])}
    size = max([vocab_size] + [i + 1 for i in list(model["vocab"].values()) + list(added)])
    tokens = ["[PAD%d]" % i for i in range(size)]
    types = [TOKEN_UNUSED] * size
    for piece, index in model["vocab"].items():
        tokens[index], types[index] = piece, TOKEN_NORMAL
    for index, a in added.items():
        tokens[index] = a["content"]
        types[index] = TOKEN_CONTROL if a.get("special") else TOKEN_USER_DEFINED

    def phantom(token, token_type):
        if token_type == TOKEN_CONTROL:
            return token
        return token[2:] if token.startswith("##") else "\u2581" + token
    writer.string("tokenizer.ggml.model", "bert")
    writer.string("tokenizer.ggml.pre", "default")
    writer.array("tokenizer.ggml.tokens", GGUF_STRING, list(map(phantom, tokens, types)))
    writer.array("tokenizer.ggml.token_type", GGUF_INT32, types)
    ids = {a["content"]: i for i, a in added.items()}
    for key, text in (("unknown", "[UNK]"), ("seperator", "[SEP]"), ("padding", "[PAD]"),
                      ("cls", "[CLS]"), ("mask", "[MASK]")):
        writer.u32("tokenizer.ggml.%s_token_id" % key, ids[text])


def embed_unigram_tokenizer(writer, path, vocab_size):
    """A SentencePiece Unigram tokenizer.json (T5's) as llama.cpp's `t5`
    tokenizer model: pieces, scores and token types as the converter takes
    them from spiece.model (the unknown piece UNKNOWN, special added tokens
    CONTROL, other added tokens USER_DEFINED, ids the model has beyond the
    tokenizer [PAD<id>] UNUSED), the Precompiled normalizer's charsmap as
    bytes, add_space_prefix from the Metaspace pre-tokenizer,
    remove_extra_whitespaces where it splits at whitespace first (as the
    Hugging Face converter writes nmt_nfkc's switch), EOS added, BOS not."""
    import base64
    with open(path, encoding="utf-8") as fh:
        tok = json.load(fh)
    model = tok["model"]
    assert model["type"] == "Unigram", "only Unigram tokenizers are embedded as t5"
    added = {a["id"]: a for a in tok.get("added_tokens", [])}
    size = max([vocab_size, len(model["vocab"])] + [i + 1 for i in added])
    tokens = ["[PAD%d]" % i for i in range(size)]
    scores = [0.0] * size
    types = [TOKEN_UNUSED] * size
    for index, (piece, score) in enumerate(model["vocab"]):
        tokens[index], scores[index], types[index] = piece, score, TOKEN_NORMAL
    types[model["unk_id"]] = TOKEN_UNKNOWN
    for index, a in added.items():
        tokens[index] = a["content"]
        types[index] = TOKEN_CONTROL if a.get("special") else TOKEN_USER_DEFINED
    pre = tok.get("pre_tokenizer") or {}
    steps = pre.get("pretokenizers", [pre])
    metaspace = [p for p in steps if p.get("type") == "Metaspace"]
    prefix = bool(metaspace) and (metaspace[0].get("prepend_scheme", "always") != "never"
                                  and metaspace[0].get("add_prefix_space", True))
    merge = any(p.get("type") == "WhitespaceSplit" for p in steps)
    writer.string("tokenizer.ggml.model", "t5")
    writer.string("tokenizer.ggml.pre", "default")
    writer.array("tokenizer.ggml.tokens", GGUF_STRING, tokens)
    writer.array("tokenizer.ggml.scores", GGUF_FLOAT32, scores)
    writer.array("tokenizer.ggml.token_type", GGUF_INT32, types)
    writer.flag("tokenizer.ggml.add_space_prefix", prefix)
    writer.flag("tokenizer.ggml.remove_extra_whitespaces", merge)
    normalizer = tok.get("normalizer") or {}
    for n in normalizer.get("normalizers", [normalizer]):
        if n.get("type") == "Precompiled":
            writer.array("tokenizer.ggml.precompiled_charsmap", GGUF_UINT8,
                         base64.b64decode(n["precompiled_charsmap"]))
    ids = {a["content"]: i for i, a in added.items()}
    for key, text in (("eos", "</s>"), ("unknown", "<unk>"), ("padding", "<pad>")):
        if text in ids:
            writer.u32("tokenizer.ggml.%s_token_id" % key, ids[text])
    writer.flag("tokenizer.ggml.add_bos_token", False)
    writer.flag("tokenizer.ggml.add_eos_token", True)


def embed_bpe_tokenizer(writer, path, pre, bos=None, eos=None, add_bos=False,
                        add_eos=False):
    """A byte-level BPE tokenizer.json as llama.cpp's `gpt2` tokenizer."""
    with open(path, encoding="utf-8") as fh:
        tok = json.load(fh)
    model = tok["model"]
    assert model["type"] == "BPE", "only BPE tokenizers are embedded"
    added = {a["id"]: a for a in tok.get("added_tokens", [])}
    size = max(list(model["vocab"].values()) + list(added)) + 1
    tokens = ["[PAD%d]" % i for i in range(size)]
    types = [TOKEN_NORMAL] * size
    for piece, index in model["vocab"].items():
        tokens[index] = piece
    for index, a in added.items():
        tokens[index] = a["content"]
        types[index] = TOKEN_CONTROL if a.get("special") else 4  # USER_DEFINED
    merges = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
    writer.string("tokenizer.ggml.model", "gpt2")
    writer.string("tokenizer.ggml.pre", pre)
    writer.array("tokenizer.ggml.tokens", GGUF_STRING, tokens)
    writer.array("tokenizer.ggml.token_type", GGUF_INT32, types)
    writer.array("tokenizer.ggml.merges", GGUF_STRING, merges)
    ids = {a["content"]: i for i, a in added.items()}
    if bos:
        writer.u32("tokenizer.ggml.bos_token_id", ids[bos])
    if eos:
        writer.u32("tokenizer.ggml.eos_token_id", ids[eos])
    writer.flag("tokenizer.ggml.add_bos_token", add_bos)
    writer.flag("tokenizer.ggml.add_eos_token", add_eos)


def model(args):
    with open(os.path.join(args.hf_dir, "config.json")) as fh:
        config = json.load(fh)
    tensors = read_safetensors(os.path.join(args.hf_dir, "model.safetensors"))
    family = config["model_type"]
    # model_type: (GGUF architecture, converter of config, tensors, writer).
    converters = {"bloom": ("bloom", convert_bloom),
                  "gpt_neox": ("gptneox", convert_gpt_neox),
                  "phi": ("phi2", convert_phi), "stablelm": ("stablelm", convert_stablelm),
                  "t5": ("t5", convert_t5), "falcon": ("falcon", convert_falcon),
                  "starcoder2": ("starcoder2", convert_starcoder2),
                  "phi3": ("phi3", convert_phi3)}
    if family in converters:
        arch, convert = converters[family]
        writer = Writer(arch)
        convert(config, tensors, writer)
    elif family == "bert":
        writer = Writer("bert")
        convert_bert(config, tensors, writer, args.pooling)
    elif family in ("gemma2", "gemma3_text", "olmo2"):
        arch = {"gemma3_text": "gemma3"}.get(family, family)
        writer = Writer(arch)
        convert_sublayer_norms(config, tensors, writer, arch)
    elif family in ("llama", "mixtral", "qwen2", "qwen3", "gemma"):
        writer = Writer("llama" if family in ("llama", "mixtral") else family)
        convert_llama_layout(config, tensors, writer, family, args.split_experts)
    else:
        print("hf_to_gguf.py: model_type %s is not converted" % family, file=sys.stderr)
        return 1
    if args.tokenizer_json and family == "bert":
        embed_wordpiece_tokenizer(writer, args.tokenizer_json, config["vocab_size"])
    elif args.tokenizer_json and family == "t5":
        embed_unigram_tokenizer(writer, args.tokenizer_json, config["vocab_size"])
    elif args.tokenizer_json:
        embed_bpe_tokenizer(writer, args.tokenizer_json, args.pre)
    for setting in args.set:
        writer.override(setting)
    for key in args.unset:
        writer.meta = [(k, v) for k, v in writer.meta if k != key]
    writer.tensors = [(k, v) for k, v in writer.tensors if k not in args.drop_tensor]
    writer.write(args.out)
    return 0


def vocab(args):
    with open(args.tokenizer_json, encoding="utf-8") as fh:
        kind = json.load(fh)["model"]["type"]
    writer = Writer({"WordPiece": "bert", "Unigram": "t5"}.get(kind, "llama"))
    if kind == "WordPiece":
        embed_wordpiece_tokenizer(writer, args.tokenizer_json, 0)
    elif kind == "Unigram":
        embed_unigram_tokenizer(writer, args.tokenizer_json, 0)
    else:
        embed_bpe_tokenizer(writer, args.tokenizer_json, args.pre, args.bos, args.eos,
                            args.add_bos, args.add_eos)
    for setting in args.set:
        writer.override(setting)
    for key in args.unset:
        writer.meta = [(k, v) for k, v in writer.meta if k != key]
    writer.write(args.out)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("model")
    m.add_argument("hf_dir")
    m.add_argument("out")
    m.add_argument("--split-experts", action="store_true")
    m.add_argument("--tokenizer-json")
    m.add_argument("--pre", default="gpt-2")
    m.add_argument("--drop-tensor", action="append", default=[],
                   help="leave this tensor out (error tests)")
    m.add_argument("--pooling", choices=["none", "mean", "cls"],
                   help="bert: the bert.pooling_type to record")
    v = sub.add_parser("vocab")
    v.add_argument("tokenizer_json")
    v.add_argument("out")
    v.add_argument("--pre", default="gpt-2", help="BPE: tokenizer.ggml.pre")
    v.add_argument("--bos", help="the BOS token's text")
    v.add_argument("--eos", help="the EOS token's text")
    v.add_argument("--add-bos", action="store_true")
    v.add_argument("--add-eos", action="store_true")
    for p in (m, v):
        p.add_argument("--set", action="append", default=[],
                       help="KEY=TYPE:VALUE: replace or add a metadata key")
        p.add_argument("--unset", action="append", default=[],
                       help="KEY: leave a metadata key out")
    args = parser.parse_args()
    return model(args) if args.command == "model" else vocab(args)


if __name__ == "__main__":
    sys.exit(main())
