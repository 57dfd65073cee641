"""Checks a cost table from npu-serve --emit-costs against the backends.

Each point must be the @model time of the same shape compiled by npu-opt
(--npu-tpu-pipeline or --npu-gpu-pipeline), and its attention part the sum
of the attention kernels' times times their function's runs per @model.
Usage: check_table.py <tables.json> <config.json> <bin dir>
Prints one line per checked point; exits 1 on a mismatch.
"""
import json
import subprocess
import sys

tables = json.load(open(sys.argv[1]))
config, bindir = sys.argv[2], sys.argv[3]


def compile_point(kind, target, phase, batch, length):
    shape = (["--seq-len=%d" % length] if phase == "prefill"
             else ["--batch=%d" % batch, "--context-len=%d" % length])
    ir = subprocess.run([bindir + "/npu-translate", "--import-hf-config",
                         config, "--phase=" + phase] + shape,
                        check=True, capture_output=True).stdout
    report = subprocess.run(
        [bindir + "/npu-opt", "--npu-%s-pipeline=target=%s" % (kind, target),
         "--npu-report-cost=format=json", "-o", "/dev/null"],
        input=ir, check=True, capture_output=True).stdout
    return json.loads(report)


ok = True
for t in tables:
    for phase in ("prefill", "decode"):
        # The first and last point of each phase.
        for p in (t[phase][0], t[phase][-1]):
            report = compile_point(t["kind"], t["target"], phase, p["batch"],
                                   p["length"])
            funcs = {f["name"]: f for f in report["functions"]}
            total = funcs["model"]["total"]["time_ns"]
            attention = 0.0
            for f in report["functions"]:
                runs = f.get("calls", 1)
                for k in f.get("kernels", []):
                    # A kernel's name is its kind and its ops.
                    if k["name"].split("(")[0] in ("attention",
                                                   "mla_absorbed"):
                        attention += runs * k["time_ns"]
            good = (abs(total - p["total_ns"]) <= 1e-6 * total and
                    abs(attention - p["attention_ns"]) <= 1e-6 * total)
            ok &= good
            print("%s %s b=%d len=%d total %s attention %s" % (
                t["kind"], phase, p["batch"], p["length"],
                "same" if good else "%g != %g" % (p["total_ns"], total),
                "same" if good else "%g != %g" % (p["attention_ns"],
                                                  attention)))
sys.exit(0 if ok else 1)
