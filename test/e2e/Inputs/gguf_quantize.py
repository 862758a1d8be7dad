#!/usr/bin/env python3
"""Re-quantizes the matrices of an f32 GGUF file to Q8_0, Q4_0 or k-quants.

  gguf_quantize.py IN.gguf OUT.gguf --type TYPE [--dequantized DEQ.gguf]
                   [--keep NAME]... [--untied UNTIED.gguf]

TYPE: q8_0, q4_0, q4_k, q5_k, q6_k, q4_k_m or q5_k_m.

Every F32 tensor of rank 2, or 3 (a Mixtral's merged experts), whose rows
(innermost dimension) are whole blocks is quantized; the others (norms, rows of 172, those named by --keep) are
copied as they are.
With --dequantized, DEQ.gguf is the same model with the quantized tensors
replaced by their dequantized F32 values, so a reader of OUT.gguf that
dequantizes as the format says computes exactly what DEQ.gguf holds.
With --untied, UNTIED.gguf is OUT.gguf plus `output.weight`, a copy of the
(quantized) `token_embd.weight` of a tied model: the same model with the
classifier stored apart from the embedding table.

Written from the block formats' definition in ggml (quantize_row_q8_0_ref,
quantize_row_q4_0_ref, dequantize_row_q8_0 / _q4_0), shares no code with
tfmc:
  Q8_0  per block of 32: d = max|x| / 127 (f32), q = round(x / d) rounded half
        away from zero (roundf of x * (1 / d)); stored as d in f16, then 32
        int8 q. Value: q * d.
  Q4_0  per block of 32: m = the element of largest magnitude (the first one
        on ties), d = m / -8, q = min(15, trunc(x * (1 / d) + 8.5)) in f32;
        stored as d in f16, then 16 bytes, byte j holding q[j] in its low
        nibble and q[j + 16] in its high nibble. Value: (q - 8) * d.

The k-quants (super-blocks of 256) are written by a simple min/max quantizer
(not ggml's iterative search: any valid encoding serves to test a reader)
and dequantized from the format definition (ggml's dequantize_row_q4_K /
_q5_K / _q6_K), in f32 and in ggml's order of operations:
  Q4_K  (144 bytes) f16 d, f16 dmin, 12 bytes holding eight 6-bit scales sc
        and mins m (sub-blocks 0-3 in the low 6 bits of bytes 0-3 / 4-7;
        4-7 in the nibbles of bytes 8-11 plus the top 2 bits of bytes 0-3 /
        4-7), then 128 bytes: each 64 values share 32 bytes, low nibbles
        first. Value: (d * sc) * q - (dmin * m).
  Q5_K  (176 bytes) as Q4_K, with 32 bytes of fifth bits before the
        nibbles: value l of 64-value chunk c takes bit 2c (first 32) or
        2c + 1 (second 32) of byte l.
  Q6_K  (210 bytes) 128 bytes of low nibbles, 64 bytes of 2-bit highs, 16
        int8 scales (sub-blocks of 16), f16 d. In each half of 128 values,
        value l + 32 i has the nibble (i // 2) of low byte l + 32 (i % 2),
        bits 2i, 2i+1 of high byte l, and scale (l // 16) + 2 i. Value:
        (d * sc) * (q - 32).
--type q4_k_m / q5_k_m mixes them as llama.cpp's Q4_K_M / Q5_K_M do in
spirit: attn_v and ffn_down in Q6_K, the other matrices in Q4_K / Q5_K, and
matrices whose rows are not whole super-blocks in Q8_0.
"""
import argparse
import struct
import sys

import numpy as np

GGML_F32, GGML_Q4_0, GGML_Q8_0 = 0, 2, 8
GGML_Q4_K, GGML_Q5_K, GGML_Q6_K = 12, 13, 14
# name: (ggml type, bytes per block, values per block)
TYPES = {"q8_0": (GGML_Q8_0, 34, 32), "q4_0": (GGML_Q4_0, 18, 32),
         "q4_k": (GGML_Q4_K, 144, 256), "q5_k": (GGML_Q5_K, 176, 256),
         "q6_k": (GGML_Q6_K, 210, 256)}
MIXES = {"q4_k_m": "q4_k", "q5_k_m": "q5_k"}
# GGUF metadata value types with a fixed size.
FIXED = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}


