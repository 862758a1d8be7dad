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
    bandwidth.
Halide's thread pool gets --threads threads (HL_NUM_THREADS).

usage: halide-bench.py [--build DIR] [--threads T] [--features F1,F2,...]
                       [--schedules hand,adams2019,...] [--calls N]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

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


def kernels(features, threads):
    target = {"features": features, "threads": threads}
    out = []
    # Decode: one row through a matrix well beyond the last-level cache.
    for weight, rows in (("f32", 8192), ("f16", 16384), ("bf16", 16384),
                         ("q8_0", 16384), ("q4_0", 16384), ("q4_k", 16384),
                         ("q6_k", 16384)):
        out.append({"name": "gemv_" + weight, "kind": "projection",
                    "target": target, "rows": 1, "in_features": 4096,
                    "out_features": rows, "weight": weight})
    # Prefill: a chunk of 32 rows (tfmc's default), llama-110m's widths.
    for weight in ("f32", "q4_0"):
        out.append({"name": "gemm_" + weight, "kind": "projection",
                    "target": target, "rows": 32, "in_features": 768,
                    "out_features": 3072, "weight": weight})
    # Decode attention at the end of a 4096-position f32 cache, 32 heads.
    out.append({"name": "attention_decode", "kind": "attention",
                "target": target, "rows": 1, "heads": 32, "kv_heads": 8,
                "head_dim": 128, "positions": 4096})
    return out


def stored_bytes(kernel):
    block = {"f32": (1, 4), "f16": (1, 2), "bf16": (1, 2), "q8_0": (32, 34),
             "q4_0": (32, 18), "q4_k": (256, 144), "q6_k": (256, 210)}
    elements, size = block[kernel.get("weight", "f32")]
    return kernel["out_features"] * kernel["in_features"] // elements * size


def read_bandwidth(work, threads):
    exe = os.path.join(work, "bandwidth")
    subprocess.check_call(["gcc", "-O3", "-mavx2", "-mfma", "-fopenmp",
                           os.path.join(ROOT, "bench", "bandwidth.c"), "-o",
                           exe])
    out = subprocess.check_output([exe, str(threads)], text=True)
    return json.loads(out.strip().splitlines()[-1])["read_gb_per_s"]


def sgemm_rate(threads, m, k, n):
    code = """
import ctypes, time, torch
torch.set_num_threads(%d)
try:
    ctypes.CDLL("libopenblas.so.0").openblas_set_num_threads(%d)
except OSError:
    pass
a, b = torch.randn(%d, %d), torch.randn(%d, %d)
for _ in range(3): a @ b
best = 1e9
for _ in range(20):
    t = time.perf_counter(); a @ b; best = min(best, time.perf_counter() - t)
print(2 * %d * %d * %d / best / 1e9)
""" % (threads, threads, m, k, k, n, m, k, n)
    try:
        out = subprocess.check_output(
            ["/usr/bin/python3", "-c", code], text=True,
            env=dict(os.environ, OMP_WAIT_POLICY="PASSIVE"),
            stderr=subprocess.DEVNULL)
        return float(out.strip())
    except (OSError, subprocess.CalledProcessError, ValueError):
        return None


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--features", default=",".join(host_features()))
    parser.add_argument("--schedules", default="hand,adams2019")
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args(argv[1:])
    gen = os.path.join(args.build, "bin", "tfmc-halide-gen")
    cfg = os.path.join(args.build, "test", "halide", "harness.cfg")
    for path in (gen, cfg):
        if not os.path.exists(path):
            sys.exit("missing %s: build tfmc-halide-gen and TfmHalideHarness"
                     % path)
    work = tempfile.mkdtemp(prefix="halide-bench-")
    try:
        bandwidth = read_bandwidth(work, args.threads)
        gemm = sgemm_rate(args.threads, 32, 768, 3072)
        print("read bandwidth: %.1f GB/s (%d threads)" % (bandwidth,
                                                         args.threads))
        if gemm:
            print("PyTorch sgemm 32x768x3072: %.1f GFLOP/s" % gemm)
        described = kernels(args.features.split(","), args.threads)
        description = os.path.join(work, "kernels.json")
        with open(description, "w") as f:
            json.dump({"kernels": described}, f, indent=1)
        env = dict(os.environ, HL_NUM_THREADS=str(args.threads))
        print("%-18s %-14s %12s %12s %8s" % ("kernel", "schedule", "us/call",
                                             "rate", "of limit"))
        for schedule in args.schedules.split(","):
            out = os.path.join(work, schedule)
            os.makedirs(out)
            subprocess.check_call(
                [gen, description, "--halide-autoschedule=" + schedule,
                 "--runtime=" + os.path.join(out, "runtime.o"), "-o", out],
                stderr=subprocess.DEVNULL)
            subprocess.check_call(
                ["/usr/bin/python3", os.path.join(ROOT, "test", "halide",
                                                  "Inputs",
                                                  "build-harness.py"),
                 cfg, description, out])
            for kernel in described:
                log = subprocess.run(
                    [os.path.join(out, "harness"), description, "--kernel",
                     kernel["name"], "--bench", str(args.calls), "--pos",
                     "4095"], capture_output=True, text=True, env=env).stdout
                match = re.search(r"median ([0-9.]+) us", log)
                if "PASS" not in log or not match:
                    print("%-18s %-14s failed:\n%s" % (kernel["name"],
                                                       schedule, log))
                    continue
                seconds = float(match.group(1)) * 1e-6
                if kernel["kind"] == "attention":
                    read = (2 * kernel["kv_heads"] * kernel["positions"] *
                            kernel["head_dim"] * 4)
                    rate, limit, unit = read / seconds / 1e9, bandwidth, "GB/s"
                elif kernel["rows"] == 1:
                    rate = stored_bytes(kernel) / seconds / 1e9
                    limit, unit = bandwidth, "GB/s"
                else:
                    rate = (2 * kernel["rows"] * kernel["in_features"] *
                            kernel["out_features"] / seconds / 1e9)
                    limit, unit = gemm, "GFLOP/s"
                share = "%7.0f%%" % (100 * rate / limit) if limit else "      -"
                print("%-18s %-14s %12.1f %7.1f %-4s %s" % (
                    kernel["name"], schedule, seconds * 1e6, rate, unit,
                    share))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv)
