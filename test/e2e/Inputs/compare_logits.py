"""Compares two --dump-logits files of one model, row by row: the worst
row's max |b - a| / max |a| must stay under --tolerance, and every row's
argmax must agree. Prints `PASS: R rows x V` or what differs (exit 1).

    compare_logits.py A B --vocab V [--tolerance 1e-4]
"""
import argparse
import array
import math
import sys


def read(path):
    values = array.array("f")
    with open(path, "rb") as f:
        values.frombytes(f.read())
    return values


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("reference")
    parser.add_argument("candidate")
    parser.add_argument("--vocab", type=int, required=True)
    parser.add_argument("--tolerance", type=float, default=1e-4)
    args = parser.parse_args()
    try:
        a, b = read(args.reference), read(args.candidate)
    except OSError as error:
        print(f"FAIL: {error}")
        return 1
    if len(a) != len(b) or not a or len(a) % args.vocab:
        print(f"FAIL: {len(a)} and {len(b)} values, rows of {args.vocab}")
        return 1
    rows = len(a) // args.vocab
    worst, worst_row, disagree = 0.0, 0, []
    for row in range(rows):
        ra = a[row * args.vocab:(row + 1) * args.vocab]
        rb = b[row * args.vocab:(row + 1) * args.vocab]
        if not all(math.isfinite(x) for x in rb):
            print(f"FAIL: row {row} is not finite")
            return 1
        scale = max(max(abs(x) for x in ra), 1e-30)
        error = max(abs(x - y) for x, y in zip(ra, rb)) / scale
        if error > worst:
            worst, worst_row = error, row
        if max(range(args.vocab), key=ra.__getitem__) != max(
                range(args.vocab), key=rb.__getitem__):
            disagree.append(row)
    if worst > args.tolerance or disagree:
        print(f"FAIL: max relative error {worst:.3e} at row {worst_row} "
              f"(tolerance {args.tolerance:g}); argmax differs at rows "
              f"{disagree}")
        return 1
    print(f"PASS: {rows} rows x {args.vocab} (max relative error {worst:.1e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
