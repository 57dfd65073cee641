"""Execution cases of npu.dequantize, with an independent reference.

The stored values are drawn as bit patterns and decoded here from the
format's definition (OCP 8-bit floats: e4m3fn, e5m2; OCP MX: e2m1, e8m0);
the test writes each as its exact decimal value, which MLIR encodes back to
the same bits, so the lowering's decoder is checked against this one.
"""
from gen import Case, Rng, prod, tensor_type


def minifloat(bits, exp_bits, man_bits, bias):
    """The value of a finite sign-exponent-mantissa pattern."""
    sign = -1.0 if bits >> (exp_bits + man_bits) & 1 else 1.0
    e = bits >> man_bits & ((1 << exp_bits) - 1)
    m = bits & ((1 << man_bits) - 1)
    if e == 0:
        return sign * m * 2.0 ** (1 - bias - man_bits)
    return sign * (m + (1 << man_bits)) * 2.0 ** (e - bias - man_bits)


def e4m3fn(bits):
    assert bits & 0x7F != 0x7F, "NaN"
    return minifloat(bits, 4, 3, 7)


def e5m2(bits):
    assert bits >> 2 & 0x1F != 0x1F, "inf or NaN"
    return minifloat(bits, 5, 2, 15)


def e2m1(bits):
    return minifloat(bits, 2, 1, 1)


def e8m0(bits):
    assert bits != 0xFF, "NaN"
    return 2.0 ** (bits - 127)


def draw(r, n, width, decode, ok=lambda b: True):
    """n decoded values of random finite bit patterns of `width` bits."""
    out = []
    while len(out) < n:
        b = r.next() >> 13 & ((1 << width) - 1)
        if ok(b):
            out.append(decode(b))
    return out


def to_bf16(x):
    import struct
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def dequant_ref(vals, shape, scales, block, glob=1.0):
    """vals[i] * scales[i // block] * glob, row-major."""
    sshape = [-(-d // b) for d, b in zip(shape, block)]
    out = []
    for flat, v in enumerate(vals):
        idx, rem = [], flat
        for d in reversed(shape):
            idx.append(rem % d)
            rem //= d
        idx.reverse()
        s = 0
        for i, b, sd in zip(idx, block, sshape):
            s = s * sd + i // b
        out.append(v * scales[s] * glob)
    return out


# printMemref prints six significant digits: rtol 1e-5, and no absolute
# slack, so that the tiny values (a 2^-29 scale) are checked too.
def case(name, doc, shape, vdtype, vals, block, sdtype, scales, glob=None,
         out_dtype="f32", tol=(1e-5, 1e-30)):
    sshape = [-(-d // b) for d, b in zip(shape, block)]
    assert len(scales) == prod(sshape)
    inputs = [("v", shape, vdtype, vals), ("s", sshape, sdtype, scales)]
    gpart, gtype = "", ""
    if glob is not None:
        inputs.append(("g", [], "f32", [glob]))
        gpart, gtype = " global(%g)", ", tensor<f32>"
    # A dequantized tensor is only ever a matrix op's weight: the test reads
    # it back as I x W (exact).
    k = shape[0]
    inputs.append(("eye", [k, k], out_dtype,
                   [1.0 if i // k == i % k else 0.0 for i in range(k * k)]))
    wtype = tensor_type(shape, out_dtype)
    body = "%%w = npu.dequantize %%v, %%s%s block [%s] : %s, %s%s -> %s\n" % (
        gpart, ", ".join(map(str, block)), tensor_type(shape, vdtype),
        tensor_type(sshape, sdtype), gtype, wtype)
    expected = dequant_ref(vals, shape, scales, block, 1.0 if glob is None else glob)
    if out_dtype == "bf16":
        body += ("%%r = npu.matmul %%eye, %%w : %s, %s -> %s\n"
                 "%%out = npu.convert %%r : %s -> %s"
                 % (tensor_type([k, k], "bf16"), wtype, wtype, wtype,
                    tensor_type(shape, "f32")))
        expected = [to_bf16(x) for x in expected]
    else:
        body += "%%out = npu.matmul %%eye, %%w : %s, %s -> %s" % (
            tensor_type([k, k], "f32"), wtype, wtype)
    return Case(name, doc, inputs, body, [("out", shape, "f32")], [expected], tol)


def cases():
    r = Rng(41)
    out = []
    # int4 weight-only, groups of 2 along K of [K=5, N=3] (a partial last
    # group), bf16 scales (gpt-fast's int4 layout without zero points).
    shape = [5, 3]
    out.append(case(
        "dequantize-int4-group",
        "dequantize int4 [5x3] with bf16 group scales, block [2, 1] (partial last group).",
        shape, "i4", r.ints(prod(shape), -8, 8), [2, 1], "bf16",
        r.values(9, -2.0, 2.0)))
    # int8 per output channel.
    shape = [4, 6]
    out.append(case(
        "dequantize-int8-channel",
        "dequantize int8 [4x6] with one f32 scale per column, block [4, 1].",
        shape, "i8", r.ints(prod(shape), -128, 128), [4, 1], "f32",
        r.values(6, 0.0, 0.25)))
    # fp8 e4m3fn with DeepSeek-V3-style 2-D blocks (here 2 x 4, partial).
    shape = [5, 6]
    out.append(case(
        "dequantize-fp8-block",
        "dequantize e4m3fn [5x6] (random finite bit patterns, subnormals included) "
        "with f32 block scales, block [2, 4], result rounded to bf16.",
        shape, "f8E4M3FN", draw(r, prod(shape), 8, e4m3fn, lambda b: b & 0x7F != 0x7F),
        [2, 4], "f32", r.values(6, -2.0, 2.0), out_dtype="bf16"))
    # fp8 e5m2 per tensor.
    shape = [3, 4]
    out.append(case(
        "dequantize-fp8-e5m2-tensor",
        "dequantize e5m2 [3x4] (random finite bit patterns) with one f32 scale.",
        shape, "f8E5M2", draw(r, prod(shape), 8, e5m2, lambda b: b >> 2 & 0x1F != 0x1F),
        [3, 4], "f32", [0.75]))
    # MXFP4: e2m1 values (all 16 patterns), e8m0 scales, blocks of 32.
    shape = [2, 64]
    vals = [e2m1(i % 16) for i in range(prod(shape))]
    scales = [e8m0(b) for b in (124, 127, 130, 98)]
    out.append(case(
        "dequantize-mxfp4",
        "dequantize MXFP4 [2x64]: every e2m1 pattern, e8m0 scales 2^-3, 1, 8, 2^-29, "
        "block [1, 32].",
        shape, "f4E2M1FN", vals, [1, 32], "f8E8M0FNU", scales))
    # NVFP4: e2m1 values, e4m3fn scales per 16, an f32 global scale.
    shape = [2, 32]
    out.append(case(
        "dequantize-nvfp4",
        "dequantize NVFP4 [2x32]: e2m1 values, positive e4m3fn block scales of 16, f32 global scale.",
        shape, "f4E2M1FN", draw(r, prod(shape), 4, e2m1), [1, 16], "f8E4M3FN",
        draw(r, 4, 8, e4m3fn, lambda b: 0 < b < 0x7F), glob=0.0625))
    return out


CASES = cases()
