#!/usr/bin/env python3
"""Assembles every NAME.ptx in DIR with CUDA's ptxas for each ARCH and
prints, per kernel entry, its registers and spill bytes (ptxas -v):

  NAME ARCH ENTRY: registers R, spills S

Exits 1, with ptxas's messages, when a file does not assemble.

usage: ptxas-check.py PTXAS DIR ARCH...
"""
import os
import re
import subprocess
import sys


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    ptxas, directory, archs = argv[1], argv[2], argv[3:]
    files = sorted(f for f in os.listdir(directory) if f.endswith(".ptx"))
    if not files:
        print("no .ptx files in %s" % directory)
        return 1
    status = 0
    for arch in archs:
        for name in files:
            result = subprocess.run(
                [ptxas, "-arch=" + arch, "-v", os.path.join(directory, name),
                 "-o", os.devnull], capture_output=True, text=True)
            if result.returncode != 0:
                print("%s %s: FAILED\n%s" % (name[:-4], arch, result.stderr))
                status = 1
                continue
            entry = None
            spills = 0
            for line in result.stderr.splitlines():
                m = re.search(r"Compiling entry function '([^']+)'", line)
                if m:
                    entry, spills = m.group(1), 0
                m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads",
                              line)
                if m:
                    spills = int(m.group(1)) + int(m.group(2))
                m = re.search(r"Used (\d+) registers", line)
                if m and entry:
                    print("%s %s %s: registers %s, spills %d"
                          % (name[:-4], arch, entry, m.group(1), spills))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
