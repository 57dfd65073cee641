#!/usr/bin/env python3
"""Compares the mlir-runner output of a tiled program with the reference.

Usage: compare.py REFERENCE.out TILED.out [rtol atol]

Both files hold the printMemref* output of the same test function, once
lowered with --npu-reference-to-llvm (the untiled semantics) and once with
--npu-tiled-to-llvm (npu-tile-kernels applied). Every printed memref must
have the same number of values, and every value must satisfy
|tiled - ref| <= atol + rtol * |ref|. NaN or inf anywhere, no output, or a
reference that is all zeros (a test that would prove nothing) fail.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from check import parse_runner  # noqa: E402


def main():
    ref = parse_runner(open(sys.argv[1]).read())
    tiled = parse_runner(open(sys.argv[2]).read())
    rtol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-4
    atol = float(sys.argv[4]) if len(sys.argv) > 4 else 1e-5
    if not ref:
        sys.exit("compare.py: the reference printed nothing")
    if len(ref) != len(tiled):
        sys.exit("compare.py: %d memrefs from the reference, %d tiled" % (len(ref), len(tiled)))
    worst = 0.0
    for n, (r, t) in enumerate(zip(ref, tiled)):
        if len(r) != len(t):
            sys.exit("compare.py: output #%d has %d values tiled, %d in the reference"
                     % (n, len(t), len(r)))
        if not any(v != 0.0 for v in r):
            sys.exit("compare.py: reference output #%d is all zeros" % n)
        for i, (a, b) in enumerate(zip(t, r)):
            if not (math.isfinite(a) and math.isfinite(b)):
                sys.exit("compare.py: output #%d element %d: tiled %r, reference %r"
                         % (n, i, a, b))
            worst = max(worst, abs(a - b))
            if not abs(a - b) <= atol + rtol * abs(b):
                sys.exit("compare.py: output #%d element %d is %r tiled, %r in the "
                         "reference (rtol %g, atol %g)" % (n, i, a, b, rtol, atol))
    print("compare.py: %d outputs match, max abs difference %g" % (len(ref), worst))


if __name__ == "__main__":
    main()
