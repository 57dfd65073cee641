"""Execution cases of npu.kv_cache_append and npu.kv_cache_read, with an
independent pure-Python reference."""
from gen import Case, Rng, prod


def tt(shape, dtype):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), dtype)


def append_ref(cache, cshape, new, nshape, pos):
    b, h, smax, d = cshape
    snew = nshape[2]
    pos = max(0, min(pos, smax - snew))  # the reference lowering's clamp
    out = list(cache)
    for bi in range(b):
        for hi in range(h):
            for s in range(snew):
                for di in range(d):
                    out[((bi * h + hi) * smax + pos + s) * d + di] = \
                        new[((bi * h + hi) * snew + s) * d + di]
    return out


def read_ref(cache, cshape, length):
    b, h, smax, d = cshape
    return [cache[((bi * h + hi) * smax + s) * d + di]
            for bi in range(b) for hi in range(h) for s in range(length) for di in range(d)]


def case(name, doc, cshape, snew, pos, length, seed):
    r = Rng(seed)
    nshape = [cshape[0], cshape[1], snew, cshape[3]]
    cache = r.values(prod(cshape))
    new = r.values(prod(nshape))
    upd = append_ref(cache, cshape, new, nshape, pos)
    rshape = [cshape[0], cshape[1], length, cshape[3]]
    # The position as a run-time value (read from a tensor): a constant one
    # must be in range (the verifier rejects it otherwise), and the clamp is
    # what a run-time position out of range gets.
    body = "\n".join([
        "%%posv = arith.constant dense<[%d]> : tensor<1xindex>" % pos,
        "%c0 = arith.constant 0 : index",
        "%pos = tensor.extract %posv[%c0] : tensor<1xindex>",
        "%%c2 = npu.kv_cache_append %%cache, %%new at %%pos : %s, %s -> %s"
        % (tt(cshape, "f32"), tt(nshape, "f32"), tt(cshape, "f32")),
        "%%kv = npu.kv_cache_read %%c2 length(%d) : %s -> %s"
        % (length, tt(cshape, "f32"), tt(rshape, "f32")),
    ])
    return Case(name, doc, [("cache", cshape, "f32", cache), ("new", nshape, "f32", new)], body,
                [("c2", cshape, "f32"), ("kv", rshape, "f32")],
                [upd, read_ref(upd, cshape, length)])


CASES = [
    case("kv-cache-append-read", "Append 2 tokens at position 3 of a [1, 2, 6, 3] cache, read 5.",
         [1, 2, 6, 3], 2, 3, 5, 31),
    case("kv-cache-append-clamped", "An out-of-range run-time position (10) is clamped to Smax - Snew = 4.",
         [2, 1, 6, 2], 2, 10, 5, 32),
]
