#!/usr/bin/env python3
"""Builds Inputs/adapter-main.cpp against one kernel tfmc-halide-gen wrote
into DIR with a runtime (DIR/runtime.o), and the runtime's adapter
(libtfmrt_halide.a), with the compiler and flags of the build
(harness.cfg): DIR/adapter-check.

usage: build-adapter-check.py HARNESS_CFG KERNEL DIR
"""
import os
import shlex
import subprocess
import sys


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    cfg, kernel, directory = argv[1:4]
    values = {}
    with open(cfg) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("=")
            values[key] = value
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "adapter-main.cpp")
    command = [values["cxx"]] + shlex.split(values["flags"])
    command += ["-include", os.path.join(directory, kernel + ".h"),
                "-DKERNEL=" + kernel, source,
                os.path.join(directory, kernel + ".a"),
                os.path.join(directory, "runtime.o")]
    command += shlex.split(values["adapter"]) + ["-lpthread", "-ldl"]
    command += ["-o", os.path.join(directory, "adapter-check")]
    return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
