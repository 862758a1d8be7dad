#!/usr/bin/env python3
"""Peak resident memory of two runs of the same generation, compared.

usage: peak_rss.py MAX_EXTRA_MIB LARGE_EXE SMALL_EXE ARGS...

Runs each executable with ARGS and prints PASS when LARGE_EXE's peak RSS
exceeds SMALL_EXE's by less than MAX_EXTRA_MIB: a KV cache and scratch
cost the memory of the positions used, not of the context compiled for.
Each run is a child of its own process, so that ru_maxrss is its own.
"""
import resource
import subprocess
import sys


def peak_rss_kib(command):
    probe = ("import resource, subprocess, sys;"
             "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True);"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", probe, *command],
                         stdout=subprocess.PIPE, check=True, text=True)
    return int(out.stdout.strip())


def main():
    max_extra_mib, large, small, *args = sys.argv[1:]
    large_kib = peak_rss_kib([large, *args])
    small_kib = peak_rss_kib([small, *args])
    extra_mib = (large_kib - small_kib) / 1024
    ok = extra_mib < float(max_extra_mib)
    print("%s: peak RSS %.1f MiB against %.1f MiB (%+.1f MiB, limit %s)"
          % ("PASS" if ok else "FAIL", large_kib / 1024, small_kib / 1024,
             extra_mib, max_extra_mib))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
