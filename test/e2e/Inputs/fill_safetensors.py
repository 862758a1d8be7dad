"""Overwrites whole f32 tensors of a safetensors file with one value.

  fill_safetensors.py FILE NAME=VALUE...

A model whose weights are finite but whose arithmetic overflows f32 (3e38
everywhere in a projection) is made this way from a model that works.
"""
import json
import struct
import sys

import numpy as np


def main():
    path, settings = sys.argv[1], sys.argv[2:]
    with open(path, "r+b") as fh:
        (length,) = struct.unpack("<Q", fh.read(8))
        header = json.loads(fh.read(length))
        for setting in settings:
            name, value = setting.split("=", 1)
            info = header[name]
            assert info["dtype"] == "F32", (name, info["dtype"])
            begin, end = info["data_offsets"]
            fh.seek(8 + length + begin)
            fh.write(np.full((end - begin) // 4, float(value), dtype="<f4").tobytes())


if __name__ == "__main__":
    main()
