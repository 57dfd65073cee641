"""Execution cases of npu.softmax, npu.rms_norm, npu.layer_norm and npu.rope,
with an independent pure-Python reference (math module, f64)."""
import math

from gen import Case, Rng, prod


def ttype(shape, dtype):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), dtype)


def strides(shape):
    s = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        s[i] = s[i + 1] * shape[i + 1]
    return s


def unflatten(i, shape):
    idx = []
    for st in strides(shape):
        idx.append(i // st)
        i %= st
    return idx


def to_f32_lines(src, dst, shape, dtype):
    """MLIR lines converting tensor %src of `dtype` to f32 %dst (the runner
    prints f32 only)."""
    r = len(shape)
    dims = ", ".join("d%d" % i for i in range(r))
    m = "affine_map<(%s) -> (%s)>" % (dims, dims)
    return """
%%%s_init = tensor.empty() : %s
%%%s = linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]} ins(%%%s : %s) outs(%%%s_init : %s) {
^bb0(%%a: %s, %%b: f32):
%%f = arith.extf %%a : %s to f32
linalg.yield %%f : f32
} -> %s
""" % (dst, ttype(shape, "f32"), dst, m, m, ", ".join(['"parallel"'] * r),
       src, ttype(shape, dtype), dst, ttype(shape, "f32"), dtype, dtype,
       ttype(shape, "f32"))


# ---------------------------------------------------------------------------
# References
# ---------------------------------------------------------------------------

def softmax_ref(x, shape, dim):
    dim %= len(shape)
    st = strides(shape)[dim]
    out = [0.0] * len(x)
    for i in range(len(x)):
        if unflatten(i, shape)[dim] != 0:
            continue
        idx = [i + k * st for k in range(shape[dim])]
        m = max(x[j] for j in idx)
        e = [math.exp(x[j] - m) for j in idx]
        s = sum(e)
        for j, v in zip(idx, e):
            out[j] = v / s
    return out


def rms_norm_ref(x, n, gamma, eps):
    out = []
    for r in range(len(x) // n):
        row = x[r * n:(r + 1) * n]
        rstd = 1.0 / math.sqrt(sum(v * v for v in row) / n + eps)
        out += [v * rstd * g for v, g in zip(row, gamma or [1.0] * n)]
    return out


def layer_norm_ref(x, n, gamma, beta, eps):
    out = []
    for r in range(len(x) // n):
        row = x[r * n:(r + 1) * n]
        mean = sum(row) / n
        var = sum((v - mean) ** 2 for v in row) / n
        rstd = 1.0 / math.sqrt(var + eps)
        for j, v in enumerate(row):
            y = (v - mean) * rstd * gamma[j]
            if beta is not None:
                y += beta[j]
            out.append(y)
    return out


def rope_ref(x, shape, theta, offset, interleaved, rot):
    s_len, d = shape[-2], shape[-1]
    half = rot // 2
    out = list(x)
    for row in range(len(x) // d):
        pos = offset + row % s_len
        base = row * d
        for i in range(half):
            a = pos * theta ** (-2.0 * i / rot)
            c, s = math.cos(a), math.sin(a)
            j1, j2 = (2 * i, 2 * i + 1) if interleaved else (i, i + half)
            x1, x2 = x[base + j1], x[base + j2]
            out[base + j1] = x1 * c - x2 * s
            out[base + j2] = x2 * c + x1 * s
    return out


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

BF16_TOL = (1e-2, 2e-3)  # one bf16 rounding of the result (2^-9 relative)


def softmax_case(name, doc, shape, dim, seed):
    x = Rng(seed).values(prod(shape), -4.0, 4.0)
    attr = "" if dim is None else " dim(%d)" % dim
    t = ttype(shape, "f32")
    body = "%%out = npu.softmax %%x%s : %s -> %s" % (attr, t, t)
    return Case(name, doc, [("x", shape, "f32", x)], body, [("out", shape, "f32")],
                [softmax_ref(x, shape, -1 if dim is None else dim)])


def rms_norm_case(name, doc, shape, eps, seed, dtype="f32", gamma=True):
    r = Rng(seed)
    n = shape[-1]
    x = r.values(prod(shape), -2.0, 2.0)
    g = r.values(n, 0.5, 1.5) if gamma else None
    if gamma:
        body = "%%y = npu.rms_norm %%x, %%g eps(%e) : %s, %s -> %s" % (
            eps, ttype(shape, dtype), ttype([n], dtype), ttype(shape, dtype))
    else:
        body = "%%y = npu.rms_norm %%x eps(%e) : %s -> %s" % (
            eps, ttype(shape, dtype), ttype(shape, dtype))
    if dtype == "f32":
        body = body.replace("%y =", "%out =")
    else:
        body += to_f32_lines("y", "out", shape, dtype)
    inputs = [("x", shape, dtype, x)] + ([("g", [n], dtype, g)] if gamma else [])
    return Case(name, doc, inputs, body,
                [("out", shape, "f32")], [rms_norm_ref(x, n, g, eps)],
                tol=(1e-4, 1e-5) if dtype == "f32" else BF16_TOL)


def layer_norm_case(name, doc, shape, eps, with_beta, seed):
    r = Rng(seed)
    n = shape[-1]
    x = r.values(prod(shape), -2.0, 2.0)
    g = r.values(n, 0.5, 1.5)
    b = r.values(n) if with_beta else None
    t, tn = ttype(shape, "f32"), ttype([n], "f32")
    inputs = [("x", shape, "f32", x), ("g", [n], "f32", g)]
    if with_beta:
        inputs.append(("b", [n], "f32", b))
        body = "%%out = npu.layer_norm %%x, %%g, %%b eps(%e) : %s, %s, %s -> %s" % (eps, t, tn, tn, t)
    else:
        body = "%%out = npu.layer_norm %%x, %%g eps(%e) : %s, %s -> %s" % (eps, t, tn, t)
    return Case(name, doc, inputs, body, [("out", shape, "f32")],
                [layer_norm_ref(x, n, g, b, eps)])


def rope_case(name, doc, shape, theta, offset, interleaved, rot, seed, dtype="f32"):
    x = Rng(seed).values(prod(shape))
    attrs = " theta(%e) offset(%d)" % (theta, offset)
    if interleaved:
        attrs += " interleaved"
    if rot is not None:
        attrs += " rotary_dim(%d)" % rot
    t = ttype(shape, dtype)
    body = "%%y = npu.rope %%x%s : %s -> %s" % (attrs, t, t)
    if dtype == "f32":
        body = body.replace("%y =", "%out =")
    else:
        body += to_f32_lines("y", "out", shape, dtype)
    expected = rope_ref(x, shape, theta, offset, interleaved, rot or shape[-1])
    return Case(name, doc, [("x", shape, dtype, x)], body, [("out", shape, "f32")],
                [expected], tol=(1e-4, 1e-5) if dtype == "f32" else BF16_TOL)


CASES = [
    softmax_case("softmax-last", "Softmax over the last dimension (default dim) of [3, 8].",
                 [3, 8], None, 11),
    softmax_case("softmax-middle", "Softmax over dimension 1 of [2, 5, 3].", [2, 5, 3], 1, 12),
    softmax_case("softmax-first-negative", "Softmax over dim(-3), the first of [4, 2, 3].",
                 [4, 2, 3], -3, 13),
    rms_norm_case("rms-norm", "RMSNorm over the last dimension of [3, 8], eps 1e-5.",
                  [3, 8], 1e-5, 21),
    rms_norm_case("rms-norm-bf16-rank3", "RMSNorm on bf16 [2, 2, 8] (f32 compute, one rounding).",
                  [2, 2, 8], 1e-6, 22, dtype="bf16"),
    rms_norm_case("rms-norm-no-gamma", "RMSNorm without gamma (Llama-4's QK norm) on bf16 "
                  "[2, 3, 8], eps 1e-5.", [2, 3, 8], 1e-5, 23, "bf16", gamma=False),
    layer_norm_case("layer-norm", "LayerNorm with beta over the last dimension of [3, 8].",
                    [3, 8], 1e-5, True, 31),
    layer_norm_case("layer-norm-no-beta", "LayerNorm without beta, eps 0.25, on [2, 2, 6].",
                    [2, 2, 6], 0.25, False, 32),
    rope_case("rope-rotate-half", "RoPE, rotate_half pairs, on [1, 2, 3, 8] (B, H, S, D).",
              [1, 2, 3, 8], 10000.0, 0, False, None, 41),
    rope_case("rope-interleaved", "RoPE, interleaved pairs, theta 100, on [2, 3, 8].",
              [2, 3, 8], 100.0, 0, True, None, 42),
    rope_case("rope-partial-offset", "RoPE on the first 4 of 8 features, offset 5 (decode).",
              [2, 3, 8], 10000.0, 5, False, 4, 43),
    rope_case("rope-interleaved-partial-bf16",
              "RoPE, interleaved pairs, rotary_dim 4 of 6, offset 7, bf16, on [2, 2, 6].",
              [2, 2, 6], 500000.0, 7, True, 4, 44, dtype="bf16"),
]
