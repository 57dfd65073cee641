#!/usr/bin/env python3
"""Fails unless every #npu.tiling in the file tiles at least one loop (some
tile size below its loop size): the equivalence test must exercise tiling."""
import re, sys

text = open(sys.argv[1]).read()
found = re.findall(r"#npu\.tiling<loops = \[([0-9, ]+)\], tile = \[([0-9, ]+)\]", text)
if not found:
    sys.exit("tiled_smaller.py: no #npu.tiling")
for loops, tile in found:
    l = [int(v) for v in loops.split(",")]
    t = [int(v) for v in tile.split(",")]
    if all(a >= b for a, b in zip(t, l)):
        sys.exit(f"tiled_smaller.py: tile {t} does not tile loops {l}")
print("tiled:", len(found))
