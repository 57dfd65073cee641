"""Execution cases of the elementwise ops, with an independent reference."""
import math
import struct

from cases_quant import e4m3fn, e5m2
from gen import Case, Rng, prod


def ttype(shape):
    return "tensor<%sxf32>" % "x".join(map(str, shape))


def broadcast_ref(a, ashape, b, bshape, fn):
    """fn(a[i..., j...], b[j...]) with b a trailing suffix of a's shape."""
    n = prod(bshape)
    return [fn(x, b[i % n]) for i, x in enumerate(a)]


def numpy_ref(a, ashape, b, bshape, fn):
    """fn(a[i...], b[i'...]) with b's dimensions aligned with a's last ones
    and i' = 0 where b's dimension is 1 (NumPy broadcasting)."""
    lead = len(ashape) - len(bshape)
    out = []
    for flat, x in enumerate(a):
        idx, rest = [], flat
        for d in reversed(ashape):
            idx.append(rest % d)
            rest //= d
        idx.reverse()
        j = 0
        for d, n in enumerate(bshape):
            j = j * n + (0 if n == 1 else idx[lead + d])
        out.append(fn(x, b[j]))
    return out


def silu(x):
    return x / (1.0 + math.exp(-x))


def gelu_erf(x):
    return 0.5 * x * (1.0 + math.erf(x / math.sqrt(2.0)))


def gelu_tanh(x):
    return 0.5 * x * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def binary(name, doc, op, ashape, bshape, fn, seed):
    r = Rng(seed)
    a = r.values(prod(ashape), -2.0, 2.0)
    b = r.values(prod(bshape), -2.0, 2.0)
    body = "%%out = npu.%s %%a, %%b : %s, %s" % (op, ttype(ashape), ttype(bshape))
    return Case(name, doc, [("a", ashape, "f32", a), ("b", bshape, "f32", b)], body,
                [("out", ashape, "f32")], [numpy_ref(a, ashape, b, bshape, fn)])


def unary(name, doc, op, shape, fn, seed):
    x = Rng(seed).values(prod(shape), -4.0, 4.0)
    body = "%%out = npu.%s %%x : %s" % (op, ttype(shape))
    return Case(name, doc, [("x", shape, "f32", x)], body, [("out", shape, "f32")],
                [[fn(v) for v in x]])


def swiglu_case(name="swiglu", doc="swiglu(gate, up) = silu(gate) * up on [3x5].",
                act=None, fn=silu, seed=7):
    shape = [3, 5]
    r = Rng(seed)
    g = r.values(prod(shape), -4.0, 4.0)
    u = r.values(prod(shape), -2.0, 2.0)
    attr = " activation = %s" % act if act else ""
    body = "%%out = npu.swiglu %%g, %%u%s : %s" % (attr, ttype(shape))
    return Case(name, doc, [("g", shape, "f32", g), ("u", shape, "f32", u)], body,
                [("out", shape, "f32")], [[fn(a) * b for a, b in zip(g, u)]])


def softcap_case():
    shape = [2, 6]
    x = Rng(9).values(prod(shape), -80.0, 80.0)
    body = "%%out = npu.softcap %%x cap(30.0) : %s" % ttype(shape)
    return Case("softcap", "softcap: 30 tanh(x / 30) on [2x6], x in [-80, 80) (Gemma-2's "
                "final logits).", [("x", shape, "f32", x)], body, [("out", shape, "f32")],
                [[30.0 * math.tanh(v / 30.0) for v in x]])


def add_scalar_case():
    r = Rng(8)
    a = r.values(6, -2.0, 2.0)
    b = r.values(1, -2.0, 2.0)
    body = "%out = npu.add %a, %b : tensor<2x3xf32>, tensor<f32>"
    return Case("add-scalar", "add of a rank-0 rhs (empty suffix) to [2x3].",
                [("a", [2, 3], "f32", a), ("b", [], "f32", b)], body,
                [("out", [2, 3], "f32")], [[x + b[0] for x in a]])


