"""Checks npu-sweep's CSV against the backends, point by point.

Each priced row's time must be the @model time npu-opt prints for the same
workload (npu-translate with the spec's import options) and the same target
variant (the row's canonical name, given back to the pipeline's `target`).
Usage: check_sweep.py <rows.csv> <spec.json> <bin dir>
Prints one line per checked row; exits 1 on a mismatch.
"""
import csv
import json
import os
import subprocess
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
spec_path, bindir = sys.argv[2], sys.argv[3]
spec = json.load(open(spec_path))
workloads = {w["name"]: w for w in spec["workloads"]}

ok = True
for row in rows:
    if row["error"]:
        print("point %s: error (%s)" % (row["index"], row["error"][:60]))
        continue
    w = workloads[row["workload"]]
    config = os.path.join(os.path.dirname(spec_path), w["config"])
    args = ["--phase=" + w.get("phase", "prefill"), "--batch=%d" % w.get("batch", 1)]
    if "seq_len" in w:
        args.append("--seq-len=%d" % w["seq_len"])
    if "context_len" in w:
        args.append("--context-len=%d" % w["context_len"])
    ir = subprocess.run([bindir + "/npu-translate", "--import-hf-config", config] + args,
                        check=True, capture_output=True).stdout
    report = json.loads(subprocess.run(
        [bindir + "/npu-opt", "--npu-%s-pipeline=target=%s" % (row["kind"], row["target"]),
         "--npu-report-cost=format=json", "-o", "/dev/null"],
        input=ir, check=True, capture_output=True).stdout)
    funcs = {f["name"]: f for f in report["functions"]}
    want = funcs["model"]["total"]["time_ns"] * 1e-3
    got = float(row["time_us"])
    same = abs(got - want) <= 1e-9 * want
    ok &= same
    print("point %s: %s %s us" % (row["index"], "same" if same else "DIFFERS", row["time_us"]))
sys.exit(0 if ok else 1)
