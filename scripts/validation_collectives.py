"""The collective cost model against published measurements (issue 25).

Imported by scripts/validation.py, which appends `section()` to
npu-target/validation.md. The measurements are
npu-target/measure/published-collectives.json; none of them is calibration:
every number of the interconnect sections of the target files comes from a
spec or a library constant (NCCL's), never from these rows. Each row runs
`npu-system <system> --collective=K --bytes=S [--over=A] [--algorithm=X]
--json` on the system that matches the measured one; `roofline` is the same
bytes at the links' quoted rates with no latency (`line_rate_seconds`).
"""
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("NPU_BIN", os.path.join(ROOT, "build", "bin"))
DATA = os.path.join(ROOT, "npu-target", "measure", "published-collectives.json")

# Measurement -> (system file, --over axes or None, --algorithm or None). An
# algorithm is forced where the row names the one NCCL ran.
SYSTEMS = {
    "nccl_allreduce_8xh200_nvls_8GiB": ("8xh200", None, "in_switch"),
    "nccl_allreduce_8xh200_ring_8GiB": ("8xh200", None, "ring"),
    "nccl_allreduce_8xh200_nvls_16GiB": ("8xh200", None, "in_switch"),
    "nccl_allreduce_8xh200_ring_16GiB": ("8xh200", None, "ring"),
    "nccl_allgather_8xh200_ring_16GiB": ("8xh200", None, None),
    "nccl_reducescatter_8xh200_ring_16GiB": ("8xh200", None, None),
    "torch_allreduce_8xh200_32KiB_small": ("8xh200", None, "ring"),
    "nccl_allreduce_8xh100_nvls_2to4GiB": ("8xh100", None, "in_switch"),
    "allreduce_8xh100_58MB_scalingbook": ("8xh100", None, "ring"),
    "allgather_8xh100_512MB_scalingbook": ("8xh100", None, None),
    "nccl_allreduce_2xh100_nvlstree_small_latency": ("2xh100", None, None),
    "nccl_allreduce_8xb200_nvls_8GiB": ("8xb200", None, "in_switch"),
    "nccl_allreduce_8xb200_ring_8GiB": ("8xb200", None, "ring"),
    "torch_allreduce_4x8xb200_efa_16GiB": ("32xb200", None, None),
    "tpu_v5e_allgather_axis4_34MB": ("tpu-v5e-8x4", "y", None),
    "tpu_v5e_allgather_axis4_small_latency": ("tpu-v5e-8x4", "y", None),
    "tpu_v6e_psum_ici_256_606MB": ("tpu-v6e-16x16", None, None),
}
# Rows left out, with the reason.
EXCLUDED = {
    "nccl_allreduce_8xh100_ring_expected": "a maintainer's expectation, not "
        "one run, and no size",
    "torch_allreduce_4x8xb200_efa_32KiB_small": "the source rounds it to "
        "0.01 GB/s: no digit to compare",
    "allreduce_gb200_nvl72_nvls_slide": "no gb200 target, and no size (a "
        "slide quoted second-hand)",
    "tpu_v5e_allgather_8x16_bw_fraction": "a fraction of the link rate, not "
        "a time or a bandwidth at a stated size",
    "tpu7x_allgather_example_log": "neither the slice nor the size is stated",
}
# DeepEP's normal kernels send each token once per destination rank; its
# tests route each token to a uniform top-k of the experts (top-k of random
# scores) and count the bytes every rank receives, its own included
# (tests/legacy/test_intranode.py: recv_x, fp8_factor = (1 + 4/128) / 2 of
# bf16). `npu-system --routed` prices exactly that: --bytes is one copy of
# the rank's tokens, V its expected received bytes, and the measured time is
# V / the quoted 'logical' bandwidth. Across nodes DeepEP sends a token once
# per node over RDMA and forwards it over NVLink, and its RDMA bandwidth
# counts the (token, node) pairs, own node included: the measured time is
# then copy x node_destinations / bandwidth. Row -> (system, bytes per
# element, the count the bandwidth divides).
ROUTED = {
    "deepep_v1_intranode_dispatch_ep8_h800": ("8xh800", 1 + 4 / 128,
                                              "destinations"),
    "deepep_v1_intranode_combine_ep8_h800": ("8xh800", 2, "destinations"),
    "deepep_v1_internode_dispatch_ep16_h800": ("16xh800", 1 + 4 / 128,
                                               "node_destinations"),
}
EXCLUDED.update({
    "deepep_v1_lowlatency_dispatch_ep8_h800": "pure-RDMA low-latency kernels "
        "among 8 GPUs of one node, each (token, expert) sent on its own: no "
        "system of that shape (NICs only) is modelled",
    "deepep_v1_lowlatency_dispatch_ep256_h800": "as the EP8 low-latency row",
    "deepep_v2_intranode_dispatch_ep8_sm100": "DeepEP V2's test routes with "
        "get_unbalanced_scores and counts the top-k indices and weights in "
        "each token's bytes, on an SM100 part it does not name",
})
# nccl-tests' bus bandwidth = algbw x this.
BUS = {"all_reduce": lambda p: 2 * (p - 1) / p,
       "all_gather": lambda p: (p - 1) / p,
       "reduce_scatter": lambda p: (p - 1) / p,
       "all_to_all": lambda p: (p - 1) / p,
       "send_recv": lambda p: 1.0}


