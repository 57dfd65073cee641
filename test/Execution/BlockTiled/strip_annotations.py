#!/usr/bin/env python3
"""Copies a module, dropping the function and module attributes the backend
pipelines add (npu.target, npu.cost): they describe the program, and the
LLVM-dialect output must not carry them to mlir-runner, which does not load
the npu dialect. Kernel attributes go away when npu-tile-kernels lowers the
kernels."""
import re, sys

text = open(sys.argv[1]).read()
text = re.sub(r" attributes \{npu\.[^{}]*\}", "", text)
sys.stdout.write(text)
