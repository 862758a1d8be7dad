#!/usr/bin/env python3
"""Re-quantizes the matrices of an f32 GGUF file to Q8_0 or Q4_0.

  gguf_quantize.py IN.gguf OUT.gguf --type q8_0|q4_0 [--dequantized DEQ.gguf]
                   [--keep NAME]...

Every F32 tensor of rank 2 whose rows (innermost dimension) are whole blocks
of 32 is quantized; the others (norms, rows of 172, those named by --keep) are
copied as they are.
With --dequantized, DEQ.gguf is the same model with the quantized tensors
replaced by their dequantized F32 values, so a reader of OUT.gguf that
dequantizes as the format says computes exactly what DEQ.gguf holds.

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
"""
import argparse
import struct
import sys

import numpy as np

GGML_F32, GGML_Q4_0, GGML_Q8_0 = 0, 2, 8
TYPES = {"q8_0": (GGML_Q8_0, 34), "q4_0": (GGML_Q4_0, 18)}
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


def dequantize(data, kind):
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
    parser.add_argument("--type", choices=sorted(TYPES), required=True)
    parser.add_argument("--dequantized")
    parser.add_argument("--keep", action="append", default=[], metavar="NAME",
                        help="copy this tensor as it is (repeatable)")
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

    ggml_type, _ = TYPES[args.type]
    quantized, dequantized = [], []
    count_quantized = 0
    for name, dims, ttype, offset in infos:
        count = int(np.prod(dims))
        if ttype != GGML_F32:
            sys.exit("%s: tensor %s is not F32" % (args.input, name))
        begin = data_start + offset
        values = np.frombuffer(raw[begin:begin + 4 * count], dtype="<f4")
        if len(dims) == 2 and dims[0] % 32 == 0 and name not in args.keep:
            blocks = values.reshape(-1, 32).astype(np.float32)
            data = (quantize_q8_0 if args.type == "q8_0" else quantize_q4_0)(blocks)
            quantized.append((name, dims, ggml_type, data))
            dequantized.append((name, dims, GGML_F32, dequantize(data, args.type)))
            count_quantized += 1
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
    if args.dequantized:
        write(args.dequantized, dequantized)
    print("quantized %d of %d tensors to %s" % (count_quantized, len(infos), args.type))
    return 0


if __name__ == "__main__":
    sys.exit(main())
