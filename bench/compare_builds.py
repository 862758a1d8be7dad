#!/usr/bin/python3
"""Two tfmc builds side by side: each shape and weight type compiled by
both, then rounds of the two binaries' --bench, alternating which runs
first, on the same weights. A change to the compiler or the runtime is
measured against the build before it in one run, so a busy moment on a
shared machine slows both alike; the table gives each build's median
and range and the ratio of the medians (B over A). See bench/README.md.

  /usr/bin/python3 bench/compare_builds.py A/bin/tfmc B/bin/tfmc
      [--shapes stories15M,stories110M] [--weights f32,q8_0,q4_0,q4_k_m]
      [--rounds 8] [--threads 2] [--prompt-tokens 128] [-n 128]

The weights are written once per shape (run_bench.py's writers: a
llama2.c checkpoint, or a GGUF file for q4_k_m / q5_k_m / q6_k), real
random values rather than --random-weights, so that builds from before
that option compare too.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench  # noqa: E402


def bench(exe, args):
    out = subprocess.run([exe, "--bench", "--prompt-tokens", str(args.prompt_tokens),
                          "-n", str(args.steps), "--threads", str(args.threads)],
                         check=True, capture_output=True, text=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return result["decode_tokens_per_s"], result["prefill_tokens_per_s"]


def compare(args, shape, weights, work):
    """{build: ([decode tok/s], [prefill tok/s])} over the rounds."""
    directory = os.path.join(work, "%s-%s" % (shape, weights))
    os.makedirs(directory)
    if weights in run_bench.FILE_TYPES:
        model, extra = run_bench.write_quantized_gguf(shape, directory, args.models, weights)
    else:
        model, extra = run_bench.write_model(shape, directory, args.models)
        if weights != "f32":
            extra = extra + ["--weights=" + weights]
    exes = []
    for name, tfmc in (("a", args.a), ("b", args.b)):
        exe = os.path.join(directory, "model-" + name)
        subprocess.run([tfmc, "compile", model, *extra, "-o", exe], check=True)
        exes.append(exe)
    runs = {0: ([], []), 1: ([], [])}
    for round_index in range(args.rounds):
        for build in ((0, 1) if round_index % 2 == 0 else (1, 0)):
            decode, prefill = bench(exes[build], args)
            runs[build][0].append(decode)
            runs[build][1].append(prefill)
    return runs


def cell(values):
    return "%9.1f (%7.1f-%7.1f)" % (statistics.median(values), min(values), max(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", help="build A's tfmc (the one before)")
    parser.add_argument("b", help="build B's tfmc (the one after)")
    parser.add_argument("--shapes", default="stories15M")
    parser.add_argument("--weights", default="f32")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--prompt-tokens", type=int, default=128)
    parser.add_argument("-n", dest="steps", type=int, default=128)
    parser.add_argument("--models", default=os.path.join(run_bench.ROOT, "..", "shared", "models"),
                        help="directory with tokenizer.bin")
    args = parser.parse_args()
    shapes = args.shapes.split(",")
    for shape in shapes:
        if shape not in run_bench.SHAPES or run_bench.SHAPES[shape][0] != "llama":
            raise SystemExit("compare_builds.py: %s is not a LLaMA shape of run_bench.py" % shape)
        if shape in run_bench.RANDOM_WEIGHTS:
            raise SystemExit("compare_builds.py: %s is only benched with --random-weights" % shape)
    kinds = ("f32", "f16", "bf16", "q8_0", "q4_0") + run_bench.FILE_TYPES
    weight_types = args.weights.split(",")
    for weights in weight_types:
        if weights not in kinds:
            raise SystemExit("compare_builds.py: unknown weight type %s (expected one of %s)"
                             % (weights, ", ".join(kinds)))
    if args.rounds < 1:
        raise SystemExit("compare_builds.py: --rounds must be positive")
    print("A: %s\nB: %s\n%d threads; prefill %d tokens, decode %d; %d rounds, alternating"
          " which build runs first; tok/s median (range)"
          % (args.a, args.b, args.threads, args.prompt_tokens, args.steps, args.rounds))
    print("%-12s %-7s %-28s %-28s %6s | %-28s %-28s %6s"
          % ("shape", "wts", "decode A", "decode B", "B/A", "prefill A", "prefill B", "B/A"))
    with tempfile.TemporaryDirectory(prefix="tfmc-compare-") as work:
        for shape in shapes:
            for weights in weight_types:
                runs = compare(args, shape, weights, work)
                (decode_a, prefill_a), (decode_b, prefill_b) = runs[0], runs[1]
                print("%-12s %-7s %s %s %6.3f | %s %s %6.3f" % (
                    shape, weights, cell(decode_a), cell(decode_b),
                    statistics.median(decode_b) / statistics.median(decode_a),
                    cell(prefill_a), cell(prefill_b),
                    statistics.median(prefill_b) / statistics.median(prefill_a)), flush=True)


if __name__ == "__main__":
    main()
