#!/usr/bin/env python3
"""Halide kernel throughput against this machine's limits, measured in the
same run (not a test: numbers depend on the machine and its load).

Builds benchmark-shaped kernels with tfmc-halide-gen, links them into the
test harness (test/halide/harness, whose --bench N times N calls after
checking the values), and prints per kernel the median time and its rate:
  - decode GEMV: weight bytes read per second, against the read bandwidth
    bench/bandwidth.c measures (the roofline of a decode step);
  - prefill GEMM: GFLOP/s, against PyTorch's sgemm on the same threads
    (Debian's OpenBLAS), when /usr/bin/python3 has torch;
  - decode attention: KV-cache bytes read per second, against the read
    bandwidth;
  - decode MoE experts: the chosen experts' weight bytes read per second,
    against the read bandwidth.
Halide's thread pool gets --threads threads (HL_NUM_THREADS).

With --device=cuda the kernels are CUDA kernels and the limits the GPU's:
the machine that builds them has no GPU and the GPU machine no Halide, so
--bundle DIR writes the kernels, the harness, bench/cuda_bandwidth.c built
and this script into DIR, and `python3 DIR/halide-bench.py --run-bundle DIR`
on the GPU machine measures them (the harness keeps each kernel's data on
the device while timed): GB/s against the device-to-device copy rate
cuda_bandwidth measures (bytes read and written), GFLOP/s against
PyTorch's f32 matmul on the GPU (TF32 off) where python3 has torch with CUDA.

usage: halide-bench.py [--build DIR] [--threads T] [--features F1,F2,...]
                       [--schedules hand,adams2019,...] [--calls N]
       halide-bench.py --device=cuda [--cuda-capability N]
                       [--schedules hand,li2018] --bundle DIR
       halide-bench.py --run-bundle DIR [--calls N]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# The schedulers tfmc-halide-gen knows (--halide-autoschedule).
SCHEDULES = ("hand", "adams2019", "li2018", "mullapudi2016")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..",
                                    "..", ".."))


def host_features():
    flags = set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    features = [name for flag, name in (("avx2", "avx2"), ("fma", "fma"),
                                        ("f16c", "f16c")) if flag in flags]
    for name, needs in (("avx512", {"avx512f", "avx512cd"}),
                        ("avx512_skylake", {"avx512vl", "avx512bw",
                                            "avx512dq"})):
        if not needs <= flags:
            break
        features.append(name)
    return features


def kernels(features, threads, device):
    target = {"features": features, "threads": threads}
    gpu = device != "none"
    out = []
    # Decode: one row through a matrix well beyond the last-level cache.
    for weight, rows in (("f32", 8192), ("f16", 16384), ("bf16", 16384),
                         ("q8_0", 16384), ("q4_0", 16384), ("q4_k", 16384),
                         ("q6_k", 16384)):
        out.append({"name": "gemv_" + weight, "kind": "projection",
                    "target": target, "rows": 1, "in_features": 4096,
                    "out_features": rows, "weight": weight})
    # Prefill: a chunk of 32 rows (tfmc's default), llama-110m's widths; on
    # a GPU a 512-token prompt through TinyLlama-1.1B's FFN.
    rows, k, n = (512, 2048, 5632) if gpu else (32, 768, 3072)
    for weight in ("f32", "f16", "q4_0") if gpu else ("f32", "q4_0"):
        out.append({"name": "gemm_" + weight, "kind": "projection",
                    "target": target, "rows": rows, "in_features": k,
                    "out_features": n, "weight": weight})
    # A decode step's mixture of experts: 2 of 8 SwiGLU experts of
    # TinyLlama-1.1B's FFN widths (each matrix beyond the last-level cache
    # in f32).
    for weight in ("f32", "q4_0"):
        out.append({"name": "experts_" + weight, "kind": "moe-experts",
                    "target": target, "rows": 1, "in_features": 2048,
                    "hidden": 5632, "experts": 8, "top_k": 2, "gate": weight,
                    "up": weight, "down": weight})
    # Decode attention at the end of a 4096-position cache, 32 heads.
    for cache in ("f32", "f16") if gpu else ("f32",):
        out.append({"name": "attention_decode_" + cache, "kind": "attention",
                    "target": target, "rows": 1, "heads": 32, "kv_heads": 8,
                    "head_dim": 128, "positions": 4096, "cache": cache})
    return out


BLOCKS = {"f32": (1, 4), "f16": (1, 2), "bf16": (1, 2), "q8_0": (32, 34),
          "q4_0": (32, 18), "q4_k": (256, 144), "q6_k": (256, 210)}


def stored_bytes(kernel):
    """The bytes of weights one call reads: a projection's matrix, or the
    chosen experts' gate, up and down rows."""
    if kernel["kind"] == "moe-experts":
        total = 0
        for matrix in ("gate", "up", "down"):
            elements, size = BLOCKS[kernel.get(matrix, "f32")]
            total += (kernel["hidden"] * kernel["in_features"] // elements *
                      size)
        return kernel["top_k"] * kernel["rows"] * total
    elements, size = BLOCKS[kernel.get("weight", "f32")]
    return kernel["out_features"] * kernel["in_features"] // elements * size


