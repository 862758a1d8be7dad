"""What the families of torch_reference.py share: the file writers and
readers, seeded random weights, the float64 building blocks, and what
tfmc's number formats do to weights and projection inputs (so that a
family's reference can compute what a binary compiled with --weights,
--int8-inputs or --bf16-inputs computes)."""
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


def bert_layer_tensors(init, p, d, f):
    """One BertLayer's seeded tensors under prefix `p` (BERT's and RoBERTa's
    names): Q/K/V, the attention output and its LayerNorm, the MLP and its
    LayerNorm, with biases."""
    tensors = []
    for name in ("query", "key", "value"):
        tensors += [(p + "attention.self.%s.weight" % name, init.linear(d, d)),
                    (p + "attention.self.%s.bias" % name, init.normal(d, scale=0.3))]
    return tensors + [
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


# ---------------------------------------------------------------------------
# Building blocks of the reference models (float64)
# ---------------------------------------------------------------------------


def rms_norm(x, weight, eps):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * weight


def layer_norm(x, weight, bias, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * weight + bias


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


def rope_frequencies(theta, hd, scaling, length):
    """Inverse frequency per pair and the factor on cos/sin of a RoPE scaled
    as config.json says (the formulas of the YaRN, LongRoPE and Llama 3.1
    papers, as transformers states them), in float64."""
    pairs = hd // 2
    i = torch.arange(pairs, dtype=torch.float64)
    freq = theta ** (-2.0 * i / hd)
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    if kind in ("default", "dynamic"):
        return freq, 1.0
    if kind == "linear":
        return freq / scaling["factor"], 1.0
    if kind == "llama3":
        factor, original = scaling["factor"], scaling["original_max_position_embeddings"]
        low, high = scaling["low_freq_factor"], scaling["high_freq_factor"]
        out = freq.clone()
        for j in range(pairs):
            wavelength = 2 * math.pi / freq[j].item()
            if wavelength > original / low:
                out[j] = freq[j] / factor
            elif wavelength >= original / high:
                smooth = (original / wavelength - low) / (high - low)
                out[j] = (1 - smooth) * freq[j] / factor + smooth * freq[j]
        return out, 1.0
    if kind == "yarn":
        factor = scaling["factor"]
        original = scaling.get("original_max_position_embeddings",
                               scaling["max_position_embeddings"])
        fast, slow = scaling.get("beta_fast", 32.0), scaling.get("beta_slow", 1.0)
        def pair_turning(rotations):
            return hd * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(theta))
        lo, hi = pair_turning(fast), pair_turning(slow)
        if scaling.get("truncate", True):
            lo, hi = math.floor(lo), math.ceil(hi)
        lo, hi = max(lo, 0), min(hi, hd - 1)
        if lo == hi:
            hi += 0.001
        ramp = torch.clamp((i - lo) / (hi - lo), 0, 1)
        keep = 1 - ramp
        out = freq / factor * (1 - keep) + freq * keep
        def magnitude(s, m=1.0):
            return 1.0 if s <= 1 else 0.1 * m * math.log(s) + 1.0
        if "attention_factor" in scaling:
            attention = scaling["attention_factor"]
        elif scaling.get("mscale") and scaling.get("mscale_all_dim"):
            attention = magnitude(factor, scaling["mscale"]) / magnitude(factor, scaling["mscale_all_dim"])
        else:
            attention = magnitude(factor)
        return out, attention
    if kind in ("longrope", "su"):
        if "top_original" in scaling:
            original = scaling["top_original"]
            factor = scaling["max_position_embeddings"] / original
        else:
            original = scaling.get("original_max_position_embeddings",
                                   scaling["max_position_embeddings"])
            factor = scaling.get("factor", 1.0)
        # transformers' choice per sequence: the long factors once it is
        # longer than the original context.
        factors = scaling["long_factor"] if length > original else scaling["short_factor"]
        out = freq / torch.tensor(factors, dtype=torch.float64)
        attention = scaling.get("attention_factor",
                                1.0 if factor <= 1 else
                                math.sqrt(1 + math.log(factor) / math.log(original)))
        return out, attention
    raise ValueError("unknown RoPE scaling %r" % kind)


def rope(x, theta, interleaved, scaling=None):
    """x: [T, heads, hd]; rotates each head at positions 0..T-1."""
    T, _, hd = x.shape
    freq, attention = rope_frequencies(theta, hd, scaling or {}, T)
    angle = torch.arange(T, dtype=torch.float64)[:, None] * freq[None, :]
    cos = torch.cos(angle)[:, None, :] * attention
    sin = torch.sin(angle)[:, None, :] * attention
    if interleaved:
        a, b = x[..., 0::2], x[..., 1::2]
        out = torch.empty_like(x)
        out[..., 0::2] = a * cos - b * sin
        out[..., 1::2] = a * sin + b * cos
        return out
    a, b = x[..., :hd // 2], x[..., hd // 2:]
    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1)


def alibi_slopes(heads):
    """The ALiBi paper's slopes: 2^(-8i/n) for the largest power of two n <=
    heads, then every other slope of 2n for the remaining heads."""
    def geometric(n):
        return [2.0 ** (-8.0 * i / n) for i in range(1, n + 1)]
    n = 2 ** int(math.floor(math.log2(heads)))
    return geometric(n) + geometric(2 * n)[0::2][:heads - n]


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


# ---------------------------------------------------------------------------
# What tfmc's weight types and projection inputs compute
# ---------------------------------------------------------------------------


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
    as Q4_0; not one a GGUF file keeps F32, marked `f32_inputs` by
    round_like_gguf), each row's blocks of 32 quantized to int8 as llama.cpp's
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
    if (activations != "int8" or weight.shape[-1] % 32 != 0
            or getattr(weight, "f32_inputs", False)):
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


