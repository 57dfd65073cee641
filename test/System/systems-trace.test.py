"""Checks the traces npu-compare --systems --trace-dir wrote (systems-trace.test)."""
import json
import os
import sys

d = sys.argv[1]
step = json.load(open(os.path.join(d, "step.json")))
for side in ("tpu", "gpu"):
    trace = json.load(open(os.path.join(d, f"systems-{side}-trace.json")))
    events = trace["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    print(f"{side} tracks: {', '.join(names[t] for t in sorted(names))}")
    slices = [e for e in events if e["ph"] == "X"]
    compute = sum(e["dur"] for e in slices if names[e["tid"]] == "compute")
    best = step[side]["best"]
    if best["pp"] > 1:
        # The trace draws one micro-batch's pass through the stage; the
        # step's compute counts every micro-batch and the bubble.
        print(f"{side} compute track: one micro-batch of a pipeline stage")
    else:
        want = (best["compute_seconds"] + best["exposed_seconds"]) * 1e6
        ok = abs(compute - want) <= 1e-6 * want
        print(f"{side} compute track = compute + exposed: "
              f"{'ok' if ok else f'{compute} us != {want} us'}")
    moe = sorted({e["name"] for e in slices if e["name"].endswith("moe_ffn")})
    print(f"{side} the MoE kernel of both micro-batches: {', '.join(moe)}")