def read_bandwidth(work, threads):
    exe = os.path.join(work, "bandwidth")
    subprocess.check_call(["gcc", "-O3", "-mavx2", "-mfma", "-fopenmp",
                           os.path.join(ROOT, "bench", "bandwidth.c"), "-o",
                           exe])
    out = subprocess.check_output([exe, str(threads)], text=True)
    return json.loads(out.strip().splitlines()[-1])["read_gb_per_s"]


def sgemm_rate(threads, m, k, n, device="cpu"):
    code = """
import ctypes, time, torch
torch.set_num_threads(%d)
try:
    ctypes.CDLL("libopenblas.so.0").openblas_set_num_threads(%d)
except OSError:
    pass
device = "%s"
torch.backends.cuda.matmul.allow_tf32 = False
a = torch.randn(%d, %d, device=device)
b = torch.randn(%d, %d, device=device)
sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
for _ in range(3): a @ b
sync()
best = 1e9
for _ in range(20):
    t = time.perf_counter(); a @ b; sync(); best = min(best, time.perf_counter() - t)
print(2 * %d * %d * %d / best / 1e9)
""" % (threads, threads, device, m, k, k, n, m, k, n)
    try:
        out = subprocess.check_output(
            [sys.executable if device == "cuda" else "/usr/bin/python3",
             "-c", code], text=True,
            env=dict(os.environ, OMP_WAIT_POLICY="PASSIVE"),
            stderr=subprocess.DEVNULL)
        return float(out.strip())
    except (OSError, subprocess.CalledProcessError, ValueError):
        return None


def cache_bytes(kernel):
    element = 2 if kernel.get("cache") == "f16" else 4
    return (2 * kernel["kv_heads"] * kernel["positions"] *
            kernel["head_dim"] * element)


def build(gen, cfg, description, out, schedule, device_flags):
    os.makedirs(out)
    subprocess.check_call(
        [gen, description, "--halide-autoschedule=" + schedule,
         "--runtime=" + os.path.join(out, "runtime.o"), "-o", out] +
        device_flags, stderr=subprocess.DEVNULL)
    subprocess.check_call(
        [sys.executable, os.path.join(ROOT, "test", "halide", "Inputs",
                                      "build-harness.py"),
         cfg, description, out])


def measure(directory, described, schedules, calls, bandwidth, gemm, env):
    """Runs each schedule's harness over the kernels and prints the table."""
    description = os.path.join(directory, "kernels.json")
    print("%-20s %-14s %12s %12s %8s" % ("kernel", "schedule", "us/call",
                                         "rate", "of limit"))
    for schedule in schedules:
        harness = os.path.join(directory, schedule, "harness")
        for kernel in described:
            log = subprocess.run(
                [harness, description, "--kernel", kernel["name"], "--bench",
                 str(calls), "--pos", str(kernel.get("positions", 1) - 1)],
                capture_output=True, text=True, env=env).stdout
            match = re.search(r"median ([0-9.]+) us", log)
            if "PASS" not in log or not match:
                print("%-20s %-14s failed:\n%s" % (kernel["name"], schedule,
                                                   log))
                continue
            seconds = float(match.group(1)) * 1e-6
            if kernel["kind"] == "attention":
                rate = cache_bytes(kernel) / seconds / 1e9
                limit, unit = bandwidth, "GB/s"
            elif kernel["rows"] == 1:
                rate = stored_bytes(kernel) / seconds / 1e9
                limit, unit = bandwidth, "GB/s"
            else:
                rate = (2 * kernel["rows"] * kernel["in_features"] *
                        kernel["out_features"] / seconds / 1e9)
                limit, unit = gemm, "GFLOP/s"
            share = "%7.0f%%" % (100 * rate / limit) if limit else "      -"
            print("%-20s %-14s %12.1f %9.1f %-7s %s" % (
                kernel["name"], schedule, seconds * 1e6, rate, unit, share))


