#!/usr/bin/env python3
"""Fails when the source tree breaks a layout rule of issue 22:

* no source file (lib/, include/, tools/) over 600 lines;
* no function over 120 lines (a function here: a line at column 0 that
  opens a body with '{' after a ')', up to the '}' at column 0 that closes
  it; member functions defined inside a class body are not counted);
* no positional tile indexing in the models and the lowering: a kernel's
  loops and tiles are read through the named loops of
  npu/Dialect/Npu/IR/KernelNest.h (`tile.m`, `loops.kv`), not `t[1]`.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAX_FILE, MAX_FUNCTION = 600, 120
SOURCES = [p for d in ("lib", "include", "tools")
           for p in sorted((ROOT / d).rglob("*")) if p.suffix in (".cpp", ".h")]
# Where a kernel's loop nest is read: the cost models, the comparison's
# models and the tile-applying lowering.
NEST_DIRS = ("lib/npu/Analysis", "include/npu/Analysis", "lib/npu/Compare",
             "lib/npu/Conversion/NpuToLinalg", "lib/npu/Dialect/Npu/Transforms")
POSITIONAL = re.compile(
    r"\b(t|tile|tiles|loops|shared|sharedTile|mainTile)\[\d\]|"
    r"\.loops\[\d\]|get(Tile|Loops|SharedTile)\(\)\[\d\]")


def functions(lines):
    i = 0
    while i < len(lines):
        line = lines[i]
        if line[:1] in ("", " ", "\t", "#", "/", "}") or \
                line.rstrip().endswith(":") or line.startswith(
                ("namespace", "struct", "class", "enum", "union", "extern",
                 "template", "using", "static_assert")):
            i += 1
            continue
        # The declaration may continue on indented lines up to its '{'.
        j = i
        while j < len(lines) and j < i + 8:
            text = lines[j].split("//")[0].rstrip()
            if text.endswith("{") or text.endswith(";") or (
                    j > i and lines[j][:1] not in (" ", "\t")):
                break
            j += 1
        head = " ".join(lines[i:j + 1])
        if j < len(lines) and lines[j].split("//")[0].rstrip().endswith("{") \
                and ")" in head and "=" not in head.split("(")[0]:
            end = j + 1
            while end < len(lines) and not lines[end].startswith("}"):
                end += 1
            yield i, end - i + 1
            i = end + 1
        else:
            i = j + 1


def main():
    errors = []
    for path in SOURCES:
        rel = path.relative_to(ROOT).as_posix()
        lines = path.read_text().splitlines()
        if len(lines) > MAX_FILE:
            errors.append(f"{rel}: {len(lines)} lines (at most {MAX_FILE})")
        for start, length in functions(lines):
            if length > MAX_FUNCTION:
                errors.append(f"{rel}:{start + 1}: function of {length} lines "
                              f"(at most {MAX_FUNCTION})")
        if rel.startswith(NEST_DIRS):
            for i, line in enumerate(lines):
                code = line.split("//")[0]
                if POSITIONAL.search(code):
                    errors.append(f"{rel}:{i + 1}: positional tile indexing "
                                  f"(use KernelNest.h): {line.strip()}")
    for e in errors:
        print(e)
    print(f"check_layout: {len(SOURCES)} files, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
