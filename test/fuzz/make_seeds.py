#!/usr/bin/python3
"""Writes the seed corpora of the fuzz targets into test/fuzz/corpus/<name>/.

  make_seeds.py [--models MODELS_DIR] [--package EXE ...]

Every seed is small (< 64 KB) and made here or by the test input scripts
(test/compiler/Inputs/make_model.py, test/e2e/Inputs/make_hf_tokenizer.py);
what comes from MODELS_DIR (../shared/models) is cut down to a few hundred
entries. --package takes executables tfmc produced and keeps their package
metadata (tokenizer kind and blob, special ids) with a tiny weights blob.
Multi-part inputs join their parts with SEP (test/fuzz/FuzzSupport.h).
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SEP = b"\n--8<--\n"
MAKE_MODEL = os.path.join(ROOT, "test/compiler/Inputs/make_model.py")
MAKE_HF_TOKENIZER = os.path.join(ROOT, "test/e2e/Inputs/make_hf_tokenizer.py")
LIMIT = 64 * 1024
TEXT = "Hello world! It's 2024.\n  caf\u00e9 \u65e5\u672c \U0001F600".encode()


def put(name, seed, data):
    if len(data) >= LIMIT:
        sys.exit("seed %s/%s is %d bytes, over %d" % (name, seed, len(data), LIMIT))
    directory = os.path.join(HERE, "corpus", name)
    os.makedirs(directory, exist_ok=True)
    open(os.path.join(directory, seed), "wb").write(data)


def make_model(tmp, *args):
    subprocess.check_call([sys.executable, MAKE_MODEL] + list(args), cwd=tmp)


def read(path):
    return open(path, "rb").read()


def gguf_string(s):
    data = s.encode()
    return struct.pack("<Q", len(data)) + data


def gguf_with_vocab(pieces):
    """A GGUF holding only a llama SentencePiece vocabulary and two tensors."""
    meta = [("general.architecture", 8, gguf_string("llama")),
            ("llama.embedding_length", 4, struct.pack("<I", 4)),
            ("tokenizer.ggml.model", 8, gguf_string("llama")),
            ("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, len(pieces)) +
             b"".join(gguf_string(p) for p in pieces)),
            ("tokenizer.ggml.scores", 9, struct.pack("<IQ", 6, len(pieces)) +
             b"".join(struct.pack("<f", -i) for i in range(len(pieces)))),
            ("tokenizer.ggml.token_type", 9, struct.pack("<IQ", 5, len(pieces)) +
             b"".join(struct.pack("<i", 1) for _ in pieces)),
            ("tokenizer.ggml.bos_token_id", 4, struct.pack("<I", 1)),
            ("tokenizer.ggml.eos_token_id", 4, struct.pack("<I", 2))]
    tensors = [("token_embd.weight", [4, len(pieces)], 0),
               ("output_norm.weight", [4], 1)]  # f32, f16
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(meta))
    for key, vtype, payload in meta:
        out += gguf_string(key) + struct.pack("<I", vtype) + payload
    data = b""
    for name, dims, ttype in tensors:
        count = 1
        for d in dims:
            count *= d
        out += gguf_string(name) + struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", ttype, len(data))
        data += b"\x01\x3c" * count * (2 if ttype == 0 else 1)
        data += b"\0" * (-len(data) % 32)
    out += b"\0" * (-len(out) % 32)
    return out + data


def spm_pieces(models, count):
    """The first `count` pieces of tok512.bin (bytes, scores), else made up."""
    path = os.path.join(models, "tok512.bin")
    if not os.path.exists(path):
        return [("<unk>", 0.0), ("<s>", 0.0), ("</s>", 0.0)] + [
            (chr(97 + i % 26) * (1 + i // 26), -float(i)) for i in range(count - 3)]
    data = read(path)
    at, pieces = 4, []
    while at < len(data) and len(pieces) < count:
        score, length = struct.unpack_from("<fi", data, at)
        at += 8
        pieces.append((data[at:at + length].decode("utf-8", "replace"), score))
        at += length
    return pieces


def spm_blob(pieces):
    out = struct.pack("<i", max(len(p.encode()) for p, _ in pieces))
    for piece, score in pieces:
        data = piece.encode()
        out += struct.pack("<fi", score, len(data)) + data
    return out


def gpt2_subset(models, merges_count):
    """GPT-2's 256 byte tokens plus the first `merges_count` merges."""
    directory = os.path.join(models, "gpt2-tokenizer")
    vocab = json.load(open(os.path.join(directory, "vocab.json"), encoding="utf-8"))
    lines = open(os.path.join(directory, "merges.txt"), encoding="utf-8").read().split("\n")
    by_id = sorted(vocab.items(), key=lambda kv: kv[1])
    kept = {token: i for i, (token, _) in enumerate(by_id[:256])}
    merges = []
    for line in lines[1:]:
        if len(merges) == merges_count:
            break
        parts = line.split(" ")
        if len(parts) != 2 or parts[0] not in kept or parts[1] not in kept:
            continue
        merges.append(line)
        kept.setdefault(parts[0] + parts[1], len(kept))
    kept["<|endoftext|>"] = len(kept)
    return (json.dumps(kept, ensure_ascii=False).encode(),
            ("#version: 0.2\n" + "\n".join(merges) + "\n").encode())


