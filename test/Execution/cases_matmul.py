"""Execution cases of npu.matmul, with an independent reference."""
from gen import Case, Rng, prod


def matmul_ref(a, ashape, b, bshape, ta=False, tb=False):
    """Batched matmul on flat row-major lists; b may be rank 2 (broadcast)."""
    batch = ashape[:-2]
    nb = prod(batch)
    am, ak = (ashape[-1], ashape[-2]) if ta else (ashape[-2], ashape[-1])
    bn = bshape[-2] if tb else bshape[-1]
    bstride = prod(bshape[-2:]) if len(bshape) == len(ashape) else 0
    out = []
    for p in range(nb):
        A = a[p * prod(ashape[-2:]):(p + 1) * prod(ashape[-2:])]
        B = b[p * bstride:p * bstride + prod(bshape[-2:])]
        for i in range(am):
            for j in range(bn):
                s = 0.0
                for k in range(ak):
                    x = A[k * am + i] if ta else A[i * ak + k]
                    y = B[j * ak + k] if tb else B[k * bn + j]
                    s += x * y
                out.append(s)
    return out


def case(name, doc, ashape, bshape, oshape, ta, tb, seed):
    r = Rng(seed)
    a = r.values(prod(ashape))
    b = r.values(prod(bshape))
    attrs = (" transpose_lhs" if ta else "") + (" transpose_rhs" if tb else "")
    body = "%%out = npu.matmul %%a, %%b%s : tensor<%sxf32>, tensor<%sxf32> -> tensor<%sxf32>" % (
        attrs, "x".join(map(str, ashape)), "x".join(map(str, bshape)), "x".join(map(str, oshape)))
    return Case(name, doc, [("a", ashape, "f32", a), ("b", bshape, "f32", b)], body,
                [("out", oshape, "f32")], [matmul_ref(a, ashape, b, bshape, ta, tb)])


CASES = [
    case("matmul", "2-D matmul [3x5] x [5x4].", [3, 5], [5, 4], [3, 4], False, False, 1),
    case("matmul-batched-transposed", "Batched matmul with both operands transposed.",
         [2, 5, 3], [2, 4, 5], [2, 3, 4], True, True, 2),
    case("matmul-broadcast-weight", "Batched lhs times one nn.Linear weight [N,K].",
         [2, 3, 6], [4, 6], [2, 3, 4], False, True, 3),
]
