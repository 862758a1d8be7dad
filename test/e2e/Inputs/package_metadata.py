#!/usr/bin/env python3
"""Rewrites one metadata record of the package at the end of a file.

usage: package_metadata.py FILE set KEY VALUE
       package_metadata.py FILE delete KEY

The package (runtime/Package.h) keeps its weights where they are; its
metadata section is written anew after them, with a new trailer, so the
file stays a valid package whose record KEY now holds VALUE (or is gone):
how tests make a malformed record, or a package of an older tfmc that did
not write KEY.
"""
import struct
import sys


def read_records(meta):
    records, at = [], 0
    while at < len(meta):
        (klen,) = struct.unpack_from("<I", meta, at)
        key = meta[at + 4:at + 4 + klen]
        (vlen,) = struct.unpack_from("<Q", meta, at + 4 + klen)
        start = at + 12 + klen
        records.append((key, meta[start:start + vlen]))
        at = start + vlen
    return records


def main():
    path, action, key, *value = sys.argv[1:]
    data = open(path, "rb").read()
    trailer = data[-64:]
    if trailer[:8] != b"TFMPKG01":
        sys.exit("%s has no package" % path)
    (weights_offset, weights_bytes, meta_offset, meta_bytes, weights_hash,
     r0, r1) = struct.unpack("<QQQQQQQ", trailer[8:])
    records = read_records(data[meta_offset:meta_offset + meta_bytes])
    key = key.encode()
    if not any(k == key for k, _ in records):
        sys.exit("%s has no metadata record '%s'" % (path, key.decode()))
    records = [(k, v) for k, v in records if k != key]
    if action == "set":
        records.append((key, value[0].encode()))
    elif action != "delete":
        sys.exit("unknown action '%s'" % action)
    meta = b"".join(struct.pack("<I", len(k)) + k + struct.pack("<Q", len(v)) + v
                    for k, v in records)
    out = data[:meta_offset] + meta + b"TFMPKG01" + struct.pack(
        "<QQQQQQQ", weights_offset, weights_bytes, meta_offset, len(meta),
        weights_hash, r0, r1)
    open(path, "wb").write(out)


if __name__ == "__main__":
    main()
