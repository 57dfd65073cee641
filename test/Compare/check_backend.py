"""Checks that npu-compare's numbers are the backends' own.

usage: check_backend.py <compare.json> <tpu-cost.json> <gpu-cost.json>

The two cost reports are npu-report-cost's JSON (npu-cost/1) of the same
module after npu-opt --npu-tpu-pipeline and --npu-gpu-pipeline. For every
function and side, the kernels and calls of npu-compare's rows must be
exactly the report's, with the same cost fields, and the function totals
must agree.
"""

import json
import sys

FIELDS = ("time_ns", "compute_ns", "memory_ns", "overhead_ns",
          "hbm_read_bytes", "hbm_write_bytes", "onchip_bytes", "flops",
          "padded_flops", "bound", "matrix_utilization", "l2_hit_rate",
          "waves")


def key(item):
    return (item["name"], item["tile"]) + tuple(item.get(f) for f in FIELDS)


def main():
    cmp = json.load(open(sys.argv[1]))
    reports = {"tpu": json.load(open(sys.argv[2])),
               "gpu": json.load(open(sys.argv[3]))}
    for side, report in reports.items():
        assert report["target"] == cmp[side]["name"], (side, report["target"])
        funcs = {f["name"]: f for f in report["functions"]}
        assert sorted(funcs) == sorted(f["name"] for f in cmp["functions"])
        kernels = 0
        for f in cmp["functions"]:
            mine = sorted(key(i) for r in f["rows"] if r[side]
                          for i in r[side]["items"])
            theirs = sorted(key(k) for k in funcs[f["name"]]["kernels"])
            assert mine == theirs, (side, f["name"])
            assert tuple(f[side].get(x) for x in FIELDS) == \
                tuple(funcs[f["name"]]["total"].get(x) for x in FIELDS), \
                (side, f["name"])
            kernels += len(mine)
        print("%s: %d kernels and calls equal npu-report-cost's" %
              (side, kernels))


main()
