"""Execution cases of embedding and the shape ops, with an independent reference."""
from gen import Case, Rng, prod


def ttype(shape, dtype="f32"):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), dtype)


def strides_of(shape):
    s, acc = [], 1
    for d in reversed(shape):
        s.insert(0, acc)
        acc *= d
    return s


def unravel(i, shape):
    idx = []
    for d in reversed(shape):
        idx.insert(0, i % d)
        i //= d
    return idx


def at(x, shape, idx):
    return x[sum(i * s for i, s in zip(idx, strides_of(shape)))]


def embedding_ref(table, v, d, ids):
    out = []
    for i in ids:
        row = min(max(i, 0), v - 1)  # out-of-range ids are clamped
        out.extend(table[row * d:(row + 1) * d])
    return out


def transpose_ref(x, shape, perm):
    oshape = [shape[p] for p in perm]
    out = []
    for i in range(prod(oshape)):
        oi = unravel(i, oshape)
        src = [0] * len(shape)
        for k, p in enumerate(perm):
            src[p] = oi[k]
        out.append(at(x, shape, src))
    return out, oshape


def concat_ref(xs, shapes, dim):
    oshape = list(shapes[0])
    oshape[dim] = sum(s[dim] for s in shapes)
    out = []
    for i in range(prod(oshape)):
        oi = unravel(i, oshape)
        k = oi[dim]
        for x, s in zip(xs, shapes):
            if k < s[dim]:
                src = list(oi)
                src[dim] = k
                out.append(at(x, s, src))
                break
            k -= s[dim]
    return out, oshape


def slice_ref(x, shape, offsets, sizes, strides):
    out = []
    for i in range(prod(sizes)):
        oi = unravel(i, sizes)
        out.append(at(x, shape, [o + j * s for o, j, s in zip(offsets, oi, strides)]))
    return out


def embedding_case(name, doc, v, d, ids_shape, ids, idt, seed):
    table = Rng(seed).values(v * d)
    oshape = ids_shape + [d]
    body = "%%out = npu.embedding %%t, %%ids : %s, %s -> %s" % (
        ttype([v, d]), ttype(ids_shape, idt), ttype(oshape))
    return Case(name, doc, [("t", [v, d], "f32", table), ("ids", ids_shape, idt, ids)], body,
                [("out", oshape, "f32")], [embedding_ref(table, v, d, ids)])


def reshape_case(name, doc, shape, oshape, dtype, seed):
    r = Rng(seed)
    x = r.ints(prod(shape), -100, 100) if dtype.startswith("i") else r.values(prod(shape))
    body = "%%out = npu.reshape %%x : %s -> %s" % (ttype(shape, dtype), ttype(oshape, dtype))
    return Case(name, doc, [("x", shape, dtype, x)], body, [("out", oshape, dtype)], [x])


def transpose_case():
    shape, perm = [2, 3, 4], [2, 0, 1]
    x = Rng(11).values(prod(shape))
    out, oshape = transpose_ref(x, shape, perm)
    body = "%%out = npu.transpose %%x perm [2, 0, 1] : %s -> %s" % (ttype(shape), ttype(oshape))
    return Case("transpose", "transpose of [2x3x4] with perm [2, 0, 1].",
                [("x", shape, "f32", x)], body, [("out", oshape, "f32")], [out])


def broadcast_case():
    shape, oshape = [2, 1, 3], [2, 4, 3]
    x = Rng(21).values(prod(shape))
    out = [at(x, shape, [i if d != 1 else 0 for i, d in zip(unravel(n, oshape), shape)])
           for n in range(prod(oshape))]
    body = "%%out = npu.broadcast %%x : %s -> %s" % (ttype(shape), ttype(oshape))
    return Case("broadcast", "broadcast of [2x1x3] to [2x4x3] (a shared RoPE key to 4 heads).",
                [("x", shape, "f32", x)], body, [("out", oshape, "f32")], [out])


def concat_case(name, doc, shapes, dim, dtype, seed):
    r = Rng(seed)
    xs = [r.ints(prod(s), -50, 50) if dtype.startswith("i") else r.values(prod(s)) for s in shapes]
    out, oshape = concat_ref(xs, shapes, dim)
    names = ["x%d" % i for i in range(len(shapes))]
    body = "%%out = npu.concat %s dim(%d) : %s -> %s" % (
        ", ".join("%" + n for n in names), dim, ", ".join(ttype(s, dtype) for s in shapes),
        ttype(oshape, dtype))
    return Case(name, doc, [(n, s, dtype, x) for n, s, x in zip(names, shapes, xs)], body,
                [("out", oshape, dtype)], [out])


def slice_case():
    shape, offsets, sizes, strides = [4, 8], [1, 1], [2, 3], [2, 3]
    x = Rng(13).values(prod(shape))
    body = "%%out = npu.slice %%x offsets [1, 1] sizes [2, 3] strides [2, 3] : %s -> %s" % (
        ttype(shape), ttype(sizes))
    return Case("slice", "strided slice of [4x8]: offsets [1, 1], sizes [2, 3], strides [2, 3].",
                [("x", shape, "f32", x)], body, [("out", sizes, "f32")],
                [slice_ref(x, shape, offsets, sizes, strides)])


def slice_chain_case():
    """Views feeding copies: a strided slice, reshaped, then transposed."""
    shape = [4, 6]
    x = Rng(14).values(prod(shape))
    s = slice_ref(x, shape, [0, 1], [2, 4], [2, 1])  # [2, 4], not contiguous
    out, oshape = transpose_ref(s, [2, 2, 2], [2, 1, 0])
    body = "\n".join([
        "%s = npu.slice %%x offsets [0, 1] sizes [2, 4] strides [2, 1] : %s -> %s" % (
            "%s", ttype(shape), ttype([2, 4])),
        "%r = npu.reshape %s : tensor<2x4xf32> -> tensor<2x2x2xf32>",
        "%out = npu.transpose %r perm [2, 1, 0] : tensor<2x2x2xf32> -> tensor<2x2x2xf32>",
    ])
    return Case("slice-reshape-transpose",
                "a non-contiguous slice of [4x6], reshaped to [2x2x2], then transposed.",
                [("x", shape, "f32", x)], body, [("out", oshape, "f32")], [out])


CASES = [
    embedding_case("embedding", "embedding of [2x3] i32 ids (two out of range: clamped) from a [6x4] table.",
                   6, 4, [2, 3], [0, 5, 2, -3, 9, 2], "i32", 9),
    embedding_case("embedding-i64", "embedding of [5] i64 ids from a [7x3] table.",
                   7, 3, [5], [6, 0, 3, 3, 1], "i64", 10),
    reshape_case("reshape", "reshape of [2x6] to [3x2x2].", [2, 6], [3, 2, 2], "f32", 12),
    reshape_case("reshape-i32", "reshape of an i32 [2x3x2] to [4x3].", [2, 3, 2], [4, 3], "i32", 15),
    reshape_case("reshape-scalar", "reshape of a rank-0 tensor to [1x1x1].", [], [1, 1, 1], "f32", 18),
    transpose_case(),
    broadcast_case(),
    concat_case("concat", "concat of [2x3], [2x2] and [2x1] along dim 1.",
                [[2, 3], [2, 2], [2, 1]], 1, "f32", 16),
    concat_case("concat-i64", "concat of i64 [1x2x3] and [2x2x3] along dim 0.",
                [[1, 2, 3], [2, 2, 3]], 0, "i64", 17),
    slice_case(),
    slice_chain_case(),
]
