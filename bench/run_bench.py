#!/usr/bin/python3
"""tfmc throughput against PyTorch and against the machine's limits.

For each shape: write random weights of that shape, compile them with tfmc
(timed), run the produced binary's --bench, run the same weights through a
tuned PyTorch f32 peer (KV-cached decode with torch.mv, one-shot prefill with
sgemm), and put both next to the machine's read bandwidth (decode roofline)
and OpenBLAS sgemm rate (prefill ceiling). Encoder shapes (bert-base) time
encode calls of the whole compiled sequence against a PyTorch f32 forward of
the same weights. Shapes too large to write (tinyllama-1.1B) are compiled
with `tfmc compile --random-weights` from a sparse file of their shape, and
the peer gets random weights of its own in memory. See bench/README.md.

  /usr/bin/python3 bench/run_bench.py [--shapes stories15M,gpt2-124M] [--threads 2]
      [--weights f32,f16,bf16,q8_0,q4_0,q8_0-f32-inputs,q4_0-f32-inputs,
                 bf16-bf16-inputs,q4_k_m,q5_k_m,q6_k]
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e", "Inputs"))

# name: (family, dim, hidden, layers, heads, kv_heads, vocab, context)
SHAPES = {
    "stories15M": ("llama", 288, 768, 6, 6, 6, 32000, 256),
    "stories42M": ("llama", 512, 1376, 8, 8, 8, 32000, 1024),
    "stories110M": ("llama", 768, 2048, 12, 12, 12, 32000, 1024),
    "gpt2-124M": ("gpt2", 768, 3072, 12, 12, 12, 50257, 1024),
    # stories42M's shape with its MLP replaced by 8 experts, 2 per token.
    "mixtral-8x42M": ("mixtral", 512, 1376, 8, 8, 8, 32000, 1024),
    # An encoder (BertForMaskedLM): context is the compiled sequence length;
    # one encode call runs all of it.
    "bert-base": ("bert", 768, 3072, 12, 12, 12, 30522, 128),
    # TinyLlama-1.1B: grouped-query attention and its own classifier.
    "tinyllama-1.1B": ("llama", 2048, 5632, 22, 32, 4, 32000, 2048),
}

# Shapes whose classifier is not the embedding table.
UNTIED = {"tinyllama-1.1B"}

# Shapes too large to write and quantize in Python (4.4 GB of f32 for
# tinyllama-1.1B): tfmc compiles a sparse file of the shape (the header and
# tensor infos, the data a hole: bench/llama2c_shape.py, bench/gguf_shape.py)
# with --random-weights, and the peer's f32 weights are drawn in memory.
# Speed depends only on the shapes and types.
RANDOM_WEIGHTS = {"tinyllama-1.1B"}

# Mixture-of-experts shapes: (experts, experts per token).
EXPERTS = {"mixtral-8x42M": (8, 2)}


ORIGINAL_ENV = "TFMC_BENCH_CALLER_ENV"


def configure_peer_environment(threads):
    """PyTorch as a fair peer (shared/TOOLCHAIN.md): passive OpenMP waiting and
    OpenBLAS's own thread count, both fixed before torch is imported."""
    want = {"OMP_WAIT_POLICY": "PASSIVE", "OPENBLAS_NUM_THREADS": str(threads),
            "OMP_NUM_THREADS": str(threads)}
    if any(os.environ.get(k) != v for k, v in want.items()):
        # Remember the caller's values: tfmc's binaries run with those.
        os.environ[ORIGINAL_ENV] = json.dumps({k: os.environ.get(k) for k in want})
        os.environ.update(want)
        os.execv(sys.executable, [sys.executable] + sys.argv)


def caller_environment():
    """The environment run_bench.py was started with. The peer's settings must
    not leak into tfmc's binaries: their OpenMP runtime (libomp) sleeps
    between parallel regions under OMP_WAIT_POLICY=PASSIVE, which costs
    decode, with many short regions per token, a large factor."""
    env = dict(os.environ)
    for key, value in json.loads(env.pop(ORIGINAL_ENV, "{}")).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


# ---------------------------------------------------------------------------
# Weights
# ---------------------------------------------------------------------------


def write_model(shape, directory, models_dir):
    """Returns (path to compile, extra tfmc arguments)."""
    import torch_reference as ref
    family, d, f, L, H, KV, vocab, ctx = SHAPES[shape]
    common = ["--dim", str(d), "--hidden", str(f), "--layers", str(L), "--heads", str(H),
              "--kv-heads", str(KV), "--vocab", str(vocab), "--context", str(ctx),
              "--seed", "0"]
    if family == "llama":
        out = os.path.join(directory, shape + ".bin")
        ref.make_model(["llama2c", out, *common])
        os.remove(out + ".tok")
        return out, ["--tokenizer", os.path.join(models_dir, "tokenizer.bin")]
    if family == "mixtral":
        out = os.path.join(directory, shape)
        experts, top_k = EXPERTS[shape]
        ref.make_model(["mixtral", out, *common, "--experts", str(experts),
                        "--top-k", str(top_k)])
        return out, ["--tokenizer", os.path.join(models_dir, "tokenizer.bin")]
    # gpt2: the real GPT-2 tokenizer files next to random weights.
    tensors = ref.gpt2_tensors(ref.Init(0), vocab, ctx, d, f, L)
    out = os.path.join(directory, shape)
    os.makedirs(out)
    config = {"model_type": "gpt2", "n_embd": d, "n_layer": L, "n_head": H,
              "vocab_size": vocab, "n_positions": ctx, "n_ctx": ctx,
              "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new",
              "bos_token_id": 50256, "eos_token_id": 50256}
    with open(os.path.join(out, "config.json"), "w") as fh:
        json.dump(config, fh)
    ref.write_safetensors(os.path.join(out, "model.safetensors"), tensors)
    for name in ("vocab.json", "merges.txt"):
        os.symlink(os.path.join(models_dir, "gpt2-tokenizer", name), os.path.join(out, name))
    return out, []


