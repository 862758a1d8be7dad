"""Rewrites a .safetensors header so that tensor A's data_offsets are B's
shifted by SHIFT bytes (A then overlaps B or reads past the data):

  alias_safetensors.py FILE A B [SHIFT]
"""
import json
import struct
import sys

path, a, b = sys.argv[1:4]
shift = int(sys.argv[4]) if len(sys.argv) > 4 else 0
raw = open(path, "rb").read()
(length,) = struct.unpack("<Q", raw[:8])
header = json.loads(raw[8:8 + length])
begin, end = header[b]["data_offsets"]
size = header[a]["data_offsets"][1] - header[a]["data_offsets"][0]
header[a]["data_offsets"] = [begin + shift, begin + shift + size]
text = json.dumps(header).encode()
open(path, "wb").write(struct.pack("<Q", len(text)) + text + raw[8 + length:])
