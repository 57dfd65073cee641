#!/usr/bin/env python3
"""The DeepGEMM rows of the validation table priced at DeepGEMM's own kernel
configuration, not the model's.

npu-target/validation.md prices every GEMM row with the tile and cluster the
model itself picks (the best it knows). A published DeepGEMM timing is of
the configuration DeepGEMM's heuristic picked, which can be far from that
(M = 64, N = 2112: 132 blocks of 64 x 16, each reading all of A through L2).
This script prices each DeepGEMM row at that configuration instead (block M
and N, BLOCK_K 128, TMA multicast as a 2-block cluster), so that the model's
mechanics are compared with the measurement apart from the tile choice, at
one or more values of the H100's L2 bandwidth (the field's source is an H100
PCIe measurement; docs/cost-model-gpu.md, "Validation at DeepGEMM's own
configurations"). It prints a markdown table; it changes no file.

The configurations are those of DeepGEMM's `get_best_configs`
(deep_gemm/jit_kernels/gemm.py) at the commit that last changed each row of
the README's table: a6d97a1 (2025-02-25) for the M = 64 and 128 rows and
the masked grouped rows, 55ab91f (2025-03-25) for 4096 x 7168 x 2048 and
the contiguous grouped rows, a9967bc (= 327ec92's kernel, 2025-04-09) for the
other M = 4096 rows; computed by running that heuristic with 132 SMs.

usage: python3 scripts/validation_configs.py [L2 bytes/s ...]   (needs ./build)
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validation as V  # noqa: E402

# (M per group, N, K, groups) -> (block M, block N, multicast: None, "A", "B")
CONFIGS = {}


def _put(m, n, k, g, bm, bn, mc):
    CONFIGS[(m, n, k, g)] = (bm, bn, mc)


for _n, _k, _bn in [(2112, 7168, 16), (24576, 1536, 96), (32768, 512, 128),
                    (7168, 16384, 56), (4096, 7168, 32), (7168, 2048, 56)]:
    _put(64, _n, _k, 1, 64, _bn, None)      # a6d97a1
    _put(128, _n, _k, 1, 128, _bn, None)    # a6d97a1
_put(4096, 2112, 7168, 1, 256, 88, "A")     # a9967bc
_put(4096, 24576, 1536, 1, 256, 128, "A")
_put(4096, 32768, 512, 1, 256, 128, "A")
_put(4096, 7168, 16384, 1, 256, 128, "A")
_put(4096, 4096, 7168, 1, 256, 128, "A")
_put(4096, 7168, 2048, 1, 128, 160, "B")    # 55ab91f
for _m, _g in [(8192, 4), (4096, 8)]:       # 55ab91f, contiguous
    _put(_m, 4096, 7168, _g, 128, 160, "B")
    _put(_m, 7168, 2048, _g, 128, 160, "B")
_put(1024, 4096, 7168, 1, 128, 128, "A")    # a6d97a1, masked
_put(1024, 7168, 2048, 1, 128, 112, "A")
for _m, _g in [(512, 2), (256, 4)]:
    _put(_m, 4096, 7168, _g, 128, 128, None)
    _put(_m, 7168, 2048, _g, 128, 112, None)


def npu_opt(args, text):
    p = subprocess.run([os.path.join(V.BIN, "npu-opt"), "-"] + args,
                       input=text, capture_output=True, text=True)
    if p.returncode:
        sys.exit("validation_configs.py: npu-opt failed:\n" + p.stderr[:2000])
    return p.stdout


def priced(m, target, fn, l2):
    """Device time (ns) of the row at DeepGEMM's configuration."""
    s = m["shape"]
    key = ((s["m_per_group"], s["n"], s["k"], s["groups"])
           if m["kind"] == "grouped_gemm" else (s["m"], s["n"], s["k"], 1))
    bm, bn, mc = CONFIGS[key]
    cm, cn = {None: (1, 1), "A": (1, 2), "B": (2, 1)}[mc]
    out = npu_opt([f"--npu-gpu-pipeline=target={target} {V.options_of(m)}".strip()], fn)
    out = re.sub(r"tile = \[1, \d+, \d+, \d+\]", f"tile = [1, {bm}, {bn}, 128]", out)
    out = re.sub(r"cluster_m = \d+, cluster_n = \d+",
                 f"cluster_m = {cm}, cluster_n = {cn}", out)
    if l2:
        out = re.sub(r"l2_bandwidth_bytes_per_s = [0-9.e+]+",
                     f"l2_bandwidth_bytes_per_s = {l2:e}", out)
    cost = json.loads(npu_opt(["--npu-estimate-cost=target-kind=gpu",
                               "--npu-schedule-kernels",
                               "--npu-report-cost=format=json", "-o", "/dev/null"],
                              out))
    f = cost["functions"][0]
    with open(os.path.join(V.TARGETS, target + ".json")) as tf:
        launch = json.load(tf)["gpu"]["launch_overhead_ns"]
    return f["total"]["time_ns"] - launch * len(f["kernels"]), (bm, bn, mc)


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def main():
    l2s = [float(a) for a in sys.argv[1:]] or [None]
    rows = [(m, t, b) for m, t, b in V.load()
            if m["id"].startswith("dg_") and not isinstance(b, str)]
    head = ["id", "config (BM x BN, multicast)", "measured us"] + [
        f"model us, L2 {l2 / 1e12:.2f} TB/s" if l2 else "model us, target L2"
        for l2 in l2s]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    errors = [[] for _ in l2s]
    for m, target, (fn, work) in rows:
        want = V.measured_ns(m, work)
        cells = []
        for i, l2 in enumerate(l2s):
            got, (bm, bn, mc) = priced(m, target, fn, l2)
            err = (got - want) / want
            errors[i].append(abs(err))
            cells.append(f"{got / 1e3:.2f} ({err * 100:+.1f}%)")
        print(f"| {m['id']} | {bm} x {bn}, {mc or '-'} | {want / 1e3:.2f} | "
              + " | ".join(cells) + " |")
    print("| median abs(error) | | | "
          + " | ".join(f"{median(e) * 100:.1f}%" for e in errors) + " |")


if __name__ == "__main__":
    main()