def write_shape(shape, directory, file_type=None):
    """(path, extra tfmc arguments) for a RANDOM_WEIGHTS shape: a llama2.c
    checkpoint (file_type None) or a GGUF file of that type's tensor types
    with no weights in it (a sparse file), a tokenizer.bin of its
    vocabulary beside it, compiled with --random-weights."""
    _, d, f, L, H, KV, vocab, ctx = SHAPES[shape]
    out = os.path.join(directory, "%s-%s" % (shape, file_type or "llama2c"))
    script = "gguf_shape.py" if file_type else "llama2c_shape.py"
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", script), out,
                    *(["--type", file_type] if file_type else []),
                    "--dim", str(d), "--hidden", str(f), "--layers", str(L),
                    "--heads", str(H), "--kv-heads", str(KV), "--vocab", str(vocab),
                    "--context", str(ctx), *(["--untied"] if shape in UNTIED else [])],
                   check=True)
    model = os.path.join(out, "model.gguf" if file_type else "model.bin")
    return model, ["--tokenizer", os.path.join(out, "tokenizer.bin"), "--random-weights"]


def random_peer_weights(shape):
    """load_peer_weights' dict for a LLaMA shape, drawn in memory (seeded,
    uniform in +-1/sqrt(fan-in), norms 1): no file of f32 weights written."""
    import torch
    _, d, f, L, H, KV, vocab, _ = SHAPES[shape]
    kv = KV * (d // H)
    gen = torch.Generator().manual_seed(0)

    def matrix(rows, cols):
        bound = cols ** -0.5
        return torch.empty(rows, cols).uniform_(-bound, bound, generator=gen)

    ones = lambda: (torch.ones(d), None)
    embed = matrix(vocab, d)
    w = {"embed": embed, "final_norm": ones(),
         "head": matrix(vocab, d) if shape in UNTIED else embed, "layers": []}
    for _ in range(L):
        w["layers"].append({
            "attn_norm": ones(), "ffn_norm": ones(),
            "wq": (matrix(d, d), None), "wk": (matrix(kv, d), None),
            "wv": (matrix(kv, d), None), "wo": (matrix(d, d), None),
            "gate": (matrix(f, d), None), "up": (matrix(f, d), None),
            "down": (matrix(d, f), None)})
    return w


def shapes_only(w):
    """`w` with every tensor replaced by one of its shape on the meta device
    (no storage): what weight_bytes needs once the peer has run, without
    holding its f32 weights (4.4 GB at 1.1B parameters) while tfmc compiles
    and runs."""
    if isinstance(w, dict):
        return {k: shapes_only(v) for k, v in w.items()}
    if isinstance(w, (list, tuple)):
        return type(w)(shapes_only(v) for v in w)
    return None if w is None else w.to("meta")


def load_peer_weights(shape, path):
    """Canonical f32 weights, every matrix [out, in] contiguous for sgemv."""
    import torch
    import torch_reference as ref
    family = SHAPES[shape][0]
    f32 = lambda t: t.to(torch.float32).contiguous()
    if family in ("llama", "mixtral"):
        if family == "llama":
            cfg, embed, layers, final_norm, head = ref.load_llama2c(path)
        else:
            cfg, embed, layers, final_norm, head = ref.llama_from_hf(*ref.load_hf(path))
        w = {"embed": f32(embed), "final_norm": (f32(final_norm), None),
             "head": f32(head), "layers": []}
        for lw in layers:
            layer = {
                "attn_norm": (f32(lw["attn_norm"]), None), "ffn_norm": (f32(lw["ffn_norm"]), None),
                "wq": (f32(lw["wq"]), None), "wk": (f32(lw["wk"]), None),
                "wv": (f32(lw["wv"]), None), "wo": (f32(lw["wo"]), None)}
            if "router" in lw:
                layer["router"] = (f32(lw["router"]), None)
                # [experts, out, in] stacks, one slice per expert.
                for name, key in (("gate", "w1"), ("up", "w3"), ("down", "w2")):
                    layer[name] = (f32(torch.stack([e[key] for e in lw["experts"]])), None)
            else:
                layer.update({"gate": (f32(lw["w1"]), None), "up": (f32(lw["w3"]), None),
                              "down": (f32(lw["w2"]), None)})
            w["layers"].append(layer)
        return w
    config, t = ref.load_hf(path)
    d = config["n_embd"]
    w = {"embed": f32(t["wte.weight"]), "pos": f32(t["wpe.weight"]),
         "final_norm": (f32(t["ln_f.weight"]), f32(t["ln_f.bias"])),
         "head": f32(t["wte.weight"]), "layers": []}
    for i in range(config["n_layer"]):
        p = "h.%d." % i
        qkv, qkv_b = t[p + "attn.c_attn.weight"].T, t[p + "attn.c_attn.bias"]
        lin = lambda name: (f32(t[p + name + ".weight"].T), f32(t[p + name + ".bias"]))
        w["layers"].append({
            "attn_norm": (f32(t[p + "ln_1.weight"]), f32(t[p + "ln_1.bias"])),
            "ffn_norm": (f32(t[p + "ln_2.weight"]), f32(t[p + "ln_2.bias"])),
            "wq": (f32(qkv[:d]), f32(qkv_b[:d])), "wk": (f32(qkv[d:2 * d]), f32(qkv_b[d:2 * d])),
            "wv": (f32(qkv[2 * d:]), f32(qkv_b[2 * d:])), "wo": lin("attn.c_proj"),
            "up": lin("mlp.c_fc"), "down": lin("mlp.c_proj")})
    return w


# Bytes per projection weight element as --weights stores it (Q8_0 / Q4_0:
# a block of 32 is an f16 scale and 32 bytes, or 16 bytes of nibbles).
WEIGHT_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "q8_0": 34 / 32, "q4_0": 18 / 32}


# GGUF file types: the shape's weights written as a GGUF file, quantized by
# test/e2e/Inputs/gguf_quantize.py to that mix (llama.cpp's), and compiled
# as stored (no --weights).
FILE_TYPES = ("q4_k_m", "q5_k_m", "q6_k")