class Reader:
    def __init__(self, raw):
        self.raw, self.pos = raw, 0

    def take(self, fmt):
        values = struct.unpack_from("<" + fmt, self.raw, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def string(self):
        n = self.take("Q")
        self.pos += n
        return self.raw[self.pos - n:self.pos].decode()

    def skip_value(self, vtype):
        if vtype in FIXED:
            self.pos += FIXED[vtype]
        elif vtype == 8:
            self.string()
        elif vtype == 9:
            inner, count = self.take("IQ")
            for _ in range(count):
                self.skip_value(inner)
        else:
            sys.exit("unknown GGUF metadata type %d" % vtype)


def quantize_q8_0(x):
    """x: float32 [blocks, 32] -> bytes."""
    amax = np.abs(x).max(axis=1)
    d = (amax / np.float32(127)).astype(np.float32)
    with np.errstate(divide="ignore"):
        inv = np.where(d != 0, np.float32(1) / d, np.float32(0)).astype(np.float32)
    v = (x * inv[:, None]).astype(np.float32).astype(np.float64)
    q = (np.sign(v) * np.floor(np.abs(v) + 0.5)).astype(np.int8)
    out = np.zeros((x.shape[0], 34), dtype=np.uint8)
    out[:, 0:2] = d.astype("<f2").view(np.uint8).reshape(-1, 2)
    out[:, 2:] = q.view(np.uint8)
    return out.tobytes()


def quantize_q4_0(x):
    first = np.abs(x).argmax(axis=1)  # argmax: the first of equal magnitudes
    m = x[np.arange(x.shape[0]), first]
    d = (m / np.float32(-8)).astype(np.float32)
    with np.errstate(divide="ignore"):
        inv = np.where(d != 0, np.float32(1) / d, np.float32(0)).astype(np.float32)
    shifted = ((x * inv[:, None]).astype(np.float32) + np.float32(8.5)).astype(np.float32)
    q = np.minimum(15, np.trunc(shifted).astype(np.int64)).astype(np.uint8)
    out = np.zeros((x.shape[0], 18), dtype=np.uint8)
    out[:, 0:2] = d.astype("<f2").view(np.uint8).reshape(-1, 2)
    out[:, 2:] = q[:, :16] | (q[:, 16:] << 4)
    return out.tobytes()


def f16(value):
    """The f16 bytes of a float32 and the float32 it reads back as."""
    half = np.float16(value)
    return half.tobytes(), np.float32(half)


def pack_scale_mins(sc, m):
    """Eight 6-bit scales and mins -> the 12 bytes Q4_K / Q5_K store."""
    packed = np.zeros(12, dtype=np.uint8)
    for j in range(4):
        packed[j] = (sc[j] & 63) | ((sc[j + 4] >> 4) << 6)
        packed[j + 4] = (m[j] & 63) | ((m[j + 4] >> 4) << 6)
        packed[j + 8] = (sc[j + 4] & 15) | ((m[j + 4] & 15) << 4)
    return packed


def unpack_scale_mins(packed):
    sc, m = [], []
    for j in range(8):
        if j < 4:
            sc.append(packed[j] & 63)
            m.append(packed[j + 4] & 63)
        else:
            sc.append((packed[j + 4] & 15) | ((packed[j - 4] >> 6) << 4))
            m.append((packed[j + 4] >> 4) | ((packed[j] >> 6) << 4))
    return sc, m


def quantize_q45_k(x, bits):
    """x: float32 [blocks, 256] -> Q4_K (bits 4) or Q5_K (bits 5) bytes."""
    top = (1 << bits) - 1
    out = bytearray()
    for block in x:
        sub = block.reshape(8, 32)
        low = np.minimum(sub.min(axis=1), 0).astype(np.float32)
        scale = ((sub.max(axis=1) - low) / np.float32(top)).astype(np.float32)
        d_bytes, d = f16(scale.max() / 63)
        dmin_bytes, dmin = f16(-low.min() / 63)
        sc = np.clip(np.round(scale / d), 0, 63).astype(np.int64) if d > 0 else np.zeros(8, np.int64)
        m = np.clip(np.round(-low / dmin), 0, 63).astype(np.int64) if dmin > 0 else np.zeros(8, np.int64)
        step = (d * sc.astype(np.float32)).astype(np.float32)
        offset = (dmin * m.astype(np.float32)).astype(np.float32)
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.where(step[:, None] > 0, np.round((sub + offset[:, None]) / step[:, None]), 0)
        q = np.clip(q, 0, top).astype(np.uint8).reshape(4, 64)
        nibbles = (q[:, :32] & 15) | ((q[:, 32:] & 15) << 4)
        out += d_bytes + dmin_bytes + pack_scale_mins(sc, m).tobytes()
        if bits == 5:
            high = np.zeros(32, dtype=np.uint8)
            for c in range(4):
                high |= ((q[c, :32] >> 4) << (2 * c)).astype(np.uint8)
                high |= ((q[c, 32:] >> 4) << (2 * c + 1)).astype(np.uint8)
            out += high.tobytes()
        out += nibbles.astype(np.uint8).tobytes()
    return bytes(out)


def quantize_q6_k(x):
    """x: float32 [blocks, 256] -> Q6_K bytes."""
    out = bytearray()
    for block in x:
        sub = block.reshape(16, 16)
        scale = (np.abs(sub).max(axis=1) / np.float32(31)).astype(np.float32)
        d_bytes, d = f16(scale.max() / 127)
        sc = np.clip(np.round(scale / d), -128, 127).astype(np.int8) if d > 0 else np.zeros(16, np.int8)
        step = (d * sc.astype(np.float32)).astype(np.float32)
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.where(step[:, None] != 0, np.round(sub / step[:, None]), 0)
        q = (np.clip(q, -32, 31) + 32).astype(np.uint8).reshape(2, 4, 32)  # [half, i, l]
        low = np.zeros((2, 64), dtype=np.uint8)
        high = np.zeros((2, 32), dtype=np.uint8)
        for i in range(4):
            low[:, 32 * (i % 2):32 * (i % 2) + 32] |= (q[:, i] & 15) << (4 * (i // 2))
            high |= (q[:, i] >> 4) << (2 * i)
        out += low.tobytes() + high.tobytes() + sc.tobytes() + d_bytes
    return bytes(out)


def dequantize_k(data, kind):
    """Q4_K / Q5_K / Q6_K bytes -> float32 values, as ggml computes them."""
    size = TYPES[kind][1]
    blocks = np.frombuffer(data, dtype=np.uint8).reshape(-1, size)
    out = np.zeros((blocks.shape[0], 256), dtype=np.float32)
    for b, block in enumerate(blocks):
        y = out[b]
        if kind == "q6_k":
            low, high = block[0:128], block[128:192]
            sc = block[192:208].view(np.int8).astype(np.float32)
            d = block[208:210].copy().view("<f2").astype(np.float32)[0]
            for half in range(2):
                for i in range(4):
                    nib = (low[64 * half + 32 * (i % 2):][:32] >> (4 * (i // 2))) & 15
                    hi = (high[32 * half:32 * half + 32] >> (2 * i)) & 3
                    q = (nib | (hi << 4)).astype(np.float32) - np.float32(32)
                    scale = np.array([d * sc[8 * half + 2 * i], d * sc[8 * half + 2 * i + 1]], dtype=np.float32)
                    y[128 * half + 32 * i:][:32] = (np.repeat(scale, 16) * q).astype(np.float32)
            continue
        d = block[0:2].copy().view("<f2").astype(np.float32)[0]
        dmin = block[2:4].copy().view("<f2").astype(np.float32)[0]
        sc, m = unpack_scale_mins(block[4:16])
        high = block[16:48] if kind == "q5_k" else None
        nibbles = block[48:176] if kind == "q5_k" else block[16:144]
        for c in range(4):
            for part in range(2):
                j = 2 * c + part
                q = ((nibbles[32 * c:32 * c + 32] >> (4 * part)) & 15).astype(np.int32)
                if high is not None:
                    q += ((high >> (2 * c + part)) & 1).astype(np.int32) * 16
                step = np.float32(d * np.float32(sc[j]))
                offset = np.float32(dmin * np.float32(m[j]))
                y[64 * c + 32 * part:][:32] = (step * q.astype(np.float32)).astype(np.float32) - offset
    return out.astype("<f4").tobytes()


QUANTIZERS = {"q8_0": quantize_q8_0, "q4_0": quantize_q4_0,
              "q4_k": lambda x: quantize_q45_k(x, 4),
              "q5_k": lambda x: quantize_q45_k(x, 5),
              "q6_k": quantize_q6_k}


def tensor_type(name, row, kind):
    """The block type for a matrix named `name` with rows of `row` values, or
    None to keep it F32."""
    if kind in MIXES:
        if row % 256 != 0:
            return "q8_0" if row % 32 == 0 else None
        if "attn_v" in name or "ffn_down" in name:
            return "q6_k"
        return MIXES[kind]
    return kind if row % TYPES[kind][2] == 0 else None


def dequantize(data, kind):
    if kind.endswith("_k"):
        return dequantize_k(data, kind)
    size = TYPES[kind][1]
    blocks = np.frombuffer(data, dtype=np.uint8).reshape(-1, size)
    d = blocks[:, 0:2].copy().view("<f2").astype(np.float32)  # [blocks, 1]
    if kind == "q8_0":
        q = blocks[:, 2:].view(np.int8).astype(np.float32)
    else:
        low = (blocks[:, 2:] & 0x0F).astype(np.int32) - 8
        high = (blocks[:, 2:] >> 4).astype(np.int32) - 8
        q = np.concatenate([low, high], axis=1).astype(np.float32)
    return (q * d).astype("<f4").tobytes()


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--type", choices=sorted(TYPES) + sorted(MIXES), required=True)
    parser.add_argument("--dequantized")
    parser.add_argument("--keep", action="append", default=[], metavar="NAME",
                        help="copy this tensor as it is (repeatable)")
    parser.add_argument("--untied", metavar="UNTIED.gguf",
                        help="also write OUT with output.weight, a copy of "
                             "the tied token_embd.weight")
    parser.add_argument("--poison-scale", metavar="NAME=VALUE",
                        help="store VALUE (nan, inf, ...) as the f16 scale d "
                             "of the first block of quantized tensor NAME, "
                             "as a damaged file would hold it")
    args = parser.parse_args()
    raw = open(args.input, "rb").read()
    r = Reader(raw)
    magic, version, n_tensors, n_kv = r.take("4sIQQ")
    assert magic == b"GGUF" and version == 3, (magic, version)
    kv_start = r.pos
    alignment = 32
    for _ in range(n_kv):
        key = r.string()
        vtype = r.take("I")
        if key == "general.alignment":
            alignment = r.take("I")
        else:
            r.skip_value(vtype)
    metadata = raw[kv_start:r.pos]
    infos = []
    for _ in range(n_tensors):
        name = r.string()
        rank = r.take("I")
        dims = [r.take("Q") for _ in range(rank)]
        ttype, offset = r.take("IQ")
        infos.append((name, dims, ttype, offset))
    data_start = (r.pos + alignment - 1) // alignment * alignment

    quantized, dequantized = [], []
    kinds_used = set()
    count_quantized = 0
    for name, dims, ttype, offset in infos:
        count = int(np.prod(dims))
        if ttype != GGML_F32:
            sys.exit("%s: tensor %s is not F32" % (args.input, name))
        begin = data_start + offset
        values = np.frombuffer(raw[begin:begin + 4 * count], dtype="<f4")
        kind = (tensor_type(name, dims[0], args.type)
                if len(dims) in (2, 3) and name not in args.keep else None)
        if kind:
            ggml_type, _, block = TYPES[kind]
            data = QUANTIZERS[kind](values.reshape(-1, block).astype(np.float32))
            if args.poison_scale and args.poison_scale.split("=")[0] == name:
                # d is the first f16 of a block, but Q6_K's follows its
                # 128 + 64 quant bytes and 16 scales.
                at = 208 if kind == "q6_k" else 0
                value = np.array([float(args.poison_scale.split("=")[1])], dtype="<f2")
                data = data[:at] + value.tobytes() + data[at + 2:]
            quantized.append((name, dims, ggml_type, data))
            dequantized.append((name, dims, GGML_F32, dequantize(data, kind)))
            count_quantized += 1
            kinds_used.add(kind)
        else:
            quantized.append((name, dims, GGML_F32, values.tobytes()))
            dequantized.append(quantized[-1])

    def write(path, tensors):
        out = bytearray(struct.pack("<4sIQQ", b"GGUF", 3, len(tensors), n_kv))
        out += metadata
        offset, blobs = 0, []
        for name, dims, ttype, data in tensors:
            encoded = name.encode()
            out += struct.pack("<Q", len(encoded)) + encoded
            out += struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
            out += struct.pack("<IQ", ttype, offset)
            padded = data + b"\0" * (-len(data) % alignment)
            blobs.append(padded)
            offset += len(padded)
        out += b"\0" * (-len(out) % alignment)
        for blob in blobs:
            out += blob
        with open(path, "wb") as fh:
            fh.write(out)

    write(args.output, quantized)
    if args.untied:
        names = [t[0] for t in quantized]
        if "output.weight" in names or "token_embd.weight" not in names:
            sys.exit("%s: --untied needs a tied model (token_embd.weight and "
                     "no output.weight)" % args.input)
        table = quantized[names.index("token_embd.weight")]
        write(args.untied, quantized + [("output.weight",) + table[1:]])
    if args.dequantized:
        write(args.dequantized, dequantized)
    print("quantized %d of %d tensors to %s" % (count_quantized, len(infos),
                                               ", ".join(sorted(kinds_used))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