def package(weights, metadata):
    """A stand-alone package file (runtime/Package.h) after a fake program."""
    out = b"\x7fELF" + b"\0" * 60
    out += b"\0" * (-len(out) % 4096)
    weights_offset = len(out)
    out += weights + b"\0" * (-len(weights) % 8)
    meta = b""
    for key, value in sorted(metadata.items()):
        meta += struct.pack("<I", len(key)) + key + struct.pack("<Q", len(value)) + value
    meta_offset = len(out)
    out += meta
    out += b"TFMPKG01" + struct.pack("<QQQQQQQ", weights_offset, len(weights),
                                     meta_offset, len(meta), 0x1234, 0, 0)
    return out


def package_metadata(exe):
    """The metadata records of the package at the end of executable `exe`."""
    data = read(exe)
    trailer = data[-64:]
    if trailer[:8] != b"TFMPKG01":
        sys.exit("%s has no package" % exe)
    _, _, meta_offset, meta_bytes, _, _, _ = struct.unpack("<QQQQQQQ", trailer[8:])
    meta, at, records = data[meta_offset:meta_offset + meta_bytes], 0, {}
    while at < len(meta):
        (klen,) = struct.unpack_from("<I", meta, at)
        key = meta[at + 4:at + 4 + klen]
        (vlen,) = struct.unpack_from("<Q", meta, at + 4 + klen)
        start = at + 12 + klen
        records[key] = meta[start:start + vlen]
        at = start + vlen
    return records


def rope_scaling_seeds():
    """config.json rope_scaling objects of every kind tfmc applies."""
    return [
        ("rope-llama3.json", {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                              "high_freq_factor": 4.0, "original_max_position_embeddings": 8}),
        ("rope-yarn.json", {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8,
                            "beta_fast": 32, "beta_slow": 1, "mscale": 0.7, "mscale_all_dim": 0.7}),
        ("rope-longrope.json", {"type": "longrope", "short_factor": [1.0, 1.5],
                                "long_factor": [2.0, 3.0], "factor": 4.0}),
    ]


def normalizer_seeds():
    return [
        ("nmt.json", {"type": "Sequence", "normalizers": [
            {"type": "Nmt"}, {"type": "NFKC"},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]}),
        ("replace-grows.json", {"type": "Replace", "pattern": {"String": "a"},
                                "content": "b" * 1000}),
    ]


