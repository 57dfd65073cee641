#!/usr/bin/env python3
"""The DeepGEMM rows of the validation table at other L2 bandwidths.

npu-target/validation.md prices each measurement that states its kernel
configuration (DeepGEMM's: block M x N, BLOCK_K 128, a TMA multicast; the
`config` of each row of npu-target/measure/published.json, with the commit
of DeepGEMM's heuristic it comes from) at that configuration. Those
configurations are often L2-bound (M = 64, N = 2112: 132 blocks of 64 x 16,
each reading all of A through L2), so the target's L2 bandwidth is the field
these rows rest on. This script prices each of them, at its configuration,
at the L2 bandwidths given (bytes/s; none: the target's own) and prints a
markdown table with the median error per bandwidth; it changes no file
(docs/cost-model-gpu.md, "Validation at DeepGEMM's own configurations").

usage: python3 scripts/validation_configs.py [L2 bytes/s ...]   (needs ./build)
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validation as V  # noqa: E402


def main():
    l2s = [float(a) for a in sys.argv[1:]] or [None]
    rows = [(m, t, b) for m, t, b in V.load()
            if m.get("config") and not isinstance(b, str)]
    head = ["id", "config (BM x BN, multicast)", "measured us"] + [
        f"model us, L2 {l2 / 1e12:.2f} TB/s" if l2 else "model us, target L2"
        for l2 in l2s]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    errors = [[] for _ in l2s]
    for m, target, (fn, work) in rows:
        want = V.measured_ns(m, work)
        c = m["config"]
        cells = []
        for i, l2 in enumerate(l2s):
            got = V.priced(m, os.path.join(V.TARGETS, target + ".json"), fn, l2)
            err = (got - want) / want
            errors[i].append(abs(err))
            cells.append(f"{got / 1e3:.2f} ({err * 100:+.1f}%)")
        print(f"| {m['id']} | {c['block_m']} x {c['block_n']}, "
              f"{c['tma_multicast'] or '-'} | {want / 1e3:.2f} | "
              + " | ".join(cells) + " |")
    print("| median abs(error) | | | "
          + " | ".join(f"{statistics.median(e) * 100:.1f}%" for e in errors) + " |")


if __name__ == "__main__":
    main()
