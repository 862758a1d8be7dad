#!/usr/bin/env python3
"""Checks that a clone without ../shared passes the test suite.

The real checkpoints of ../shared/models are reached only through lit's
`%models` substitution, and a test that uses it must declare
`REQUIRES: shared-models` so that lit reports it UNSUPPORTED (skipped) where
the directory is absent, as on a user's fresh clone. Every other test reads
nothing from ../shared. This script finds the tests that break that rule:
a test whose RUN lines name `%models` (or spell a path into ../shared)
without the requirement. It prints one line per offender and exits 1 if there is any.

usage: check-test-gating.py TEST_DIR
"""
import os
import re
import sys

SUFFIXES = (".test", ".mlir")
# A RUN line that names the substitution or a path into ../shared.
USES_SHARED = re.compile(r"^.*\bRUN:.*(%models\b|\.\./shared\b|/shared/models\b)",
                         re.MULTILINE)
REQUIRES = re.compile(r"^\s*(?://|#|;)\s*REQUIRES:(.*)$", re.MULTILINE)


def requires_shared_models(text):
    for match in REQUIRES.finditer(text):
        features = [f.strip() for f in re.split(r"[,&]", match.group(1))]
        if "shared-models" in features:
            return True
    return False


def offenders(test_dir):
    for parent, dirs, files in os.walk(test_dir):
        # Inputs/ holds fixtures, not tests (lit.cfg.py excludes it too).
        dirs[:] = sorted(d for d in dirs if d != "Inputs")
        for name in sorted(files):
            if not name.endswith(SUFFIXES):
                continue
            path = os.path.join(parent, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            if USES_SHARED.search(text) and not requires_shared_models(text):
                yield os.path.relpath(path, test_dir)


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    found = list(offenders(argv[1]))
    for path in found:
        print(f"{path}: reads ../shared/models but does not require the lit "
              "feature shared-models")
    print(f"{len(found)} test(s) would fail on a clone without ../shared")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