def to_bf16(x):
    """Rounds a float to the nearest bf16 (ties to even), through f32."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def to_f32_body(src, shape):
    """MLIR lines extending a bf16 tensor %src to the f32 tensor %out."""
    t = "x".join(map(str, shape))
    dims = ", ".join("d%d" % i for i in range(len(shape)))
    m = "affine_map<(%s) -> (%s)>" % (dims, dims)
    return "\n".join([
        "%%init = tensor.empty() : tensor<%sxf32>" % t,
        "%%out = linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]} "
        "ins(%%%s : tensor<%sxbf16>) outs(%%init : tensor<%sxf32>) {" % (
            m, m, ", ".join(['"parallel"'] * len(shape)), src, t, t),
        "^bb0(%in: bf16, %o: f32):",
        "%e = arith.extf %in : bf16 to f32",
        "linalg.yield %e : f32",
        "} -> tensor<%sxf32>" % t,
    ])


def bf16_cases():
    """bf16 operands: computed in f32, rounded once to bf16 (inputs on a
    1/64 grid in [-2, 2) are exact in bf16)."""
    r = Rng(21)
    shape = [3, 4]
    g = r.values(12, -2.0, 2.0)
    u = r.values(12, -2.0, 2.0)
    b = r.values(4, -2.0, 2.0)
    tol = (8e-3, 1e-3)  # half a bf16 ulp is 2^-9 relative
    swiglu = Case(
        "swiglu-bf16", "swiglu on bf16 [3x4]: f32 compute, one rounding to bf16.",
        [("g", shape, "bf16", g), ("u", shape, "bf16", u)],
        "%r = npu.swiglu %g, %u : tensor<3x4xbf16>\n" + to_f32_body("r", shape),
        [("out", shape, "f32")], [[to_bf16(silu(x) * y) for x, y in zip(g, u)]], tol)
    add = Case(
        "add-bias-bf16", "add of a bf16 bias [4] to bf16 [3x4].",
        [("a", shape, "bf16", g), ("b", [4], "bf16", b)],
        "%r = npu.add %a, %b : tensor<3x4xbf16>, tensor<4xbf16>\n" + to_f32_body("r", shape),
        [("out", shape, "f32")], [broadcast_ref(g, shape, b, [4], lambda x, y: to_bf16(x + y))], tol)
    # Llama-4: each routed row [T, D] (bf16) times its f32 router score
    # [T, 1], rounded once.
    w = r.values(3, 0.0, 1.0)
    row_scale = Case(
        "mul-row-scale-bf16", "mul of bf16 rows [3x4] by an f32 per-row scale [3x1] "
        "(Llama-4's routed rows times their router score): f32 compute, one rounding.",
        [("a", shape, "bf16", g), ("w", [3, 1], "f32", w)],
        "%r = npu.mul %a, %w : tensor<3x4xbf16>, tensor<3x1xf32>\n" + to_f32_body("r", shape),
        [("out", shape, "f32")],
        [numpy_ref(g, shape, w, [3, 1], lambda x, y: to_bf16(x * y))], tol)
    return [swiglu, add, row_scale]


def nearest_fp8(x, decode, patterns):
    """The value of the fp8 pattern nearest to x, ties to the even pattern
    (its last mantissa bit 0), from a table of every finite pattern."""
    best = None
    for bits in patterns:
        v = decode(bits)
        key = (abs(v - x), bits & 1)
        if best is None or key < best[0]:
            best = (key, v)
    return best[1]


def convert_fp8_case(name, dtype, decode, patterns, seed):
    """f32 -> fp8 (round to nearest even) and back: values on and between
    the fp8 grid, subnormals, exact ties, within the finite range."""
    r = Rng(seed)
    grid = [decode(b) for b in patterns]
    top = max(grid)
    x = [0.0, -0.0]
    # Midpoints of neighbouring grid values (ties) and points between them.
    ordered = sorted(set(grid))
    for _ in range(14):
        i = r.ints(1, 0, len(ordered) - 1)[0]
        lo, hi = ordered[i], ordered[i + 1]
        x.append((lo + hi) / 2)
        x.append(lo + (hi - lo) * 0.3)
    x = [v for v in x if abs(v) < top][:24]
    x += [0.0] * (24 - len(x))
    return Case(
        name, "convert f32 [4x6] to %s (round to nearest, ties to even; ties and "
        "subnormals among the values), read back as f32." % dtype,
        [("x", [4, 6], "f32", x)],
        "%%r = npu.convert %%x : tensor<4x6xf32> -> tensor<4x6x%s>\n"
        "%%out = npu.convert %%r : tensor<4x6x%s> -> tensor<4x6xf32>" % (dtype, dtype),
        [("out", [4, 6], "f32")], [[nearest_fp8(v, decode, patterns) for v in x]],
        (1e-5, 0.0))  # printed to 6 digits; fp8 neighbours are >= 6% apart


def convert_case():
    """f32 -> bf16 with round-to-nearest-even, then exactly back to f32."""
    shape = [2, 5]
    # Off the bf16 grid, so that rounding happens; exact in f32 after the
    # dense literal is read (struct round-trip below).
    x = [struct.unpack("<f", struct.pack("<f", v * 1.0173))[0]
         for v in Rng(31).values(10, -3.0, 3.0)]
    return Case(
        "convert-bf16", "convert f32 [2x5] to bf16 (round to nearest even), read back as f32.",
        [("x", shape, "f32", x)],
        "%r = npu.convert %x : tensor<2x5xf32> -> tensor<2x5xbf16>\n" + to_f32_body("r", shape),
        [("out", shape, "f32")], [[to_bf16(v) for v in x]], (1e-4, 1e-6))  # a bf16 ulp is ~4e-3 relative


CASES = [
    binary("add-broadcast", "add of a [3x4] rhs onto a [2x3x4] lhs (trailing-suffix broadcast).",
           "add", [2, 3, 4], [3, 4], lambda x, y: x + y, 1),
    binary("add-bias", "add of a bias [5] to every row of [3x5].",
           "add", [3, 5], [5], lambda x, y: x + y, 2),
    add_scalar_case(),
    binary("mul", "element-wise mul of two [3x5] tensors.",
           "mul", [3, 5], [3, 5], lambda x, y: x * y, 3),
    binary("mul-broadcast", "mul by a per-channel scale [4] on [2x3x4].",
           "mul", [2, 3, 4], [4], lambda x, y: x * y, 4),
    binary("mul-position-scale", "mul by a per-position scale [3x1] on [2x2x3x4] (B, H, S, "
           "D): Llama-4's query temperature, size-1 dimension broadcast.",
           "mul", [2, 2, 3, 4], [3, 1], lambda x, y: x * y, 9),
    binary("add-unit-dims", "add of a [2x1x4] rhs onto [2x3x4] (its size-1 middle "
           "dimension broadcast).", "add", [2, 3, 4], [2, 1, 4], lambda x, y: x + y, 12),
    unary("silu", "silu(x) = x * sigmoid(x) on [4x6], x in [-4, 4).", "silu", [4, 6], silu, 5),
    unary("gelu-erf", "exact (erf) gelu on [4x6], x in [-4, 4).", "gelu", [4, 6], gelu_erf, 6),
    Case("gelu-tanh", "tanh-approximated gelu (GPT-2) on [4x6], x in [-4, 4).",
         [("x", [4, 6], "f32", Rng(6).values(24, -4.0, 4.0))],
         "%out = npu.gelu %x approximate = tanh : tensor<4x6xf32>",
         [("out", [4, 6], "f32")], [[gelu_tanh(v) for v in Rng(6).values(24, -4.0, 4.0)]]),
    swiglu_case(),
    swiglu_case("swiglu-gelu-tanh", "GeGLU (Gemma): gelu_tanh(gate) * up on [3x5].",
                "gelu_tanh", gelu_tanh, 8),
    swiglu_case("swiglu-gelu", "GeGLU, exact gelu: gelu(gate) * up on [3x5].",
                "gelu", gelu_erf, 10),
    softcap_case(),
    convert_case(),
    convert_fp8_case("convert-fp8-e4m3fn", "f8E4M3FN", e4m3fn,
                     [b for b in range(256) if b & 0x7F != 0x7F], 41),
    convert_fp8_case("convert-fp8-e5m2", "f8E5M2", e5m2,
                     [b for b in range(256) if b >> 2 & 0x1F != 0x1F], 42),
] + bf16_cases()
