"""Edits a safetensors file in place, as damaged or legacy checkpoints are.

  edit_safetensors.py FILE fill NAME=VALUE...    every element of f32 tensor
                                                 NAME becomes VALUE
  edit_safetensors.py FILE rename OLD=NEW...     tensor OLD is named NEW
  edit_safetensors.py FILE f16 NAME...           f32 tensor NAME is stored
                                                 as f16 (rounded)

A model whose weights are finite but whose arithmetic overflows f32 (3e38
everywhere in a projection) is made with `fill` from one that works; the
original bert-base-uncased's LayerNorm.gamma / .beta names with `rename`.
"""
import json
import struct
import sys

import numpy as np


def to_f16(header, body, names):
    """The tensors `names` as f16, every tensor's data moved to fit."""
    tensors = sorted((info["data_offsets"][0], name) for name, info in header.items()
                     if name != "__metadata__")
    out = bytearray()
    for _, name in tensors:
        info = header[name]
        begin, end = info["data_offsets"]
        data = bytes(body[begin:end])
        if name in names:
            assert info["dtype"] == "F32", (name, info["dtype"])
            data = np.frombuffer(data, dtype="<f4").astype("<f2").tobytes()
            info["dtype"] = "F16"
        info["data_offsets"] = [len(out), len(out) + len(data)]
        out += data
    return header, out


def main():
    path, action, settings = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(path, "rb") as fh:
        data = fh.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    body = bytearray(data[8 + length:])
    if action == "f16":
        header, body = to_f16(header, body, settings)
        settings = []
    for setting in settings:
        name, value = setting.split("=", 1)
        if action == "fill":
            info = header[name]
            assert info["dtype"] == "F32", (name, info["dtype"])
            begin, end = info["data_offsets"]
            body[begin:end] = np.full((end - begin) // 4, float(value), dtype="<f4").tobytes()
        elif action == "rename":
            header[value] = header.pop(name)
        else:
            sys.exit("unknown action %r" % action)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(text)) + text + bytes(body))


if __name__ == "__main__":
    main()
