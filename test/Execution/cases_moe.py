"""Execution cases of npu.moe_router and npu.moe_experts, with an independent
pure-Python reference (DeepSeek-V3 noaux_tc routing, SwiGLU experts)."""
import math

from gen import Case, Rng, prod


def tt(shape, dtype):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), dtype)


def router_ref(logits, t, e, k, scoring, bias=None, groups=None, norm=False, scale=1.0,
               group_top=2):
    """Returns (indices, weights) flat, and the smallest gap between two
    compared selection (or group) scores, so that a case can make sure f32
    rounding cannot reorder them."""
    idx_out, w_out = [], []
    gap = float("inf")
    for r in range(t):
        row = logits[r * e:(r + 1) * e]
        if scoring == "sigmoid":
            score = [1.0 / (1.0 + math.exp(-v)) for v in row]
        else:
            m = max(row)
            ex = [math.exp(v - m) for v in row]
            s = sum(ex)
            score = [v / s for v in ex]
        sel = [score[i] + (bias[i] if bias else 0.0) for i in range(e)]
        cand = list(range(e))
        if groups:
            n, g = groups
            gs = e // n
            gscore = []
            for gi in range(n):
                vals = sorted(sel[gi * gs:(gi + 1) * gs], reverse=True)
                gscore.append(sum(vals[:min(group_top, gs)]))
            order = sorted(range(n), key=lambda gi: (-gscore[gi], gi))
            kept = set(order[:g])
            cand = [i for i in range(e) if i // gs in kept]
            gap = min(gap, min(abs(gscore[a] - gscore[b]) for a in range(n) for b in range(a)))
        # A larger selection score first, ties: the lower expert; NaN as -inf.
        key = [v if v == v else -math.inf for v in sel]
        chosen = sorted(cand, key=lambda i: (-key[i], i))[:k]
        gap = min(gap, min(abs(key[a] - key[b]) for a in cand for b in cand if a < b))
        w = [score[i] for i in chosen]
        if norm:
            s = sum(w)
            w = [v / s for v in w]
        w = [v * scale for v in w]
        idx_out += chosen
        w_out += w
    return idx_out, w_out, gap


def router_case(name, doc, t, e, k, scoring, idx_dtype, seed, with_bias=False,
                groups=None, norm=False, scale=None, logits=None, group_top=2):
    """Random logits unless `logits` are given: then ties are meant (equal
    logits give bit-equal f32 scores) and the tie rule decides."""
    r = Rng(seed)
    ties = logits is not None
    if not ties:
        logits = r.values(t * e, -4.0, 4.0)
    bias = r.values(e, -0.5, 0.5) if with_bias else None
    idx, w, gap = router_ref(logits, t, e, k, scoring, bias, groups, norm,
                             scale if scale is not None else 1.0, group_top)
    # Distinct compared scores (f32 rounding cannot change the choice).
    assert ties or gap > 1e-5, (name, gap)
    inputs = [("logits", [t, e], "f32", logits)]
    operands, types = "%logits", tt([t, e], "f32")
    if with_bias:
        inputs.append(("bias", [e], "f32", bias))
        operands += ", %bias"
        types += ", " + tt([e], "f32")
    attrs = "top_k(%d) scoring(%s)" % (k, scoring)
    if groups:
        attrs += " groups(%d, %d)" % groups
    if group_top != 2:
        attrs += " group_top(%d)" % group_top
    if norm:
        attrs += " norm_topk"
    if scale is not None:
        attrs += " scale(%r)" % scale
    body = "%%idx, %%w = npu.moe_router %s %s : %s -> %s, %s" % (
        operands, attrs, types, tt([t, k], idx_dtype), tt([t, k], "f32"))
    return Case(name, doc, inputs, body,
                [("idx", [t, k], idx_dtype), ("w", [t, k], "f32")], [idx, w])


def silu(v):
    return v / (1.0 + math.exp(-v))


def oss_gate(g, u, limit):
    """GPT-OSS's clamped SwiGLU: (clamp(u) + 1) * g' * sigmoid(1.702 g')."""
    g = min(g, limit)
    u = max(min(u, limit), -limit)
    return (u + 1.0) * g / (1.0 + math.exp(-1.702 * g))


def ffn(x, wg, wu, wd, d, f, bg=None, bu=None, bd=None, limit=None):
    """down(act(gate x + bg, up x + bu)) + bd with nn.Linear layouts [F, D],
    [F, D], [D, F]; act = silu(g) * u, or GPT-OSS's clamped form."""
    h = []
    for i in range(f):
        g = sum(wg[i * d + c] * x[c] for c in range(d)) + (bg[i] if bg else 0.0)
        u = sum(wu[i * d + c] * x[c] for c in range(d)) + (bu[i] if bu else 0.0)
        h.append(oss_gate(g, u, limit) if limit else silu(g) * u)
    return [sum(wd[o * f + i] * h[i] for i in range(f)) + (bd[o] if bd else 0.0)
            for o in range(d)]


def experts_case(name, doc, t, d, f, e, k, seed, fs=None, biases=False, limit=None):
    r = Rng(seed)
    x = r.values(t * d)
    idx = []
    for _ in range(t):  # k distinct experts per token
        pool = list(range(e))
        for _ in range(k):
            idx.append(pool.pop(r.ints(1, 0, len(pool))[0]))
    w = r.values(t * k, 0.0, 1.0)
    wg = r.values(e * f * d)
    wu = r.values(e * f * d)
    wd = r.values(e * d * f)
    inputs = [("x", [t, d], "f32", x), ("idx", [t, k], "i64", idx), ("w", [t, k], "f32", w),
              ("wg", [e, f, d], "f32", wg), ("wu", [e, f, d], "f32", wu), ("wd", [e, d, f], "f32", wd)]
    types = [tt([t, d], "f32"), tt([t, k], "i64"), tt([t, k], "f32"), tt([e, f, d], "f32"),
             tt([e, f, d], "f32"), tt([e, d, f], "f32")]
    shared = ""
    if fs:
        sg, su, sd = r.values(fs * d), r.values(fs * d), r.values(d * fs)
        inputs += [("sg", [fs, d], "f32", sg), ("su", [fs, d], "f32", su), ("sd", [d, fs], "f32", sd)]
        types += [tt([fs, d], "f32"), tt([fs, d], "f32"), tt([d, fs], "f32")]
        shared = " shared(%sg, %su, %sd)"
    extra, bias_types = "", []
    if biases:
        bg, bu, bd = r.values(e * f), r.values(e * f), r.values(e * d)
        inputs += [("bg", [e, f], "f32", bg), ("bu", [e, f], "f32", bu),
                   ("bd", [e, d], "f32", bd)]
        bias_types = [tt([e, f], "f32"), tt([e, f], "f32"), tt([e, d], "f32")]
        extra += " biases(%bg, %bu, %bd)"
    if limit:
        extra += " swiglu_limit(%r)" % limit
    out = []
    for tok in range(t):
        xt = x[tok * d:(tok + 1) * d]
        y = ffn(xt, sg, su, sd, d, fs) if fs else [0.0] * d
        for j in range(k):
            ex = idx[tok * k + j]
            o = ffn(xt, wg[ex * f * d:(ex + 1) * f * d], wu[ex * f * d:(ex + 1) * f * d],
                    wd[ex * d * f:(ex + 1) * d * f], d, f,
                    bg[ex * f:(ex + 1) * f] if biases else None,
                    bu[ex * f:(ex + 1) * f] if biases else None,
                    bd[ex * d:(ex + 1) * d] if biases else None, limit)
            y = [y[c] + w[tok * k + j] * o[c] for c in range(d)]
        out += y
    type_list = ", ".join(types)
    if bias_types:
        type_list += " biases " + ", ".join(bias_types)
    body = ("%%y = npu.moe_experts %%x, %%idx, %%w, %%wg, %%wu, %%wd%s%s load(#npu.expert_load<uniform>) "
            ": %s -> %s" % (shared, extra, type_list, tt([t, d], "f32")))
    return Case(name, doc, inputs, body, [("y", [t, d], "f32")], [out])


CASES = [
    router_case("moe-router-softmax-top2", "Softmax top-2 routing with norm_topk (Mixtral style).",
                3, 8, 2, "softmax", "i32", 11, norm=True),
    router_case("moe-router-sigmoid-grouped",
                "DeepSeek-V3 routing: sigmoid, selection bias, groups(4, 2), top-2, norm, scale 2.5.",
                4, 8, 2, "sigmoid", "i64", 12, with_bias=True, groups=(4, 2), norm=True, scale=2.5),
    router_case("moe-router-softmax-group-max",
                "DeepSeek-V2 routing (group_limited_greedy): softmax, groups(4, 2) ranked by "
                "their best expert (group_top(1)), top-3, scale 16, no norm. With the default "
                "group_top(2) the first token would pick expert 0, not 3.",
                3, 12, 3, "softmax", "i32", 23, groups=(4, 2), scale=16.0, group_top=1),
    router_case("moe-router-sigmoid-top3", "Sigmoid top-3 without bias, norm or scale (raw scores).",
                2, 6, 3, "sigmoid", "i32", 13),
    router_case("moe-router-ties-nan",
                "Ties and NaN: equal scores go in expert order; a NaN score ranks below every "
                "number (as -inf), so experts scored 0 (logits -inf) are chosen before it.",
                2, 6, 3, "sigmoid", "i64", 14,
                logits=[1.0, 2.0, 1.0, 2.0, math.nan, 0.5,
                        math.nan, -math.inf, -math.inf, 3.0, math.nan, -math.inf]),
    experts_case("moe-experts", "Routed SwiGLU experts, T=3 D=4 F=3 E=4 k=2, no shared expert.",
                 3, 4, 3, 4, 2, 21),
    experts_case("moe-experts-gpt-oss",
                 "GPT-OSS experts: per-expert gate/up/down biases and the clamped SwiGLU "
                 "(limit 1.5, so some gates and ups are clamped), T=3 D=4 F=3 E=4 k=2.",
                 3, 4, 3, 4, 2, 23, biases=True, limit=1.5),
    experts_case("moe-experts-shared", "Routed SwiGLU experts plus a shared expert (Fs=2).",
                 2, 4, 3, 3, 2, 22, fs=2),
]
