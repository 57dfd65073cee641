#!/usr/bin/env python3
"""How few K/V reads can causal attention on one core's SRAM get away with?

A lower bound over a family of schedules, for docs/cost-model-tpu.md
("attention"): one head at a time, its queries in blocks taken in order, each
block's state (Q or its staged output, the f32 output, max and sum) kept on
chip from its first key to its last (no spill to HBM), and the keys on chip a
prefix of the head's keys whose length may grow or shrink between blocks (any
set of keys of that size would read as much: a block re-reads every key it
sees that is not held). Block sizes may differ (multiples of --grain). A block
of queries [p, p + t) with h keys held after it costs the keys it must load:
the newly held ones and the streamed ones past the prefix.

The dynamic program minimises the keys read per head; the report also gives
the best uniform schedule (one block size, one prefix: what npu-tile-kernels
lowers and npu-decide-tiles searches). Defaults: DeepSeek-V3 MLA prefill at
128K on tpu-v7 (64 MiB per core; Q 192 and V 128 bf16 per position; a 256 x
1024 f32 score sub-tile and one 1024-key K/V tile beside the prefix).
"""
import argparse
import functools
import sys


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--seq", type=int, default=131072)
    a.add_argument("--sram", type=int, default=64 << 20)
    a.add_argument("--dqk", type=int, default=192)
    a.add_argument("--dv", type=int, default=128)
    a.add_argument("--tkv", type=int, default=1024)
    a.add_argument("--sub", type=int, default=256, help="query sub-tile rows")
    a.add_argument("--grain", type=int, default=2048)
    o = a.parse_args()

    key = 2 * (o.dqk + o.dv)                       # K and V, bf16
    query = max(2 * o.dqk, 2 * o.dv) + 4 * o.dv + 8  # Q or bf16 output, f32 output, max/sum
    fixed = 4 * o.sub * (o.tkv + 3) + o.tkv * key  # score sub-tile, streamed K/V tile
    room = o.sram - fixed
    minimum = o.seq * (2 * o.dqk + key + 2 * o.dv)  # Q, K, V, O once
    g, n = o.grain, o.seq // o.grain

    def held(t):  # the longest prefix (in grains) beside a block of t grains
        return max(-1, (room - query * t * g) // (key * g))

    sys.setrecursionlimit(10000)

    @functools.lru_cache(None)
    def best(p, h):
        if p == n:
            return 0
        r = None
        for t in range(1, n - p + 1):
            top = held(t)
            if top < 0:
                break
            for h2 in range(0, top + 1):
                cost = max(h2, p + t) - h if h2 > h else max(0, p + t - h2)
                c = cost + best(p + t, h2)
                r = c if r is None or c < r else r
        return r if r is not None else float("inf")

    def uniform():
        out = None
        for t in range(1, n + 1):
            h = min(held(t), n)
            if h < 0:
                break
            keys = h + sum(max(0, min(p + t, n) - h) for p in range(0, n, t))
            if out is None or keys < out[0]:
                out = (keys, t, h)
        return out

    def ratio(keys):
        return (minimum + (keys * g - o.seq) * key) / minimum

    u = uniform()
    d = best(0, 0)
    print(f"per position: key {key} B, query state {query} B; SRAM for both "
          f"{room} B")
    print(f"uniform blocks: {u[1] * g} positions, {u[2] * g} keys held: "
          f"{u[0] * g / o.seq:.3f} K/V reads, traffic / min {ratio(u[0]):.3f}")
    print(f"best schedule of the family: {d * g / o.seq:.3f} K/V reads, "
          f"traffic / min {ratio(d):.3f}")


if __name__ == "__main__":
    main()
