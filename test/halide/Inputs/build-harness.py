#!/usr/bin/env python3
"""Builds the harness of a test/halide test against the kernels of one
description file, which tfmc-halide-gen wrote into DIR with a runtime
(DIR/runtime.o): includes their headers, names them in -DKERNELS and links
their libraries, the runtime and the harness library into DIR/harness
(or OUTPUT), with the compiler and flags of the build (harness.cfg).

usage: build-harness.py HARNESS_CFG DESCRIPTION.json DIR [OUTPUT]
"""
import json
import os
import shlex
import subprocess
import sys


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    cfg, description, directory = argv[1:4]
    output = argv[4] if len(argv) == 5 else os.path.join(directory, "harness")
    values = {}
    with open(cfg) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("=")
            values[key] = value
    with open(description) as f:
        data = json.load(f)
    kernels = data["kernels"] if "kernels" in data else [data]
    names = [kernel["name"] for kernel in kernels]
    main_cpp = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "harness-main.cpp")
    command = [values["cxx"]] + shlex.split(values["flags"])
    for name in names:
        command += ["-include", os.path.join(directory, name + ".h")]
    command += ["-DKERNELS=" + " ".join("X(%s)" % n for n in names), main_cpp]
    command += [os.path.join(directory, name + ".a") for name in names]
    command += [os.path.join(directory, "runtime.o")]
    command += shlex.split(values["libs"]) + ["-o", output]
    return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