# GGUF file types whose mix of k-quants (and Q8_0) compare's --projections
# reproduces: what gguf_quantize.py --type TYPE stores each matrix as.
GGUF_FILE_TYPES = ("q4_k_m", "q5_k_m", "q6_k")


def round_like_gguf(w, gguf_name, file_type):
    """`w` (float64 holding float32 values; [rows, columns]) as
    gguf_quantize.py --type `file_type` stores the GGUF tensor `gguf_name`
    (`attn_v`, `ffn_down` and the others take different k-quants in the
    mixes; rows that are not whole super-blocks take Q8_0 or stay F32),
    dequantized back by its definition of the formats. Each block lies
    within one row, so the rows llama.cpp's layout permutes quantize to the
    same values."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import gguf_quantize
    kind = gguf_quantize.tensor_type(gguf_name, w.shape[-1], file_type)
    if kind is None:
        # Kept F32 in the file, it keeps f32 panels and f32 inputs in tfmc
        # whatever its width (quantize_inputs).
        w = w.clone()
        w.f32_inputs = True
        return w
    block = gguf_quantize.TYPES[kind][2]
    values = w.to(torch.float32).numpy().reshape(-1, block)
    data = gguf_quantize.QUANTIZERS[kind](values)
    rounded = np.frombuffer(gguf_quantize.dequantize(data, kind), dtype="<f4")
    return torch.from_numpy(rounded.reshape(w.shape).copy()).to(torch.float64)


def round_to(w, dtype):
    """`w` (float64 holding float32 values) rounded to float16 / bfloat16 by
    PyTorch's own casts (nearest even), back in float64; or, for q8_0 /
    q4_0, quantized row by row and dequantized by the independent Python
    implementation of the GGUF block formats (gguf_quantize.py). A matrix
    whose rows are not whole blocks of 32 stays as it is, as tfmc keeps it
    f32 (docs/weight-types.md)."""
    if dtype in ("q8_0", "q4_0"):
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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


# ---------------------------------------------------------------------------
# tfmc's preset weights (models/*/Presets.cpp)
# ---------------------------------------------------------------------------


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
