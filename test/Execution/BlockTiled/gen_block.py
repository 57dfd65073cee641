#!/usr/bin/env python3
"""Writes a small graph-level module (no kernels, no decisions) for the
block-tiled equivalence tests: the GPU-like pipeline decides fusion and
thread-block tiles on mock-gpu, npu-tiled-to-llvm applies them, and the
result must equal the reference lowering of the same module.

Usage: gen_block.py gemm|attention|gated_mlp > module.mlir
Values are multiples of 1/64 in [-1, 1) from a fixed LCG: exact in f32.
"""
import sys

state = 12345


def value():
    global state
    state = (state * 1103515245 + 12345) % (1 << 31)
    return (state % 128 - 64) / 64.0


def const(name, shape):
    n = 1
    for d in shape:
        n *= d
    vals = [value() for _ in range(n)]

    def nest(vals, shape):
        if len(shape) == 1:
            return "[" + ", ".join(repr(v) for v in vals) + "]"
        step = len(vals) // shape[0]
        return "[" + ", ".join(nest(vals[i * step:(i + 1) * step], shape[1:])
                               for i in range(shape[0])) + "]"

    t = "tensor<" + "x".join(map(str, shape)) + "xf32>"
    return f"  %{name} = arith.constant dense<{nest(vals, shape)}> : {t}\n", t


def main():
    kind = sys.argv[1]
    out = "func.func private @printMemrefF32(tensor<*xf32>)\nfunc.func @main() {\n"
    if kind == "gemm":
        # A GEMM with a residual epilogue: 96 x 80 x 64.
        cx, tx = const("x", [96, 64])
        cw, tw = const("w", [80, 64])
        cr, tr = const("r", [96, 80])
        out += cx + cw + cr
        out += f"  %m = npu.matmul %x, %w transpose_rhs : {tx}, {tw} -> {tr}\n"
        out += f"  %y = npu.add %m, %r : {tr}, {tr}\n"
        res, rt = "%y", tr
    elif kind == "gated_mlp":
        # A SwiGLU MLP: 48 rows, model width 32, hidden 96.
        cx, tx = const("x", [48, 32])
        cg, tg = const("wg", [96, 32])
        cu, tu = const("wu", [96, 32])
        cd, td = const("wd", [32, 96])
        out += cx + cg + cu + cd
        th = "tensor<48x96xf32>"
        out += f"  %g = npu.matmul %x, %wg transpose_rhs : {tx}, {tg} -> {th}\n"
        out += f"  %u = npu.matmul %x, %wu transpose_rhs : {tx}, {tu} -> {th}\n"
        out += f"  %h = npu.swiglu %g, %u : {th}\n"
        out += f"  %y = npu.matmul %h, %wd transpose_rhs : {th}, {td} -> {tx}\n"
        res, rt = "%y", tx
    else:
        # Causal GQA attention: 4 query heads over 2 KV heads, 64 tokens.
        cq, tq = const("q", [1, 4, 64, 16])
        ck, tk = const("k", [1, 2, 64, 16])
        cv, tv = const("v", [1, 2, 64, 16])
        out += cq + ck + cv
        out += (f"  %y = npu.attention %q, %k, %v causal : {tq}, {tk}, {tv}"
                f" -> {tq}\n")
        res, rt = "%y", tq
    out += f"  %p = tensor.cast {res} : {rt} to tensor<*xf32>\n"
    out += "  call @printMemrefF32(%p) : (tensor<*xf32>) -> ()\n  return\n}\n"
    sys.stdout.write(out)


if __name__ == "__main__":
    main()
