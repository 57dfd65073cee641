#!/usr/bin/env python3
"""Compares mlir-runner output with the expected values of an execution test.

Usage: mlir-runner ... | check.py TEST.mlir

The test file holds one `// EXPECT: v0, v1, ...` line per printed memref (the
row-major flattened values, produced by an independent reference: see gen.py
and the cases_*.py files) and optionally `// TOLERANCE: rtol atol`. The
runner's `printMemref*` output is parsed, flattened, and compared in order.
Exits 1 with a message naming the first mismatch.
"""
import re
import sys

NUM = re.compile(r"[-+]?(?:nan|inf|\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)")


def parse_runner(text):
    """Returns one flat list of floats per printed memref."""
    out = []
    pos = 0
    while True:
        i = text.find("data =", pos)
        if i < 0:
            return out
        j = text.find("[", i)
        depth = 0
        k = j
        while k < len(text):
            if text[k] == "[":
                depth += 1
            elif text[k] == "]":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        body = text[j:k + 1]
        out.append([float(x) for x in NUM.findall(body)])
        pos = k + 1


def main():
    test = open(sys.argv[1]).read()
    expected = []
    rtol, atol = 1e-4, 1e-5
    for line in test.splitlines():
        m = re.match(r"\s*//\s*EXPECT:\s*(.*)$", line)
        if m:
            expected.append([float(x) for x in m.group(1).split(",") if x.strip()])
        m = re.match(r"\s*//\s*TOLERANCE:\s*(\S+)\s+(\S+)", line)
        if m:
            rtol, atol = float(m.group(1)), float(m.group(2))
    got = parse_runner(sys.stdin.read())
    if not expected:
        sys.exit("check.py: no EXPECT lines in " + sys.argv[1])
    if len(got) != len(expected):
        sys.exit("check.py: %d memrefs printed, %d expected" % (len(got), len(expected)))
    for n, (g, e) in enumerate(zip(got, expected)):
        if len(g) != len(e):
            sys.exit("check.py: output #%d has %d values, expected %d" % (n, len(g), len(e)))
        for i, (a, b) in enumerate(zip(g, e)):
            if not abs(a - b) <= atol + rtol * abs(b):
                sys.exit("check.py: output #%d element %d is %r, expected %r (rtol %g, atol %g)"
                         % (n, i, a, b, rtol, atol))
    print("check.py: %d outputs match" % len(got))


if __name__ == "__main__":
    main()
