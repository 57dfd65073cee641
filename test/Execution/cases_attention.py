"""Execution cases of npu.attention, with an independent reference.

The reference works on nested lists with a textbook softmax (no running max,
no linalg structure): for every (batch, query head, query) it lists the
visible keys directly from the masking rule, then normalizes.
"""
import math

from cases_quant import draw, e4m3fn
from gen import Case, Rng, prod


def nest(flat, shape):
    """Flat row-major list -> nested lists of `shape`."""
    if len(shape) == 1:
        return list(flat)
    step = prod(shape[1:])
    return [nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def flatten(x):
    if isinstance(x, list):
        return [v for e in x for v in flatten(e)]
    return [x]


def attention_ref(q, k, v, qshape, kshape, dv, scale, causal, window, softcap=None,
                  sinks=None, chunk=None):
    """q [B,Hq,Sq,D], k [B,Hkv,Skv,D], v [B,Hkv,Skv,Dv] (nested lists)."""
    B, Hq, Sq, D = qshape
    Hkv, Skv = kshape[1], kshape[2]
    group = Hq // Hkv
    out = []
    for b in range(B):
        for h in range(Hq):
            kh = h // group
            for i in range(Sq):
                pos = Skv - Sq + i  # bottom-right aligned position of query i
                # A chunk: the key lies in the query's chunk of positions.
                keys = [j for j in range(Skv)
                        if not causal or (j <= pos and (window is None or pos - j < window)
                                          and (chunk is None or j // chunk == pos // chunk))]
                logits = [scale * sum(q[b][h][i][d] * k[b][kh][j][d] for d in range(D))
                          for j in keys]
                if softcap is not None:
                    logits = [softcap * math.tanh(s / softcap) for s in logits]
                # A sink takes part in the max and the sum, not in the values.
                m = max(logits + ([sinks[h]] if sinks else []))
                w = [math.exp(s - m) for s in logits]
                total = sum(w) + (math.exp(sinks[h] - m) if sinks else 0.0)
                for c in range(dv):
                    out.append(sum(wj * v[b][kh][j][c] for wj, j in zip(w, keys)) / total)
    return out


def ttype(shape, dtype="f32"):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), dtype)


def case(name, doc, qshape, kshape, dv, seed, scale=None, causal=False, window=None,
         latent=False, softcap=None, sinks=False, kv_dtype="f32", q_dtype="f32",
         chunk=None):
    B, Hq, Sq, D = qshape
    Hkv, Skv = kshape[1], kshape[2]
    vshape = [B, Hkv, Skv, dv]
    oshape = [B, Hq, Sq, dv]
    r = Rng(seed)
    q = (draw(r, prod(qshape), 8, e4m3fn, lambda b: (b & 0x7F) < 0x48)
         if q_dtype == "f8E4M3FN" else r.values(prod(qshape), -2.0, 2.0))
    if kv_dtype == "f8E4M3FN":
        # Random e4m3fn bit patterns of magnitude below 4 (exponent field
        # below 9), decoded by the format's definition (cases_quant.py).
        def kv_values(n):
            return draw(r, n, 8, e4m3fn, lambda b: (b & 0x7F) < 0x48)
    else:
        def kv_values(n):
            return r.values(n, -2.0, 2.0)
    k = kv_values(prod(kshape))
    inputs = [("q", qshape, q_dtype, q), ("k", kshape, kv_dtype, k)]
    kn = nest(k, kshape)
    if latent:
        # V is the first dv channels of the key (the compressed latent c_kv).
        vn = [[[row[:dv] for row in head] for head in batch] for batch in kn]
    else:
        v = kv_values(prod(vshape))
        inputs.append(("v", vshape, kv_dtype, v))
        vn = nest(v, vshape)
    attrs = ""
    sink_vals = None
    if sinks:
        # Around the logits' range, so that some rows give the sink most of
        # their weight and others little.
        sink_vals = r.values(qshape[1], -3.0, 3.0)
        inputs.append(("s", [qshape[1]], "f32", sink_vals))
        attrs += " sinks(%s)"
    if latent:
        attrs += " latent(%d)" % dv
    if scale is not None:
        attrs += " scale(%r)" % scale
    if softcap is not None:
        attrs += " softcap(%r)" % softcap
    if causal:
        attrs += " causal"
    if window is not None:
        attrs += " window(%d)" % window
    if chunk is not None:
        attrs += " chunk(%d)" % chunk
    operands = "%q, %k" + ("" if latent else ", %v")
    types = [ttype(qshape, q_dtype), ttype(kshape, kv_dtype)] + (
        [] if latent else [ttype(vshape, kv_dtype)])
    if sinks:
        types.append("sinks " + ttype([qshape[1]]))
    body = "%%out = npu.attention %s%s : %s -> %s" % (operands, attrs, ", ".join(types),
                                                      ttype(oshape))
    eff_scale = scale if scale is not None else 1.0 / math.sqrt(D)
    expected = attention_ref(nest(q, qshape), kn, vn, qshape, kshape, dv, eff_scale,
                             causal, window, softcap, sink_vals, chunk)
    return Case(name, doc, inputs, body, [("out", oshape, "f32")], [expected])


CASES = [
    case("attention-mha", "Multi-head attention, not causal, default scale 1/sqrt(4).",
         [2, 2, 3, 4], [2, 2, 5, 4], 4, 11),
    case("attention-gqa-causal", "GQA (Hq=4, Hkv=2) causal prefill, Sq = Skv = 4.",
         [1, 4, 4, 4], [1, 2, 4, 4], 4, 12, causal=True),
    case("attention-mqa", "MQA (Hq=3, Hkv=1), explicit scale, not causal.",
         [1, 3, 2, 4], [1, 1, 5, 4], 4, 13, scale=0.25),
    case("attention-causal-offset", "Causal with Sq=2 < Skv=6: queries at positions 4 and 5.",
         [1, 2, 2, 4], [1, 2, 6, 4], 4, 14, causal=True),
    case("attention-window", "Causal sliding window 3 over Sq=5, Skv=7 (GQA Hq=2, Hkv=1).",
         [1, 2, 5, 4], [1, 1, 7, 4], 4, 15, causal=True, window=3),
    case("attention-chunk", "Llama-4 style chunked attention: chunks of 3 positions, Sq=5 < "
         "Skv=8 (queries at positions 3..7, two chunks and part of a third; GQA Hq=4, Hkv=2).",
         [1, 4, 5, 4], [1, 2, 8, 4], 4, 22, causal=True, chunk=3),
    case("attention-softcap", "Gemma-2 style: logits soft-capped at 1.5 (c tanh(s / c)), scale 1, "
         "causal window 3 (GQA Hq=2, Hkv=1).",
         [1, 2, 4, 4], [1, 1, 6, 4], 4, 18, scale=1.0, causal=True, window=3, softcap=1.5),
    case("attention-sinks", "GPT-OSS style: one sink logit per query head (GQA Hq=4, Hkv=2), "
         "causal window 3, Sq=3 < Skv=5.",
         [1, 4, 3, 4], [1, 2, 5, 4], 4, 19, causal=True, window=3, sinks=True),
    case("attention-fp8-kv", "An fp8 (e4m3fn) K/V cache read by an f32 query: GQA (Hq=4, "
         "Hkv=2) causal decode, Sq=2 < Skv=5; K and V decoded from their bits.",
         [1, 4, 2, 4], [1, 2, 5, 4], 4, 20, causal=True, kv_dtype="f8E4M3FN"),
    case("attention-fp8-qkv", "FlashAttention-3's fp8 forward: e4m3fn query, keys and values "
         "(f32 result), MQA (Hq=2, Hkv=1), causal window 3, Sq=3 < Skv=6.",
         [1, 2, 3, 4], [1, 1, 6, 4], 4, 21, causal=True, window=3,
         kv_dtype="f8E4M3FN", q_dtype="f8E4M3FN"),
    case("attention-mla", "MLA prefill: Dqk=6, Dv=4, causal, default scale 1/sqrt(6).",
         [1, 2, 3, 6], [1, 2, 3, 6], 4, 16, causal=True),
    case("attention-mla-latent", "MLA latent decode: Sq=1, Hkv=1, V = kv[..., 0:4] of Dqk=6.",
         [1, 4, 1, 6], [1, 1, 5, 6], 4, 17, scale=0.375, causal=True, latent=True),
]