def library_seeds():
    """Call sequences for fuzz-library (test/fuzz/LibraryFuzzer.cpp): an
    opcode byte (its value mod 11: 0/1 prefill, 2 decode, 3 tokenize, 4
    detokenize, 5 token_string, 6 set_sampler, 7 sample, 8 stop strings, 9
    the other kinds' calls, 10 reset), then its arguments: a count is a byte
    (< 192: itself mod 24) or 0xff and an int32; a token a byte (< 224)
    and an int32 (id = value mod (vocab + 2) - 1); a text a length byte and
    its bytes."""
    def i32(value):
        return struct.pack("<i", value)

    def count(value):
        return bytes([value]) if 0 <= value < 24 else b"\xff" + i32(value)

    def token(ident):
        return b"\x00" + i32(ident + 1)

    def text(data):
        return bytes([len(data)]) + data

    def prefill(ids):
        return b"\x00" + count(len(ids)) + b"".join(token(i) for i in ids)

    generate = (prefill([1, 72, 101, 108]) + b"\x02" + token(108) +
                b"\x02" + token(111) + b"\x07" + i32(0) + b"\x00" * 300 +
                b"\x03" + text(b"Hello world") + b"\x01" + count(16) +
                b"\x04" + count(3) + token(72) + token(105) + token(33) + b"\x40" +
                b"\x05" + token(72) + b"\x08")
    # A full context, then a prefill of INT32_MAX ids (which once were all
    # read before the context was checked) and of a negative count.
    full = (prefill(list(range(1, 17))) + b"\x00" + count(2 ** 31 - 1) +
            b"\x00" + count(-5) + b"\x02" + token(3) + b"\x0a" +
            prefill([1, 2]))
    sampler = (b"\x06" + struct.pack("<f", float("nan")) + count(-3) +
               struct.pack("<f", 2.0) + i32(7) + struct.pack("<f", -1.0) +
               struct.pack("<f", float("inf")) + b"\x00" + b"\x06" +
               struct.pack("<f", 0.7) + count(5) + struct.pack("<f", 0.9) +
               i32(1) + struct.pack("<f", 0.05) + struct.pack("<f", 1.1) +
               b"\x00" + prefill([1, 5]) + b"\x07" +
               struct.pack("<f", float("nan")) + b"\x01" * 300)
    stops = (b"\x08" + count(2) + text(b"lo w") + text(b"") +
             text(b"Hello world") + b"\x08" + count(2 ** 31 - 1) + text(b"x"))
    kinds = (b"\x09" + count(3) + token(1) + token(2) + token(3) +
             b"\x09" + count(-1) + b"\x09" + count(2 ** 31 - 1))
    bad_ids = (prefill([-1, 259]) + b"\x02" + b"\xff" + i32(-2 ** 31) +
               b"\x04" + count(2) + token(-1) + token(5) + b"\x10" +
               b"\x05" + token(259) + b"\x04")
    for name, data in (("generate", generate), ("full-context", full),
                       ("sampler", sampler), ("stop-strings", stops),
                       ("other-kinds", kinds), ("bad-ids", bad_ids)):
        put("fuzz-library", name, data)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default=os.path.join(ROOT, "..", "shared", "models"))
    parser.add_argument("--package", nargs="*", default=[])
    args = parser.parse_args()
    models = os.path.abspath(args.models)
    have_models = os.path.isdir(os.path.join(models, "gpt2-tokenizer"))
    tmp = tempfile.mkdtemp()
    try:
        # llama2.c checkpoints: shared and separate classifier.
        make_model(tmp, "llama2c", "shared.bin")
        make_model(tmp, "llama2c", "separate.bin", "--header", "8,16,1,2,2,-16,8")
        make_model(tmp, "llama2c", "gqa.bin", "--header", "8,16,2,2,1,16,8")
        for seed in ("shared.bin", "separate.bin", "gqa.bin"):
            put("fuzz-llama2c", seed, read(os.path.join(tmp, seed)))

        # GGUF: the loader tests' model, a quantized tensor, a vocabulary.
        make_model(tmp, "gguf", "model.gguf")
        make_model(tmp, "gguf", "q4.gguf", "--tensor-type", "2")
        put("fuzz-gguf", "model.gguf", read(os.path.join(tmp, "model.gguf")))
        put("fuzz-gguf", "q4.gguf", read(os.path.join(tmp, "q4.gguf")))
        pieces = [p for p, _ in spm_pieces(models, 64)]
        put("fuzz-gguf", "vocab.gguf", gguf_with_vocab(pieces))

        # config.json and safetensors: llama, gpt2, a sharded checkpoint.
        make_model(tmp, "hf", "llama")
        make_model(tmp, "hf", "gpt2", "--model-type", "gpt2", "--no-weights")
        put("fuzz-hf-config", "llama.json", read(os.path.join(tmp, "llama/config.json")))
        put("fuzz-hf-config", "gpt2.json", read(os.path.join(tmp, "gpt2/config.json")))
        put("fuzz-hf-config", "v5.json", json.dumps({
            "model_type": "llama", "architectures": ["LlamaForCausalLM"],
            "hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 1,
            "rope_parameters": {"rope_theta": 10000.0, "rope_type": "default"},
            "dtype": "bfloat16", "tie_word_embeddings": True, "bos_token_id": [1, 2],
            "eos_token_id": None, "rms_norm_eps": 1e-6}).encode())
        for name, scaling in rope_scaling_seeds():
            put("fuzz-hf-config", name, json.dumps(dict(
                json.loads(read(os.path.join(tmp, "llama/config.json"))),
                rope_scaling=scaling, original_max_position_embeddings=16)).encode())
        single = read(os.path.join(tmp, "llama/model.safetensors"))
        put("fuzz-safetensors", "single.safetensors", single)
        (head_len,) = struct.unpack_from("<Q", single)
        header = json.loads(single[8:8 + head_len])
        data = single[8 + head_len:]
        names = sorted(header)
        shards = [{}, {}]
        for i, name in enumerate(names):
            shards[i % 2][name] = header[name]
        weight_map, parts = {}, []
        for index, shard in enumerate(shards):
            blob, new_header = b"", {}
            for name, entry in shard.items():
                begin, end = entry["data_offsets"]
                new_header[name] = dict(entry, data_offsets=[len(blob), len(blob) + end - begin])
                blob += data[begin:end]
                weight_map[name] = "shard%d.safetensors" % (index + 1)
            new_header["__metadata__"] = {"format": "pt"}
            head = json.dumps(new_header).encode()
            parts.append(struct.pack("<Q", len(head)) + head + blob)
        index = json.dumps({"metadata": {"total_size": len(data)},
                            "weight_map": weight_map}, indent=2).encode()
        put("fuzz-safetensors", "sharded", SEP.join([index] + parts))

        # A tokenizer.json normalised as transformers 5.x writes T5's
        # (Sequence[Nmt, NFKC, Replace]), and one whose Replace grows text.
        for name, normalizer in normalizer_seeds():
            put("fuzz-hf-tokenizer", name, json.dumps({
                "model": {"type": "WordLevel", "unk_token": "[UNK]",
                          "vocab": {"[UNK]": 0, "a": 1, "b": 2, " ": 3}},
                "normalizer": normalizer}).encode() + SEP + b"{}" + SEP +
                TEXT + b"aaaa" * 64)

        # llama2.c tokenizers.
        make_model(tmp, "tokenizer", "tok.bin", "--count", "40")
        put("fuzz-llama2c-tokenizer", "made-up.bin", read(os.path.join(tmp, "tok.bin")))
        put("fuzz-llama2c-tokenizer", "tok512-head",
            spm_blob(spm_pieces(models, 300)) + SEP + TEXT)

        # GPT-2 vocab.json + merges.txt, and HF tokenizer.json files.
        if have_models:
            vocab, merges = gpt2_subset(models, 300)
            put("fuzz-gpt2-vocab", "gpt2-head", vocab + SEP + merges + SEP + TEXT)
            small_models = os.path.join(tmp, "models")
            os.makedirs(os.path.join(small_models, "gpt2-tokenizer"))
            open(os.path.join(small_models, "gpt2-tokenizer/vocab.json"), "wb").write(vocab)
            open(os.path.join(small_models, "gpt2-tokenizer/merges.txt"), "wb").write(merges)
            open(os.path.join(small_models, "tokenizer.bin"), "wb").write(
                spm_blob(spm_pieces(models, 300)))
            corpus = os.path.join(ROOT, "test/e2e/Inputs/hf_tokenizer_corpus.txt")
            for kind in ("gpt2", "qwen2", "bloom", "llama", "mistral", "gemma",
                         "bert", "t5"):
                out = os.path.join(tmp, "hf-" + kind)
                try:
                    subprocess.check_call([sys.executable, MAKE_HF_TOKENIZER, kind, out, corpus,
                                           "--models", small_models],
                                          stdout=subprocess.DEVNULL)
                except subprocess.CalledProcessError:
                    print("note: no %s tokenizer.json" % kind)
                    continue
                tok = read(os.path.join(out, "tokenizer.json"))
                config_path = os.path.join(out, "tokenizer_config.json")
                config = read(config_path) if os.path.exists(config_path) else b""
                seed = tok + SEP + config + SEP + TEXT
                if len(seed) < LIMIT:
                    put("fuzz-hf-tokenizer", kind, seed)
                else:
                    print("note: %s tokenizer.json is %d bytes, skipped" % (kind, len(seed)))
            put("fuzz-package", "spm", package(b"\x01" * 64, {
                b"tokenizer.kind": b"spm", b"tokenizer.data": spm_blob(spm_pieces(models, 300)),
                b"token.bos": b"1", b"token.eos": b"2", b"model.description": b"seed"}))
        library_seeds()
        for exe in args.package:
            metadata = package_metadata(exe)
            put("fuzz-package", os.path.basename(exe), package(b"\x02" * 64, metadata))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
