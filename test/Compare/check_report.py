"""Checks the arithmetic of an npu-compare JSON report (npu-compare/1).

usage: check_report.py <report.json>

* every kernel and call of every function is in exactly one row, so the
  rows' times add up to the function's total on each side (kernels run one
  after another: the total is their sum);
* a row's delta is its TPU time minus its GPU time, and its weighted delta
  is that times the function's executions;
* the ranking is sorted by |weighted delta|, descending, and lists every
  kernel row once;
* padding_flops = padded_flops - matrix_flops for every kernel.
"""

import json
import sys


def close(a, b):
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def main():
    report = json.load(open(sys.argv[1]))
    assert report["schema"] == "npu-compare/1"
    kernel_rows = 0
    for f in report["functions"]:
        for side in ("tpu", "gpu"):
            total = sum(r[side]["time_ns"] for r in f["rows"] if r[side])
            assert close(total, f[side]["time_ns"]), \
                (f["name"], side, total, f[side]["time_ns"])
            for r in f["rows"]:
                for i in (r[side] or {}).get("items", []):
                    if not i["call"]:
                        assert i["padding_flops"] == \
                            i["padded_flops"] - i["matrix_flops"]
        for r in f["rows"]:
            t = r["tpu"]["time_ns"] if r["tpu"] else 0
            g = r["gpu"]["time_ns"] if r["gpu"] else 0
            assert close(r["delta_ns"], t - g)
            assert close(r["weighted_delta_ns"], (t - g) * f["calls"])
            kernel_rows += not r["call"]
    ranking = [abs(x["weighted_delta_ns"]) for x in report["ranking"]]
    assert ranking == sorted(ranking, reverse=True)
    assert len(ranking) == kernel_rows
    print("report ok: %d functions, %d kernel rows" %
          (len(report["functions"]), kernel_rows))


main()
