#!/usr/bin/env python3
"""`tfmc` with extra `tfmc compile` flags, for running a suite again with
another code generator (lit --param tfmc_compile_flags="--backend=halide").

usage: tfmc_with_flags.py TFMC "FLAGS" ARGS...
Inserts FLAGS after ARGS' `compile` (before the model) and runs TFMC.
"""
import os
import shlex
import sys

tfmc, flags, args = sys.argv[1], shlex.split(sys.argv[2]), sys.argv[3:]
if args[:1] == ["compile"]:
    args = args[:1] + flags + args[1:]
os.execv(tfmc, [tfmc] + args)
