"""Checks the arithmetic of the "ragged_decode" part of an npu-compare JSON
report against its own sampled context lengths, independently of the C++.

usage: check_ragged.py <report.json> <KV element bytes>

For every scenario:
* the sample has `batch` lengths, in the spec's range (uniform:<min>:<max>,
  longtail:<median>:<max>[:<sigma>] in [1, max], list:... as given);
* the pad plan: padded = sum(plan - min(L, plan)), dropped = sum(max(0,
  L - plan)), one kernel; the bucket plan: each sequence in the smallest
  bucket >= min(L, plan), the same dropped tokens, one kernel per
  non-empty bucket;
* wasted FLOPs = padded * 2 * Hq * (Dqk + Dv), wasted KV bytes = padded *
  Hkv * (Dqk + Dv, or Dqk alone in the latent form) * element bytes;
* the run-time FLOPs = sum(L) * 2 * Hq * (Dqk + Dv) (nothing dropped);
* the run-time time is at least its compute makespan and its memory time.
Prints one line per scenario.
"""

import bisect
import json
import sys


def plan_of(lengths, buckets):
    plan = buckets[-1]
    padded = dropped = 0
    used = set()
    for length in lengths:
        kept = min(length, plan)
        b = buckets[bisect.bisect_left(buckets, kept)]
        used.add(b)
        padded += b - kept
        dropped += length - kept
    return padded, dropped, len(used)


def main():
    report = json.load(open(sys.argv[1]))
    elem = int(sys.argv[2])
    for s in report["ragged_decode"]:
        lengths, plan = s["context_lengths"], s["planned_context"]
        assert len(lengths) == s["batch"], s["lengths"]
        kind, *args = s["lengths"].split(":")
        if kind == "uniform":
            lo, hi = int(args[0]), int(args[1])
        elif kind == "longtail":
            lo, hi = 1, int(args[1])
        else:
            assert lengths == [int(a) for a in args]
            lo, hi = min(lengths), max(lengths)
        assert all(lo <= n <= hi for n in lengths), (s["lengths"], lengths)
        assert s["kv_tokens"] == sum(lengths)
        assert s["bucket_lengths"][-1] == plan
        per_token_flops = 2 * s["q_heads"] * (s["qk_dim"] + s["v_dim"])
        width = s["qk_dim"] + (0 if s["latent"] else s["v_dim"])
        per_token_bytes = s["kv_heads"] * width * elem
        for name, buckets in (("pad", [plan]),
                              ("bucket", s["bucket_lengths"])):
            p = s[name]
            padded, dropped, kernels = plan_of(lengths, buckets)
            assert p["padded_kv_tokens"] == padded, (name, p, padded)
            assert p["dropped_tokens"] == dropped, (name, p, dropped)
            assert p["kernels"] == kernels == len(p["buckets"]), (name, p)
            assert sum(b["sequences"] for b in p["buckets"]) == s["batch"]
            assert p["wasted_flops"] == padded * per_token_flops, (name, p)
            assert p["wasted_kv_bytes"] == padded * per_token_bytes, (name, p)
            assert p["time_ns"] > 0
        r = s["runtime"]
        assert r["flops"] == sum(lengths) * per_token_flops, r
        assert r["time_ns"] >= max(r["compute_makespan_ns"], r["memory_ns"])
        print("ok %s: padded %d / %d, dropped %d" %
              (s["lengths"], s["pad"]["padded_kv_tokens"],
               s["bucket"]["padded_kv_tokens"], s["pad"]["dropped_tokens"]))


if __name__ == "__main__":
    main()
