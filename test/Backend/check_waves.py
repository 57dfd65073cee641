"""Checks the block-dispatch events of a GPU-like trace (npu-report-cost).

Every kernel event must be covered exactly by its wave events (thread tid+1,
same process): a launch event of `launch_ns` x launches (2 for gated_mlp, 3
for moe_ffn: its dispatch, then its two grouped GEMMs; else 1), then per grid its DRAM fill (if any), waves and tail,
ending where the kernel ends.
Usage: check_waves.py TRACE LAUNCH_NS
"""
import json
import sys

trace = json.load(open(sys.argv[1]))["traceEvents"]
launch_us = float(sys.argv[2]) / 1e3
waves = [e for e in trace if e.get("cat") == "wave"]
kernels = [e for e in trace if e.get("ph") == "X" and e.get("cat") not in ("wave", "call")]
assert kernels, "no kernels"
eps = 1e-6
for k in kernels:
    start, end = k["ts"], k["ts"] + k["dur"]
    mine = sorted((w for w in waves if w["pid"] == k["pid"] and w["tid"] == k["tid"] + 1
                   and start - eps <= w["ts"] and w["ts"] + w["dur"] <= end + eps),
                  key=lambda w: w["ts"])
    assert mine and mine[0]["name"] == "launch", (k["name"], "no launch event")
    launches = {"gated_mlp": 2, "moe_ffn": 3}.get(k["cat"], 1)
    assert abs(mine[0]["dur"] - launches * launch_us) < 1e-6 * max(1, k["dur"]), \
        (k["name"], mine[0]["dur"], launches * launch_us)
    t = start
    for w in mine:
        assert abs(w["ts"] - t) < 1e-6 * max(1, end), (k["name"], "gap or overlap", w)
        t = w["ts"] + w["dur"]
    assert abs(t - end) < 1e-6 * max(1, end), (k["name"], "waves end at", t, "kernel at", end)
fills = sum(w["name"].endswith(": fill") for w in waves)
print("waves ok: %d kernels, %d wave events, %d fill events"
      % (len(kernels), len(waves), fills))
