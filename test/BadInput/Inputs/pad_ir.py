"""Writes `src` padded with comment lines to exactly `size` bytes."""
import sys

src, size, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(src, "rb") as f:
    text = f.read()
line = b"//" + b"x" * 1021 + b"\n"  # 1 KiB comment lines
pad = size - len(text)
with open(out, "wb") as f:
    f.write(text)
    f.write(line * (pad // len(line)))
    f.write(b"\n" * (pad % len(line)))