def measured_seconds(m):
    s, v, unit = m["shape"], m["measured"]["value"], m["measured"]["unit"]
    if unit == "us":
        return v * 1e-6
    if unit == "ms":
        return v * 1e-3
    if unit == "GB/s":
        algbw = v * 1e9
        if "busbw" in m.get("measured_meaning", "") or \
                "bus" in m.get("measured_meaning", ""):
            algbw /= BUS[s["collective"]](s["chips"])
        return s["bytes"] / algbw
    return None


def price(system, m, over, algorithm, size=None, routed=None):
    size = m["shape"]["bytes"] if size is None else size
    argv = [os.path.join(BIN, "npu-system"), system,
            f"--collective={m['shape']['collective']}",
            f"--bytes={int(round(size))}", "--json"]
    if routed:
        argv.append(f"--routed={routed}")
    if over:
        argv.append(f"--over={over}")
    if algorithm:
        argv.append(f"--algorithm={algorithm}")
    p = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    if p.returncode:
        sys.exit(f"validation_collectives.py: {' '.join(argv)}:\n{p.stderr}")
    return json.loads(p.stdout)[0]


def section():
    with open(DATA) as f:
        rows = json.load(f)["measurements"]
    out = ["", "## Collectives (issue 25)", "",
           "The collective cost model (`npu-system`, docs/collectives.md) "
           "against npu-target/measure/published-collectives.json. No row is "
           "calibration: the links' numbers are specs and NCCL's own "
           "constants. `model` is the modelled time on the named system "
           "(the algorithm forced where the measurement names it); "
           "`roofline` is the same bytes at the quoted link rates with no "
           "latency. Errors are (predicted - measured) / measured time.", "",
           "| id | collective | system (algorithm) | bytes | measured | "
           "measured us | model us | model error | roofline error | source |",
           "|---|---|---|---:|---|---:|---:|---:|---:|---|"]
    errs, roof_errs, skipped = [], [], []
    for m in rows:
        if m["id"] in EXCLUDED:
            skipped.append((m, EXCLUDED[m["id"]]))
            continue
        if m["id"] in ROUTED:
            system, element, count = ROUTED[m["id"]]
            over = algorithm = None
            s = m["shape"]
            copy = s["tokens"] * s["hidden"] * element
            cost = price(system, m, None, None, copy,
                         f"{s['experts']}:{s['topk']}")
            want = copy * cost[count] / (m["measured"]["value"] * 1e9)
        elif m["id"] in SYSTEMS:
            system, over, algorithm = SYSTEMS[m["id"]]
            cost = price(system, m, over, algorithm)
            want = measured_seconds(m)
        else:
            sys.exit(f"validation_collectives.py: row {m['id']} is neither "
                     "mapped to a system nor excluded")
        got, bound = cost["seconds"], cost["line_rate_seconds"]
        e, re_ = (got - want) / want, (bound - want) / want
        errs.append(e)
        roof_errs.append(re_)
        src = m["source"]
        where = src.get("url") or f"{src.get('repo')}: {src.get('path')}"
        algo = cost["phases"][0]["algorithm"]
        out.append(f"| {m['id']} | {m['shape']['collective']} | {system}"
                   f"{' over ' + over if over else ''} ({algo}) | "
                   f"{int(cost['bytes'])} | {m['measured']['value']} "
                   f"{m['measured']['unit']} | {want * 1e6:.1f} | "
                   f"{got * 1e6:.1f} | {100 * e:+.1f}% | {100 * re_:+.1f}% | "
                   f"{where} |")
    out += ["", f"{len(errs)} rows: median abs(model error) "
            f"{100 * statistics.median(abs(e) for e in errs):.1f}%, median "
            f"abs(roofline error) "
            f"{100 * statistics.median(abs(e) for e in roof_errs):.1f}%.", "",
            "Not compared:", ""]
    for m, why in skipped:
        out.append(f"- `{m['id']}` ({m['chip']}, {m['workload']}): {why}")
    summary = (len(errs), statistics.median(abs(e) for e in errs))
    return out, summary
