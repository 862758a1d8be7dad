"""Writes JSON nested 40,000 levels deep where a model directory holds JSON.

  make_deep_json.py config DIR    DIR/config.json is [[[[...]]]]
  make_deep_json.py index DIR     DIR/model.safetensors.index.json's weight_map
  make_deep_json.py header FILE   FILE is a safetensors file whose header nests
  make_deep_json.py wide-index DIR  an index naming 150,000 shard files
"""
import struct
import sys

DEPTH = 40000


def main():
    kind, path = sys.argv[1], sys.argv[2]
    if kind == "config":
        open(path + "/config.json", "w").write("[" * DEPTH + "]" * DEPTH)
    elif kind == "index":
        text = '{"weight_map": ' + '{"a": ' * DEPTH + "1" + "}" * (DEPTH + 1)
        open(path + "/model.safetensors.index.json", "w").write(text)
    elif kind == "header":
        header = b'{"x": ' + b"[" * DEPTH + b"]" * DEPTH + b"}"
        open(path, "wb").write(struct.pack("<Q", len(header)) + header)
    elif kind == "wide-index":
        entries = ", ".join('"t%d": "shard-%06d.safetensors"' % (i, i)
                            for i in range(150000))
        open(path + "/model.safetensors.index.json", "w").write(
            '{"weight_map": {' + entries + "}}")
    else:
        sys.exit("unknown kind " + kind)


if __name__ == "__main__":
    main()