def gemm_shape(described):
    for kernel in described:
        if kernel["kind"] == "projection" and kernel["rows"] > 1:
            return kernel["rows"], kernel["in_features"], kernel["out_features"]
    return None


def run_bundle(directory, calls):
    """On the GPU machine: the limits, then every kernel of the bundle."""
    with open(os.path.join(directory, "kernels.json")) as f:
        bundle = json.load(f)
    out = subprocess.check_output(
        [os.path.join(directory, "cuda_bandwidth")], text=True)
    bandwidth = json.loads(out.strip().splitlines()[-1])["moved_gb_per_s"]
    shape = gemm_shape(bundle["kernels"])
    gemm = sgemm_rate(1, *shape, device="cuda") if shape else None
    print("device-to-device copy: %.1f GB/s moved (read + written)"
          % bandwidth)
    if gemm:
        print("PyTorch f32 matmul %dx%dx%d on the GPU: %.1f GFLOP/s"
              % (shape + (gemm,)))
    schedules = sorted(name for name in os.listdir(directory)
                       if name in SCHEDULES and
                       os.path.exists(os.path.join(directory, name,
                                                   "harness")))
    measure(directory, bundle["kernels"], schedules, calls, bandwidth, gemm,
            dict(os.environ))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--features", default=",".join(host_features()))
    parser.add_argument("--schedules")
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--device", choices=("none", "cuda"), default="none")
    parser.add_argument("--cuda-capability", type=int, default=80)
    parser.add_argument("--bundle", metavar="DIR")
    parser.add_argument("--run-bundle", metavar="DIR")
    args = parser.parse_args(argv[1:])
    if args.run_bundle:
        run_bundle(os.path.abspath(args.run_bundle), args.calls)
        return
    gpu = args.device != "none"
    if gpu != bool(args.bundle):
        sys.exit("--device=cuda builds a bundle for a GPU machine: give it "
                 "--bundle DIR (and only it)")
    schedules = (args.schedules or ("hand" if gpu else "hand,adams2019")
                 ).split(",")
    gen = os.path.join(args.build, "bin", "tfmc-halide-gen")
    cfg = os.path.join(args.build, "test", "halide", "harness.cfg")
    for path in (gen, cfg):
        if not os.path.exists(path):
            sys.exit("missing %s: build tfmc-halide-gen and TfmHalideHarness"
                     % path)
    described = kernels(args.features.split(","), args.threads, args.device)
    if gpu:
        work = os.path.abspath(args.bundle)
        if os.path.exists(work):
            shutil.rmtree(work)
        os.makedirs(work)
    else:
        work = tempfile.mkdtemp(prefix="halide-bench-")
    try:
        description = os.path.join(work, "kernels.json")
        with open(description, "w") as f:
            json.dump({"kernels": described}, f, indent=1)
        device_flags = (["--device=cuda", "--cuda-capability=%d"
                         % args.cuda_capability] if gpu else [])
        for schedule in schedules:
            build(gen, cfg, description, os.path.join(work, schedule),
                  schedule, device_flags)
        if gpu:
            subprocess.check_call(
                ["gcc", "-O2", os.path.join(ROOT, "bench", "cuda_bandwidth.c"),
                 "-o", os.path.join(work, "cuda_bandwidth"), "-ldl"])
            shutil.copy(os.path.abspath(__file__),
                        os.path.join(work, "halide-bench.py"))
            print("wrote %s: run `python3 %s/halide-bench.py --run-bundle %s`"
                  " on the GPU machine" % (work, work, work))
            return
        bandwidth = read_bandwidth(work, args.threads)
        shape = gemm_shape(described)
        gemm = sgemm_rate(args.threads, *shape) if shape else None
        print("read bandwidth: %.1f GB/s (%d threads)" % (bandwidth,
                                                         args.threads))
        if gemm:
            print("PyTorch sgemm %dx%dx%d: %.1f GFLOP/s" % (shape + (gemm,)))
        measure(work, described, schedules, args.calls, bandwidth, gemm,
                dict(os.environ, HL_NUM_THREADS=str(args.threads)))
    finally:
        if not gpu:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv)