# A weight type compiled with other code generation: (--weights, flags).
# q4_0 takes int8 inputs by default where the target has AVX2, q8_0 where
# it has VNNI; these rows keep them f32, for the comparison in one run.
VARIANTS = {"q4_0-f32-inputs": ("q4_0", ["--int8-inputs=false"]),
            "bf16-bf16-inputs": ("bf16", ["--bf16-inputs"]),
            "q8_0-f32-inputs": ("q8_0", ["--int8-inputs=false"])}


def codegen_flags(codegen):
    """tfmc's flags for one --codegen entry."""
    codegen, _, schedule = codegen.partition("@")
    flags = ["--halide-autoschedule=" + schedule] if schedule else []
    if codegen == "llvm":
        return []
    if codegen == "halide":
        return ["--backend=halide"] + flags
    return ["--kernel-backend=" + codegen] + flags


def write_quantized_gguf(shape, directory, models_dir, file_type):
    """(GGUF path, extra tfmc arguments): the shape as a Hugging Face LLaMA
    (random weights of its shape: a draw of its own, as speed depends only
    on shapes and types), converted to GGUF and quantized to `file_type`."""
    import torch_reference as ref
    _, d, f, L, H, KV, vocab, ctx = SHAPES[shape]
    hf = os.path.join(directory, shape + "-hf")
    ref.make_model(["llama", hf, "--dim", str(d), "--hidden", str(f), "--layers", str(L),
                    "--heads", str(H), "--kv-heads", str(KV), "--vocab", str(vocab),
                    "--context", str(ctx), "--seed", "0"])
    f32 = os.path.join(directory, shape + ".gguf")
    out = os.path.join(directory, "%s-%s.gguf" % (shape, file_type))
    inputs = os.path.join(ROOT, "test", "e2e", "Inputs")
    subprocess.run([sys.executable, os.path.join(inputs, "hf_to_gguf.py"), "model", hf, f32],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, os.path.join(inputs, "gguf_quantize.py"), f32, out,
                    "--type", file_type], check=True, stdout=subprocess.DEVNULL)
    return out, ["--tokenizer", os.path.join(models_dir, "tokenizer.bin")]


def binary_info(exe):
    """`exe --info` as {key: value}."""
    info = subprocess.run([exe, "--info"], check=True, capture_output=True, text=True,
                          env=caller_environment()).stdout
    return dict(line.split(": ", 1) for line in info.splitlines() if ": " in line)


def packed_decode_bytes(exe, table_bytes):
    """Weight bytes a decode step of `exe` reads: its whole weights blob
    (`--info`; a --random-weights binary's too, which it fills at load) but
    an embedding table stored apart from the classifier (`table_bytes`, 0
    when tied), of which it reads one row. A tied table is the classifier's
    panels, which the classifier reads whole."""
    return int(binary_info(exe)["weights"].split()[0]) - table_bytes


def binary_bytes(exe):
    """Bytes of the compiled model: the executable, plus its package where
    `--info` names one apart from it (an executable embeds its own)."""
    size = os.path.getsize(exe)
    package = binary_info(exe).get("package", exe)
    if os.path.exists(package) and not os.path.samefile(package, exe):
        size += os.path.getsize(package)
    return size


def untied_table_bytes(gguf):
    """Bytes the binary of the GGUF file `gguf` keeps its
    `token_embd.weight` in when the file also has a classifier
    (`output.weight`), else 0: an embedding table apart from the classifier
    stays f32 whatever the file stores it in (docs/weight-types.md; --info
    of an untied Q4_K_M or Q8_0 file counts it in its f32 bytes)."""
    sys.path.insert(0, os.path.join(ROOT, "test", "e2e", "Inputs"))
    import gguf_quantize as gq
    with open(gguf, "rb") as fh:
        head = fh.read(64 << 20)  # the header and tensor infos
    r = gq.Reader(head)
    _, _, n_tensors, n_kv = r.take("4sIQQ")
    for _ in range(n_kv):
        r.string()
        r.skip_value(r.take("I"))
    infos = {}
    for _ in range(n_tensors):
        name = r.string()
        dims = [r.take("Q") for _ in range(r.take("I"))]
        ttype, _ = r.take("IQ")
        infos[name] = (dims, ttype)
    if "output.weight" not in infos or "token_embd.weight" not in infos:
        return 0
    count = 1
    for dim in infos["token_embd.weight"][0]:
        count *= dim
    return 4 * count


def matrix_bytes(t, weights):
    """Bytes of the [out, in] matrix `t` as --weights stores it: a matrix
    whose rows are not whole blocks of 32 stays f32 (docs/weight-types.md);
    a vector (a bias) is always f32."""
    if t.dim() != 2 or (weights in ("q8_0", "q4_0") and t.shape[-1] % 32 != 0):
        return 4 * t.numel()
    return WEIGHT_BYTES[weights] * t.numel()


def weight_bytes(w, shape, weights="f32"):
    """(bytes decode reads per token, layer-weight parameters a token uses,
    all parameters). A mixture of experts reads top_k of its experts; the
    projections (all the layer weights and the classifier) are stored as
    `weights`."""
    experts, top_k = EXPERTS.get(shape, (1, 1))
    total = active = 0
    read = 0.0
    for lw in w["layers"]:
        for name, pair in lw.items():
            n = sum(t.numel() for t in pair if t is not None)
            b = sum(matrix_bytes(t, weights) for t in pair if t is not None)
            total += n
            moe = "router" in lw and name in ("gate", "up", "down")
            active += n * top_k // experts if moe else n
            read += b * top_k / experts if moe else b
    head = w["head"].numel()
    return int(read + matrix_bytes(w["head"], weights)), active, total + head


# ---------------------------------------------------------------------------
# The PyTorch peer (f32)
# ---------------------------------------------------------------------------


