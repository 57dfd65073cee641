"""The hand-computed numbers of gemm-mock.test in npu-compare's JSON.

usage: check_gemm_mock.py <report.json>   (npu-compare --pair=mock on
Inputs/gemm-mock.mlir --format=json)
"""

import json
import sys

r = json.load(open(sys.argv[1]))
f = {x["name"]: x for x in r["functions"]}
t = f["tpu_case"]["rows"][0]["tpu"]
g = f["gpu_case"]["rows"][0]["gpu"]
assert r["schema"] == "npu-compare/1"
assert r["entry"] == "tpu_case" and r["roots"] == ["tpu_case", "gpu_case"]
# test/Backend/tpu-estimate-cost.mlir: 828 = 340 + 178 + 90 + 220 (B held).
assert (t["time_ns"], t["compute_ns"], t["memory_ns"],
        t["overhead_ns"]) == (828, 256, 400, 428), t
assert (t["hbm_read_bytes"], t["hbm_write_bytes"], t["onchip_bytes"],
        t["tile"]) == (32768, 8192, 65536, "1x32x64x128"), t
assert t["launch_ns"] == 0 and "l2_hit_rate" not in t and "waves" not in t
# test/Backend/gpu-estimate-cost.mlir: 2024 = 1000 launch + 1024 compute.
assert (g["time_ns"], g["compute_ns"], g["memory_ns"],
        g["overhead_ns"]) == (2024, 1024, 960, 1000), g
assert (g["l2_hit_rate"], g["waves"], g["tail_fraction"], g["launch_ns"],
        g["tile"]) == (0.6, 0.5, 0.5, 1000, "1x64x64x32"), g
assert (g["hbm_read_bytes"], g["hbm_write_bytes"],
        g["onchip_bytes"]) == (65536, 32768, 163840), g
assert g["items"][0]["launches"] == 1 and g["padding_flops"] == 0
# @gpu_case on mock-tpu (gemm-mock.test): 1512 = 260 + 1024 + 50 + 178, its
# K step loaded in 4 chunks and stored in 4 row bands.
assert f["gpu_case"]["rows"][0]["tpu"]["tile"] == "1x128x128x128/k4"
# Totals: the two roots summed.
assert (r["total"]["tpu"]["time_ns"], r["total"]["gpu"]["time_ns"],
        r["total"]["delta_ns"]) == (2340, 3424, -1084), r["total"]
assert [x["function"] for x in r["ranking"]] == ["tpu_case", "gpu_case"]
assert r["gpu"]["launch_overhead_ns"] == 1000
assert r["tpu"]["peak_bf16_flop_per_s"] == 4.096e12
print("json ok")
