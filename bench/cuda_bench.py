#!/usr/bin/python3
"""tfmc's CUDA executables against PyTorch on the same GPU and against the
GPU's memory bandwidth, at real model shapes, measured in one run.

The machine that builds tfmc has no GPU and the GPU machine no MLIR, and a
1.1B-parameter model's binary is gigabytes: so --bundle compiles each shape
here with `tfmc compile --random-weights --target=cuda` (the weights are
filled from a seed when the binary loads: a few MiB per shape), with
bench/cuda_bandwidth.c built, this script and the PyTorch peer beside them;
`python3 DIR/cuda_bench.py --run-bundle DIR` on the GPU machine then runs
each binary's --bench, the peer (bench/cuda_torch_peer.py: transformers'
LlamaForCausalLM of the same shape, f32 without TF32 and bf16, where python3
has torch with CUDA) and the device-to-device copy rate, and prints a table:
tokens/s of both and the bytes of weights a decode step reads per second
against the copy rate (bytes read and written).

Before timing, each CUDA binary's logits are checked against a CPU binary of
the same shape compiled with --pack-weights=false, whose weights layout (so
whose filled weights) is the CUDA one's: prefill and decode of 16 ids, 1e-4
relative (test/e2e/Inputs/compare_logits.py).

A shape named NAME:bf16 is NAME compiled with --weights=bf16 (its
projection matrices in bf16, half the bytes), NAME:q8_0 and NAME:q4_0 with
--weights=q8_0 / q4_0 (GGUF blocks the kernels dequantize in registers:
8.5 and 4.5 bits a value), NAME:q4_k_m a GGUF file of NAME whose tensors
are Q4_K_M's k-quants (bench/gguf_shape.py), kept in their blocks. Their logits are not checked here: no CPU
binary shares their random weights (the CPU's matrices are packed panels,
another layout); test/e2e/cuda-logits.test and cuda-logits-blocks.test
check them on tiny models with real weights.

Besides the LLaMA shapes of bench/llama2c_shape.py, mixtral-4x2048 is a
mixture of experts (4 layers 2048 wide, 8 SwiGLU experts of 5632, 2 chosen
per token; a GGUF file of bench/gguf_shape.py): its GB/s count the weights
a decode step reads, the 2 chosen experts of each layer, and it has no
PyTorch peer.

  /usr/bin/python3 bench/cuda_bench.py --bundle DIR [--tfmc PATH]
                   [--shapes stories110M,tinyllama-1.1B:bf16,...]
  python3 DIR/cuda_bench.py --run-bundle DIR [--prompt-tokens P] [-n N]
                            [--no-peer]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Mixtures of experts (Mixtral GGUF files of f32 tensors): dim, hidden,
# layers, heads, kv_heads, vocab, context, experts, top_k.
MOE_SHAPES = {
    "mixtral-4x2048": (2048, 5632, 4, 32, 4, 32000, 2048, 8, 2),
}


# Weights a shape takes as its GGUF file's blocks (bench/gguf_shape.py
# --type), not through --weights.
GGUF_WEIGHTS = ("q4_k_m",)


def write_model(name, model, llama_shapes, gguf_type=None):
    """Writes shape `name` into directory `model` (a GGUF file of
    `gguf_type`'s blocks, if given): the model's path and its shape's
    fields."""
    if gguf_type:
        dim, hidden, layers, heads, kv_heads, vocab, context, untied = \
            llama_shapes[name]
        subprocess.check_call([
            sys.executable, os.path.join(ROOT, "bench", "gguf_shape.py"),
            model, "--type", gguf_type, "--shape", name] +
            (["--untied"] if untied else []), stdout=subprocess.DEVNULL)
        return os.path.join(model, "model.gguf"), {
            "dim": dim, "hidden": hidden, "layers": layers, "heads": heads,
            "kv_heads": kv_heads, "vocab": vocab, "untied": untied}
    if name in MOE_SHAPES:
        dim, hidden, layers, heads, kv_heads, vocab, context, experts, \
            top_k = MOE_SHAPES[name]
        subprocess.check_call([
            sys.executable, os.path.join(ROOT, "bench", "gguf_shape.py"),
            model, "--type", "f32", "--dim", str(dim), "--hidden",
            str(hidden), "--layers", str(layers), "--heads", str(heads),
            "--kv-heads", str(kv_heads), "--vocab", str(vocab), "--context",
            str(context), "--untied", "--experts", str(experts), "--top-k",
            str(top_k)], stdout=subprocess.DEVNULL)
        return os.path.join(model, "model.gguf"), {
            "dim": dim, "hidden": hidden, "layers": layers, "heads": heads,
            "kv_heads": kv_heads, "vocab": vocab, "untied": True,
            "experts": experts, "top_k": top_k}
    subprocess.check_call([sys.executable,
                           os.path.join(ROOT, "bench", "llama2c_shape.py"),
                           model, "--shape", name])
    dim, hidden, layers, heads, kv_heads, vocab, context, untied = \
        llama_shapes[name]
    return os.path.join(model, "model.bin"), {
        "dim": dim, "hidden": hidden, "layers": layers, "heads": heads,
        "kv_heads": kv_heads, "vocab": vocab, "untied": untied}


def binary_name(target, shape):
    """The file of `shape`'s binary for `target` (no ':' in file names)."""
    return target + "-" + shape.replace(":", "-")


def make_bundle(args):
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from llama2c_shape import SHAPES
    out = os.path.abspath(args.bundle)
    os.makedirs(out, exist_ok=True)
    shapes = {}
    with tempfile.TemporaryDirectory(prefix="tfmc-cuda-bench-") as work:
        for name in args.shapes.split(","):
            shape, _, weights = name.partition(":")
            if shape not in SHAPES and shape not in MOE_SHAPES:
                sys.exit("unknown shape %r (known: %s)"
                         % (shape, ", ".join(sorted(list(SHAPES) +
                                                    list(MOE_SHAPES)))))
            if weights not in ("", "bf16", "q8_0", "q4_0") + GGUF_WEIGHTS:
                sys.exit("unknown weights %r in %r (known: bf16, q8_0, "
                         "q4_0, q4_k_m)" % (weights, name))
            if weights in GGUF_WEIGHTS and shape not in SHAPES:
                sys.exit("%r: %s is a GGUF file of a LLaMA shape"
                         % (name, weights))
            model = os.path.join(work, name)
            path, shapes[name] = write_model(
                shape, model, SHAPES,
                weights if weights in GGUF_WEIGHTS else None)
            compile_model = [
                args.tfmc, "compile", path,
                "--tokenizer", os.path.join(model, "tokenizer.bin"),
                "--random-weights"]
            if weights:
                shapes[name]["weights"] = weights
                asked = ([] if weights in GGUF_WEIGHTS else
                         ["--weights=" + weights])
                subprocess.check_call(compile_model + [
                    "--target=cuda"] + asked + [
                    "-o", os.path.join(out, binary_name("cuda", name))])
                continue
            subprocess.check_call(compile_model + [
                "--target=cuda", "-o",
                os.path.join(out, binary_name("cuda", name))])
            # The oracle: row-major weights, as the CUDA binary's.
            subprocess.check_call(compile_model + [
                "--pack-weights=false", "--target-cpu=x86-64-v3", "-o",
                os.path.join(out, binary_name("cpu", name))])
    subprocess.check_call(["gcc", "-O2", os.path.join(ROOT, "bench",
                                                      "cuda_bandwidth.c"),
                           "-o", os.path.join(out, "cuda_bandwidth"), "-ldl"])
    for script in ("bench/cuda_bench.py", "bench/cuda_torch_peer.py",
                   "test/e2e/Inputs/compare_logits.py"):
        shutil.copy(os.path.join(ROOT, script), out)
    # The OpenMP runtime the CPU binaries load.
    os.makedirs(os.path.join(out, "lib"), exist_ok=True)
    shutil.copy("/usr/lib/llvm-22/lib/libomp.so.5", os.path.join(out, "lib"))
    with open(os.path.join(out, "shapes.json"), "w") as f:
        json.dump(shapes, f, indent=1)
    print("wrote %s: run `python3 %s/cuda_bench.py --run-bundle %s` on the "
          "GPU machine" % (out, out, out))


def info_field(binary, pattern):
    info = subprocess.check_output([binary, "--info"], text=True)
    return re.search(pattern, info, re.M).group(1)


def weights_bytes(binary, shape):
    """The bytes of weights a decode step reads: all of them, but of a
    mixture of experts only the chosen experts' (gate, up and down), and of
    a token table apart from the classifier only one row. Experts are bf16
    with --weights=bf16, else f32; a table is in the weights' type (its
    blocks: Q8_0 34 bytes a 32 values, Q4_0 18, Q4_K unpacked 24)."""
    total = int(info_field(binary, r"^weights: (\d+) bytes"))
    weights = shape.get("weights", "f32")
    unread = shape.get("experts", 0) - shape.get("top_k", 0)
    expert = 2 if weights == "bf16" else 4
    total -= unread * shape["layers"] * 3 * shape["dim"] * shape["hidden"] * \
        expert
    if shape.get("untied"):
        table = {"f32": 4, "bf16": 2, "q8_0": 34 / 32, "q4_0": 18 / 32,
                 "q4_k_m": 24 / 32}[weights]
        total -= int((shape["vocab"] - 1) * shape["dim"] * table)
    return total


def check_logits(directory, name, shape):
    """The CUDA binary's logits against the CPU oracle's; True when equal
    (or, for bf16 weights, not checked)."""
    if "weights" in shape:
        print("%s: not checked: no CPU binary shares its random %s weights "
              "(cuda-logits.test checks them on a tiny model)"
              % (name, shape["weights"]))
        return True
    vocab = shape["vocab"]
    cuda = os.path.join(directory, binary_name("cuda", name))
    cpu = os.path.join(directory, binary_name("cpu", name))
    layout = r"^weights layout hash: (\S+)"
    if info_field(cuda, layout) != info_field(cpu, layout):
        print("%s: not checked: the CPU binary's weights layout is not the "
              "CUDA one's, so their random weights differ" % name)
        return False
    ids = "1,7,30,45,12,99,25,3,51,0,17,26,88,41,5,77"
    passed = True
    with tempfile.TemporaryDirectory(prefix="tfmc-cuda-check-") as work:
        for mode, extra in (("prefill", []), ("decode", ["--decode-only"])):
            dumps = []
            for binary in (cpu, cuda):
                dumps.append(os.path.join(
                    work, os.path.basename(binary) + "." + mode))
                subprocess.check_call([binary, "--dump-logits", dumps[-1],
                                       "--token-ids", ids] + extra)
            result = subprocess.run(
                [sys.executable, os.path.join(directory, "compare_logits.py"),
                 dumps[0], dumps[1], "--vocab", str(vocab)],
                stdout=subprocess.PIPE, text=True)
            print("%s %s: %s" % (name, mode, result.stdout.strip()))
            passed &= result.returncode == 0
    return passed


def torch_peer(directory, shape, args):
    """The peer's rows by dtype, or {} where torch has no CUDA here."""
    try:
        import torch
        import transformers  # noqa: F401
        if not torch.cuda.is_available():
            return {}
    except ImportError:
        return {}
    command = [sys.executable, os.path.join(directory, "cuda_torch_peer.py"),
               "--prompt-tokens", str(args.prompt_tokens), "-n", str(args.n)]
    for key in ("dim", "hidden", "layers", "heads", "kv_heads", "vocab"):
        command += ["--" + key.replace("_", "-"), str(shape[key])]
    if shape["untied"]:
        command.append("--untied")
    rows = {}
    for line in subprocess.check_output(command, text=True).splitlines():
        row = json.loads(line)
        rows[row["dtype"]] = row
    return rows


def run_bundle(args):
    directory = os.path.abspath(args.run_bundle)
    with open(os.path.join(directory, "shapes.json")) as f:
        shapes = json.load(f)
    os.environ["LD_LIBRARY_PATH"] = os.path.join(directory, "lib")
    checked = all([check_logits(directory, name, shape)
                   for name, shape in shapes.items()])
    out = subprocess.check_output([os.path.join(directory, "cuda_bandwidth")],
                                  text=True)
    copy_rate = json.loads(out.strip().splitlines()[-1])["moved_gb_per_s"]
    print("device-to-device copy: %.1f GB/s moved (read + written)"
          % copy_rate)
    header = ("%-16s %-14s %12s %12s %10s %14s" %
              ("shape", "who", "prefill t/s", "decode t/s", "GB/s",
               "of copy rate"))
    rows = []
    for name, shape in shapes.items():
        binary = os.path.join(directory, binary_name("cuda", name))
        bench = subprocess.check_output(
            [binary, "--bench", "--prompt-tokens", str(args.prompt_tokens),
             "-n", str(args.n)], text=True)
        tfmc = json.loads(bench.strip().splitlines()[-1])
        read = weights_bytes(binary, shape)
        rows.append((name, "tfmc " + shape.get("weights", "f32"),
                     tfmc["prefill_tokens_per_s"], tfmc["decode_tokens_per_s"],
                     read))
        # One peer per shape: its rows time f32 and bf16.
        peers = ({} if args.no_peer or "experts" in shape or
                 "weights" in shape else torch_peer(directory, shape, args))
        for dtype, peer in peers.items():
            rows.append((name, "torch " + dtype, peer["prefill_tokens_per_s"],
                         peer["decode_tokens_per_s"], peer["weights_bytes"]))
    print(header)
    for name, who, prefill, decode, read in rows:
        rate = read * decode / 1e9
        print("%-16s %-14s %12.1f %12.1f %10.1f %13.0f%%" %
              (name, who, prefill, decode, rate, 100 * rate / copy_rate))
    print("(GB/s: the weights a decode step reads, once per token; the KV "
          "cache and activations are not counted)")
    if not checked:
        sys.exit("the CUDA logits differ from the CPU ones (above)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--bundle", metavar="DIR")
    mode.add_argument("--run-bundle", metavar="DIR")
    parser.add_argument("--tfmc", default=os.path.join(ROOT, "build", "bin",
                                                       "tfmc"))
    parser.add_argument("--shapes",
                        default="stories110M,tinyllama-1.1B,"
                        "tinyllama-1.1B:bf16,tinyllama-1.1B:q8_0,"
                        "tinyllama-1.1B:q4_0,tinyllama-1.1B:q4_k_m,"
                        "mixtral-4x2048,mixtral-4x2048:bf16")
    parser.add_argument("--prompt-tokens", type=int, default=128)
    parser.add_argument("-n", type=int, default=128)
    parser.add_argument("--no-peer", action="store_true",
                        help="time tfmc's binaries only")
    args = parser.parse_args()
    if args.bundle:
        make_bundle(args)
    else:
        run_bundle(args)


if __name__ == "__main__":
    main()