class TorchPeer:
    def __init__(self, shape, w, context):
        import torch
        self.torch = torch
        family, d, f, L, H, KV, vocab, _ = SHAPES[shape]
        self.gpt2 = family == "gpt2"
        # Hugging Face checkpoints rotate halves; llama2.c interleaved pairs.
        self.half_split = family == "mixtral"
        self.top_k = EXPERTS.get(shape, (1, 1))[1]
        self.w, self.H, self.KV, self.hd = w, H, KV, d // H
        self.k = torch.zeros(L, context, KV, self.hd)
        self.v = torch.zeros(L, context, KV, self.hd)
        if not self.gpt2:  # llama2.c: interleaved pairs, theta 10000
            i = torch.arange(self.hd // 2, dtype=torch.float64)
            angle = torch.arange(context, dtype=torch.float64)[:, None] * 10000.0 ** (-2 * i / self.hd)
            self.cos = torch.cos(angle).float()
            self.sin = torch.sin(angle).float()

    def norm(self, x, wb):
        F = self.torch.nn.functional
        if self.gpt2:
            return F.layer_norm(x, x.shape[-1:], wb[0], wb[1], 1e-5)
        return x * self.torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-5) * wb[0]

    def rope(self, x, pos):
        """x: [T, heads, hd] at positions pos..pos+T-1."""
        if self.gpt2:
            return x
        T = x.shape[0]
        cos = self.cos[pos:pos + T, None, :]
        sin = self.sin[pos:pos + T, None, :]
        if self.half_split:
            a, b = x[..., :self.hd // 2], x[..., self.hd // 2:]
            return self.torch.cat([a * cos - b * sin, b * cos + a * sin], -1)
        a, b = x[..., 0::2], x[..., 1::2]
        return self.torch.stack([a * cos - b * sin, a * sin + b * cos], -1).flatten(-2)

    def experts(self, h, lw, lin):
        """Each token's top-k experts, weighted by the softmax over their
        router logits; tokens grouped by expert so a prefill runs one GEMM
        per expert."""
        torch = self.torch
        rows = h if h.dim() == 2 else h.unsqueeze(0)
        logits = torch.nn.functional.linear(rows, lw["router"][0])
        top, chosen = torch.topk(logits, self.top_k, dim=-1)
        weights = torch.softmax(top, dim=-1)
        out = torch.zeros_like(rows)
        for e in chosen.unique().tolist():
            token, slot = (chosen == e).nonzero(as_tuple=True)
            x = rows[token]
            g = torch.nn.functional.linear(x, lw["gate"][0][e])
            y = torch.nn.functional.linear(
                torch.nn.functional.silu(g) * torch.nn.functional.linear(x, lw["up"][0][e]),
                lw["down"][0][e])
            out.index_add_(0, token, y * weights[token, slot].unsqueeze(-1))
        return out if h.dim() == 2 else out[0]

    def ffn(self, h, lw, lin):
        torch = self.torch
        if "router" in lw:
            return self.experts(h, lw, lin)
        if self.gpt2:
            u = lin(h, lw["up"])
            u = 0.5 * u * (1 + torch.tanh(0.7978845608028654 * (u + 0.044715 * u * u * u)))
            return lin(u, lw["down"])
        g = lin(h, lw["gate"])
        return lin(torch.nn.functional.silu(g) * lin(h, lw["up"]), lw["down"])

    def decode(self, token, pos):
        """One token: every matrix-vector product is torch.mv (sgemv)."""
        torch = self.torch
        H, KV, hd = self.H, self.KV, self.hd

        def lin(x, wb):
            return torch.mv(wb[0], x) if wb[1] is None else torch.addmv(wb[1], wb[0], x)

        x = self.w["embed"][token].clone()
        if self.gpt2:
            x += self.w["pos"][pos]
        for l, lw in enumerate(self.w["layers"]):
            h = self.norm(x, lw["attn_norm"])
            q = self.rope(lin(h, lw["wq"]).view(1, H, hd), pos)[0]
            self.k[l, pos] = self.rope(lin(h, lw["wk"]).view(1, KV, hd), pos)[0]
            self.v[l, pos] = lin(h, lw["wv"]).view(KV, hd)
            k = self.k[l, :pos + 1].repeat_interleave(H // KV, 1).transpose(0, 1)
            v = self.v[l, :pos + 1].repeat_interleave(H // KV, 1).transpose(0, 1)
            s = torch.bmm(k, q.view(H, hd, 1)).squeeze(-1) / math.sqrt(hd)
            att = torch.bmm(torch.softmax(s, -1).unsqueeze(1), v).reshape(H * hd)
            x += lin(att, lw["wo"])
            x += self.ffn(self.norm(x, lw["ffn_norm"]), lw, lin)
        return torch.mv(self.w["head"], self.norm(x, self.w["final_norm"]))

    def prefill(self, tokens):
        """T tokens at positions 0..T-1 in one pass (sgemm); logits of the last."""
        torch = self.torch
        H, KV, hd = self.H, self.KV, self.hd
        T = len(tokens)

        def lin(x, wb):
            return torch.nn.functional.linear(x, wb[0], wb[1])

        x = self.w["embed"][tokens]
        if self.gpt2:
            x = x + self.w["pos"][:T]
        mask = torch.full((T, T), float("-inf")).triu(1)
        for l, lw in enumerate(self.w["layers"]):
            h = self.norm(x, lw["attn_norm"])
            q = self.rope(lin(h, lw["wq"]).view(T, H, hd), 0)
            k = self.rope(lin(h, lw["wk"]).view(T, KV, hd), 0)
            v = lin(h, lw["wv"]).view(T, KV, hd)
            self.k[l, :T], self.v[l, :T] = k, v
            k = k.repeat_interleave(H // KV, 1).transpose(0, 1)
            v = v.repeat_interleave(H // KV, 1).transpose(0, 1)
            s = torch.baddbmm(mask, q.transpose(0, 1), k.transpose(1, 2), alpha=1 / math.sqrt(hd))
            att = torch.bmm(torch.softmax(s, -1), v).transpose(0, 1).reshape(T, H * hd)
            x = x + lin(att, lw["wo"])
            x = x + self.ffn(self.norm(x, lw["ffn_norm"]), lw, lin)
        return torch.mv(self.w["head"], self.norm(x[-1], self.w["final_norm"]))


def bench_peer(peer, vocab, prompt, steps):
    """Same protocol as the binary's --bench: synthetic ids, one warm-up of
    each phase, best of 3; decode continues at positions prompt..prompt+steps-1."""
    ids = [(i * 7919 + 13) % vocab for i in range(prompt + steps)]
    prompt_ids = peer.torch.tensor(ids[:prompt])
    best_p = best_d = float("inf")
    with peer.torch.no_grad():
        for run in range(4):
            start = time.perf_counter()
            peer.prefill(prompt_ids)
            p = time.perf_counter() - start
            start = time.perf_counter()
            for i in range(steps):
                peer.decode(ids[prompt + i], prompt + i)
            dt = time.perf_counter() - start
            if run:
                best_p, best_d = min(best_p, p), min(best_d, dt)
    return prompt / best_p, steps / best_d


# ---------------------------------------------------------------------------
# Machine limits
# ---------------------------------------------------------------------------


def read_bandwidth(threads, workdir):
    exe = os.path.join(workdir, "bandwidth")
    if not os.path.exists(exe):
        subprocess.run(["gcc", "-O3", "-mavx2", "-mfma", "-fopenmp",
                        os.path.join(ROOT, "bench", "bandwidth.c"), "-o", exe],
                       check=True)
    out = subprocess.run([exe, str(threads)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["read_gb_per_s"] * 1e9


def sgemm_rate():
    import torch
    n = 1024
    a, b = torch.randn(n, n), torch.randn(n, n)
    torch.mm(a, b)
    best = float("inf")
    for _ in range(10):
        start = time.perf_counter()
        torch.mm(a, b)
        best = min(best, time.perf_counter() - start)
    return 2 * n ** 3 / best


# ---------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", default="stories15M",
                        help="comma-separated, from: " + ",".join(SHAPES))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--prompt-tokens", type=int, default=128)
    parser.add_argument("-n", dest="steps", type=int, default=128)
    parser.add_argument("--tfmc", default=os.path.join(ROOT, "build", "bin", "tfmc"))
    parser.add_argument("--models", default=os.path.join(ROOT, "..", "shared", "models"),
                        help="directory with tokenizer.bin and gpt2-tokenizer/")
    parser.add_argument("--weights", default="f32",
                        help="comma-separated projection weight types to compile each "
                             "shape with (tfmc --weights), from: " + ",".join(WEIGHT_BYTES)
                             + "; or GGUF mixes the shape is quantized to and compiled as "
                             "stored, from: " + ",".join(FILE_TYPES)
                             + "; or variants: " + ",".join(VARIANTS))
    parser.add_argument("--codegen", default="llvm",
                        help="comma-separated code generators to compile each shape with, "
                             "one row each: llvm (default), halide (tfmc --backend=halide), "
                             "or KIND:halide, that kind alone Halide's (tfmc "
                             "--kernel-backend=KIND:halide; e.g. projection:halide); "
                             "@SCHEDULER after a Halide one autoschedules it "
                             "(halide@adams2019)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--attention-context", type=int, default=0, metavar="T",
                        help="also compile each shape for context T and report attention's "
                             "share of a decode step near position T (e.g. 1024)")
    parser.add_argument("--kv-cache", default="f32",
                        help="with --attention-context: comma-separated KV-cache element "
                             "types to compile the long-context binary with (tfmc "
                             "--kv-cache), from: f32,f16")
    args = parser.parse_args()
    shapes = args.shapes.split(",")
    for s in shapes:
        if s not in SHAPES:
            parser.error("unknown shape '%s' (known: %s)" % (s, ",".join(SHAPES)))
    for t in args.kv_cache.split(","):
        if t not in ("f32", "f16"):
            parser.error("unknown KV-cache type '%s' (known: f32,f16)" % t)
    known = list(WEIGHT_BYTES) + list(FILE_TYPES) + list(VARIANTS)
    for t in args.weights.split(","):
        if t not in known:
            parser.error("unknown weight type '%s' (known: %s)" % (t, ",".join(known)))
        if t in FILE_TYPES:
            for s in shapes:
                if SHAPES[s][0] != "llama":
                    parser.error("--weights %s: llama shapes only, not %s" % (t, s))
    for c in args.codegen.split(","):
        base, _, schedule = c.partition("@")
        if ((base not in ("llvm", "halide")
             and not (base.endswith(":halide") and base.count(":") == 1))
                or (schedule and (base == "llvm" or schedule not in (
                    "adams2019", "mullapudi2016", "li2018")))):
            parser.error("unknown code generator '%s' (llvm, halide or KIND:halide, "
                         "Halide's with @adams2019, @mullapudi2016 or @li2018)" % c)
    configure_peer_environment(args.threads)

    import ctypes
    import torch
    torch.set_num_threads(args.threads)
    ctypes.CDLL("libopenblas.so.0").openblas_set_num_threads(args.threads)

    work = tempfile.mkdtemp(prefix="tfmc-bench-")
    try:
        rows, machine = run_shapes(args, shapes, work)
    finally:
        if args.keep:
            print("work directory kept: %s" % work)
        else:
            shutil.rmtree(work)
    print_table(args, rows, machine)
    return 0


def run_shapes(args, shapes, work):
    context = args.prompt_tokens + args.steps
    # Measured before and after the shapes, keeping the better: a machine
    # limit is what the machine can do, and a busy moment should not inflate
    # the percentages.
    bandwidth = read_bandwidth(args.threads, work)
    sgemm = sgemm_rate()

    rows = []
    for shape in shapes:
        if SHAPES[shape][0] == "bert":
            rows.append(encoder_shape(args, shape, work))
            continue
        random = shape in RANDOM_WEIGHTS
        if random:
            print("# %s: random weights: tfmc compiles a sparse file of the shape with"
                  " --random-weights (the binary fills its weights at load); the PyTorch"
                  " peer's f32 weights are drawn in memory" % shape, flush=True)
            model, extra = write_shape(shape, work)
            w = random_peer_weights(shape)
        else:
            model, extra = write_model(shape, work, os.path.abspath(args.models))
            w = load_peer_weights(shape, model)
        peer = TorchPeer(shape, w, context)
        torch_prefill, torch_decode = bench_peer(peer, SHAPES[shape][6],
                                                 args.prompt_tokens, args.steps)
        # The rows count bytes and parameters from the shapes alone: the
        # peer's weights need not stay in memory beside tfmc's binaries.
        del peer
        w = shapes_only(w)
        for weights, codegen in [(w, c) for w in args.weights.split(",")
                                 for c in args.codegen.split(",")]:
            exe = os.path.join(work, "%s-%s-%s.exe" % (
                shape, weights, codegen.replace(":", "-").replace("@", "-")))
            stored, flags = VARIANTS.get(weights, (weights, []))
            flags = flags + codegen_flags(codegen)
            label = weights if codegen == "llvm" else "%s %s" % (weights, codegen)
            source, source_extra, asked = model, extra, stored
            if weights in FILE_TYPES:
                source, source_extra = (
                    write_shape(shape, work, weights) if random else
                    write_quantized_gguf(shape, work, os.path.abspath(args.models), weights))
                asked = None
            start = time.perf_counter()
            subprocess.run([args.tfmc, "compile", source, *source_extra,
                            "--context", str(context),
                            # The benchmark's models are f32: f32 is the default
                            # (and what a tfmc without --weights compiles).
                            *([] if asked in (None, "f32") else ["--weights=" + asked]),
                            *flags, "-o", exe],
                           check=True, env=caller_environment())
            compile_s = time.perf_counter() - start
            out = subprocess.run([exe, "--bench", "--prompt-tokens", str(args.prompt_tokens),
                                  "-n", str(args.steps), "--threads", str(args.threads)],
                                 check=True, capture_output=True, text=True,
                                 env=caller_environment())
            ours = json.loads(out.stdout.strip().splitlines()[-1])
            if random:
                # An untied embedding table is f32 in every binary.
                _, layer_params, all_params = weight_bytes(w, shape)
                table = 4 * SHAPES[shape][1] * SHAPES[shape][6] if shape in UNTIED else 0
                decode_bytes = packed_decode_bytes(exe, table)
            elif weights in FILE_TYPES:
                _, layer_params, all_params = weight_bytes(w, shape)
                decode_bytes = packed_decode_bytes(exe, untied_table_bytes(source))
            else:
                decode_bytes, layer_params, all_params = weight_bytes(w, shape, stored)
            torch_bytes = weight_bytes(w, shape)[0]
            flops = 2 * layer_params
            row = {"shape": shape, "weights": label, "compile_s": compile_s,
                   "binary_bytes": binary_bytes(exe), "random_weights": random,
                   "decode_ours": ours["decode_tokens_per_s"], "decode_torch": torch_decode,
                   "prefill_ours": ours["prefill_tokens_per_s"],
                   "prefill_torch": torch_prefill, "decode_bytes": decode_bytes,
                   "torch_decode_bytes": torch_bytes, "prefill_flops_per_token": flops,
                   "total_bytes": 4 * all_params}
            row["cache_bytes"] = cache_bytes_per_step(shape, args.prompt_tokens, args.steps)
            row.update(interleaved_roofline(args, exe, decode_bytes, work,
                                            row["cache_bytes"]))
            if args.attention_context and args.attention_context <= SHAPES[shape][7]:
                row["attention"] = {kv: attention_share(args, model, extra,
                                                        exe + ".long-" + kv, kv)
                                    for kv in args.kv_cache.split(",")}
            rows.append(row)
            print("# %s %s: %s" % (shape, label, json.dumps(row)), flush=True)
        del w
    bandwidth = max(bandwidth, read_bandwidth(args.threads, work))
    sgemm = max(sgemm, sgemm_rate())
    for row in rows:
        if "encode_ours" in row:
            row["encode_sgemm_pct"] = 100 * row["encode_ours"] * row["encode_flops_per_token"] / sgemm
            row["torch_encode_sgemm_pct"] = (100 * row["encode_torch"]
                                             * row["encode_flops_per_token"] / sgemm)
            continue
        row["decode_roofline_pct"] = 100 * row["decode_ours"] * row["decode_bytes"] / bandwidth
        row["torch_decode_roofline_pct"] = (100 * row["decode_torch"]
                                            * row["torch_decode_bytes"] / bandwidth)
        row["prefill_sgemm_pct"] = 100 * row["prefill_ours"] * row["prefill_flops_per_token"] / sgemm
        row["torch_prefill_sgemm_pct"] = (100 * row["prefill_torch"]
                                          * row["prefill_flops_per_token"] / sgemm)
    machine = ("machine: %d threads, read bandwidth %.1f GB/s, OpenBLAS sgemm %.1f GFLOP/s"
               " (best of a measurement before and after the shapes)"
               % (args.threads, bandwidth / 1e9, sgemm / 1e9))
    return rows, machine


def encoder_shape(args, shape, work):
    """An encoder: tfmc's --bench (encode calls of the whole sequence) and a
    PyTorch f32 forward of the same weights over the same ids, each the best
    of 5 after a warm-up."""
    import torch
    import torch_reference as ref
    family, d, f, L, H, _, vocab, sequence = SHAPES[shape]
    out = os.path.join(work, shape)
    ref.make_model(["bert", out, "--dim", str(d), "--hidden", str(f), "--layers", str(L),
                    "--heads", str(H), "--vocab", str(vocab), "--context", "512",
                    "--seed", "0", "--eps", "1e-12"])
    # tfmc needs a tokenizer to compile a directory; the bench feeds ids.
    import make_hf_tokenizer as tok
    tokenizer, tokenizer_config = tok.bert([os.path.join(ROOT, "test", "e2e", "Inputs",
                                                         "hf_tokenizer_corpus.txt")])
    with open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8") as fh:
        json.dump(tokenizer, fh)
    exe = os.path.join(work, shape + ".exe")
    start = time.perf_counter()
    subprocess.run([args.tfmc, "compile", out, "--context", str(sequence), "-o", exe],
                   check=True, env=caller_environment())
    compile_s = time.perf_counter() - start
    result = subprocess.run([exe, "--bench", "--prompt-tokens", str(sequence), "-n", "5",
                             "--threads", str(args.threads)],
                            check=True, capture_output=True, text=True,
                            env=caller_environment())
    ours = json.loads(result.stdout.strip().splitlines()[-1])

    config, t = ref.load_hf(out)
    t = {name: value.to(torch.float32).contiguous() for name, value in t.items()}
    F = torch.nn.functional
    hd = d // H

    def lin(x, name):
        return F.linear(x, t[name + ".weight"], t[name + ".bias"])

    def forward(ids):
        e = "bert.embeddings."
        x = (t[e + "word_embeddings.weight"][ids] + t[e + "token_type_embeddings.weight"][0]
             + t[e + "position_embeddings.weight"][:len(ids)])
        x = F.layer_norm(x, (d,), t[e + "LayerNorm.weight"], t[e + "LayerNorm.bias"], 1e-12)
        T = len(ids)
        for i in range(L):
            p = "bert.encoder.layer.%d." % i
            q, k, v = (lin(x, p + "attention.self." + n).view(T, H, hd).transpose(0, 1)
                       for n in ("query", "key", "value"))
            s = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(hd)
            a = torch.bmm(torch.softmax(s, -1), v).transpose(0, 1).reshape(T, d)
            x = F.layer_norm(x + lin(a, p + "attention.output.dense"), (d,),
                             t[p + "attention.output.LayerNorm.weight"],
                             t[p + "attention.output.LayerNorm.bias"], 1e-12)
            h = lin(F.gelu(lin(x, p + "intermediate.dense")), p + "output.dense")
            x = F.layer_norm(x + h, (d,), t[p + "output.LayerNorm.weight"],
                             t[p + "output.LayerNorm.bias"], 1e-12)
        h = F.gelu(lin(x, "cls.predictions.transform.dense"))
        h = F.layer_norm(h, (d,), t["cls.predictions.transform.LayerNorm.weight"],
                         t["cls.predictions.transform.LayerNorm.bias"], 1e-12)
        return x, F.linear(h, t[e + "word_embeddings.weight"], t["cls.predictions.bias"])

    ids = torch.tensor([(i * 7919 + 13) % vocab for i in range(sequence)])
    best = float("inf")
    with torch.no_grad():
        for run in range(6):
            start = time.perf_counter()
            forward(ids)
            if run:
                best = min(best, time.perf_counter() - start)
    # Multiply-adds per token: the projections and the MLM head, plus
    # attention's scores and weighted sums over the sequence.
    flops = 2 * (L * (4 * d * d + 2 * d * f + 2 * sequence * d) + d * d + vocab * d)
    row = {"shape": shape, "compile_s": compile_s, "binary_bytes": binary_bytes(exe),
           "sequence": sequence,
           "encode_ours": ours["encode_tokens_per_s"], "encode_torch": sequence / best,
           "encode_flops_per_token": flops}
    print("# %s: %s" % (shape, json.dumps(row)), flush=True)
    return row


ROOFLINE_ROUNDS = 5


def cache_bytes_per_step(shape, prompt_tokens, steps, element_bytes=4):
    """KV-cache bytes a decode step reads, on average over the bench's steps:
    every layer's keys and values of each position attended so far (the
    prompt's, the earlier steps' and its own; the step after a prompt of P
    tokens attends P + 1), `element_bytes` each (the bench compiles an f32
    cache)."""
    _, dim, _, layers, heads, kv_heads = SHAPES[shape][:6]
    mean_positions = prompt_tokens + (steps + 1) / 2
    return 2 * layers * kv_heads * (dim // heads) * element_bytes * mean_positions


def interleaved_roofline(args, exe, decode_bytes, work, cache_bytes=0):
    """Decode against the read bandwidth measured right next to it: rounds
    of (read kernel, our decode), each round's ratio from its own pair, and
    the median over the rounds. The table's %bw divides by the best bandwidth
    of the whole run, so on a shared machine a busy minute during the decode
    measurement and a quiet one during the read kernel's lowers it; here
    both halves of a ratio see the same minute. With `cache_bytes`, each
    round's ratio counting the KV-cache bytes a step reads too."""
    pcts, with_cache = [], []
    for _ in range(ROOFLINE_ROUNDS):
        bandwidth = read_bandwidth(args.threads, work)
        out = subprocess.run([exe, "--bench", "--prompt-tokens", str(args.prompt_tokens),
                              "-n", str(args.steps), "--threads", str(args.threads)],
                             check=True, capture_output=True, text=True,
                             env=caller_environment())
        decode = json.loads(out.stdout.strip().splitlines()[-1])["decode_tokens_per_s"]
        pcts.append(100 * decode * decode_bytes / bandwidth)
        with_cache.append(100 * decode * (decode_bytes + cache_bytes) / bandwidth)
    pcts.sort()
    with_cache.sort()
    return {"paired_roofline_pcts": pcts,
            "paired_roofline_median_pct": pcts[len(pcts) // 2],
            "paired_roofline_with_cache_pcts": with_cache,
            "paired_roofline_with_cache_median_pct": with_cache[len(with_cache) // 2]}


def attention_share(args, model, extra, exe, kv_cache):
    """Decode at the start of a context of T positions and at its end, same
    binary, same process: the step's growth is what attending ~T cached keys
    costs (KV-cache traffic included). The binary alternates 16-step bursts
    at both places (--far-position), so a busy moment on a shared machine
    slows both alike. `kv_cache` is the cache's element type."""
    total = args.attention_context
    steps = args.steps
    far = total - steps - 8
    if far <= 8:
        raise SystemExit("--attention-context must exceed -n + 16")
    subprocess.run([args.tfmc, "compile", model, *extra, "--context", str(total),
                    *([] if kv_cache == "f32" else ["--kv-cache=" + kv_cache]), "-o", exe],
                   check=True, env=caller_environment())
    out = subprocess.run([exe, "--bench", "--prompt-tokens", "8", "-n", str(steps),
                          "--far-position", str(far), "--threads", str(args.threads)],
                         check=True, capture_output=True, text=True,
                         env=caller_environment())
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return {"decode_near_start": result["interleaved_near_tokens_per_s"],
            "decode_near_end": result["interleaved_far_tokens_per_s"],
            "end_positions": [far, far + steps - 1],
            "attention_share_pct": result["far_slowdown_pct"]}


def print_table(args, rows, machine):
    encoders = [r for r in rows if "encode_ours" in r]
    rows = [r for r in rows if "encode_ours" not in r]
    if encoders:
        print()
        print(machine)
        print("encoders: tok/s of one encode call over the whole sequence, %d threads"
              % args.threads)
        head = ("%-12s %8s %10s %10s %7s %7s %7s | %8s %9s"
                % ("shape", "sequence", "enc ours", "enc torch", "ratio", "%sgemm",
                   "%sg pt", "compile", "size MB"))
        print(head)
        print("-" * len(head))
        for r in encoders:
            print("%-12s %8d %10.1f %10.1f %7.3f %6.1f%% %6.1f%% | %7.1fs %9.1f"
                  % (r["shape"], r["sequence"], r["encode_ours"], r["encode_torch"],
                     r["encode_ours"] / r["encode_torch"], r["encode_sgemm_pct"],
                     r["torch_encode_sgemm_pct"], r["compile_s"], r["binary_bytes"] / 1e6))
    if not rows:
        return
    # The weight column as wide as its longest name (q4_0-f32-inputs).
    wts = max([6] + [len(r["weights"]) for r in rows])
    # The shape column as wide as its longest name (tinyllama-1.1B).
    shp = max([12] + [len(r["shape"]) for r in rows])
    head = ("%-*s %-*s %8s %10s %10s %7s %7s %7s | %10s %10s %7s %7s %7s | %8s %9s"
            % (shp, "shape", wts, "wts", "MB/tok", "dec ours", "dec torch", "ratio", "%bw",
               "%bw pt", "pre ours", "pre torch", "ratio", "%sgemm", "%sg pt", "compile",
               "size MB"))
    print()
    print(machine)
    print("tok/s at %d threads; prefill %d tokens, decode %d tokens after it"
          % (args.threads, args.prompt_tokens, args.steps))
    print(head)
    print("-" * len(head))
    for r in rows:
        print("%-*s %-*s %8.1f %10.1f %10.1f %7.3f %6.1f%% %6.1f%% | %10.1f %10.1f %7.3f"
              " %6.1f%% %6.1f%% | %7.1fs %9.1f"
              % (shp, r["shape"], wts, r["weights"], r["decode_bytes"] / 1e6, r["decode_ours"],
                 r["decode_torch"],
                 r["decode_ours"] / r["decode_torch"], r["decode_roofline_pct"],
                 r["torch_decode_roofline_pct"], r["prefill_ours"], r["prefill_torch"],
                 r["prefill_ours"] / r["prefill_torch"], r["prefill_sgemm_pct"],
                 r["torch_prefill_sgemm_pct"], r["compile_s"], r["binary_bytes"] / 1e6))
    random = sorted({r["shape"] for r in rows if r["random_weights"]})
    if random:
        print("%s: random weights (tfmc compile --random-weights): the size holds no"
              " weights (the binary fills them at load); MB/tok is --info's weights less"
              " an untied f32 embedding table" % ", ".join(random))
    print()
    print("decode roofline, paired: %d rounds of (read kernel, decode); each round's"
          " bytes x tok/s over its own bandwidth, the bytes a step's weights (as %%bw)"
          " and with them the KV cache it reads (cache MB/tok: the mean over the decode's"
          " positions, f32)" % ROOFLINE_ROUNDS)
    print("%-*s %-*s %7s %17s %13s %7s %17s"
          % (shp, "shape", wts, "wts", "median", "range", "cache MB/tok", "median", "range"))
    for r in rows:
        pcts = r["paired_roofline_pcts"]
        cached = r["paired_roofline_with_cache_pcts"]
        print("%-*s %-*s %6.1f%% %7.1f%% - %5.1f%% %13.1f %6.1f%% %7.1f%% - %5.1f%%"
              % (shp, r["shape"], wts, r["weights"], r["paired_roofline_median_pct"],
                 pcts[0], pcts[-1], r["cache_bytes"] / 1e6,
                 r["paired_roofline_with_cache_median_pct"], cached[0], cached[-1]))
    moe_rows = [r for r in rows if r["shape"] in EXPERTS]
    if moe_rows:
        print()
        print("mixtures of experts: weight bytes a decode step reads (its chosen experts)"
              " against all the model's weights")
        print("%-14s %8s %12s %12s %7s" % ("shape", "experts", "active MB", "total MB",
                                          "active"))
        for r in moe_rows:
            experts, top_k = EXPERTS[r["shape"]]
            print("%-14s %4d of %d %12.1f %12.1f %6.1f%%"
                  % (r["shape"], top_k, experts, r["decode_bytes"] / 1e6,
                     r["total_bytes"] / 1e6, 100 * r["decode_bytes"] / r["total_bytes"]))
    long_rows = [r for r in rows if "attention" in r]
    if args.attention_context:
        print()
        if not long_rows:
            print("attention at context %d: no shape has that context"
                  % args.attention_context)
            return
        print("attention at context %d: decode tok/s at positions 8..%d and %d..%d of the"
              " same binary, interleaved; share = 1 - end / start"
              % (args.attention_context, 8 + args.steps - 1,
                 *next(iter(long_rows[0]["attention"].values()))["end_positions"]))
        print("%-*s %4s %8s %10s %10s %7s" % (shp, "shape", "wts", "kv cache", "dec start",
                                                   "dec end", "share"))
        for r in long_rows:
            for kv, a in r["attention"].items():
                print("%-*s %4s %8s %10.1f %10.1f %6.1f%%"
                      % (shp, r["shape"], r["weights"], kv, a["decode_near_start"],
                         a["decode_near_end"], a["attention_share_pct"]))


if __name__ == "__main__":
    sys.exit(main())
