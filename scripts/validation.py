#!/usr/bin/env python3
"""The cost models against published measurements (issue 23, items 5 and 7).

    python3 scripts/validation.py              # writes npu-target/validation.md
    python3 scripts/validation.py --calibrate  # solves the calibrated target
                                               # fields, writes them into
                                               # npu-target/*.json, then the table

The measurements are npu-target/measure/published.json (collected from public
sources, each with its source and the line it was read from). Each chip takes
at most two of them as calibration (CALIBRATION below, listed with sources in
npu-target/calibration.md): one sustained matrix rate sets the target's
`matrix_clock_hz`, one sustained bandwidth its
`sustained_hbm_bandwidth_bytes_per_s`, each solved (bisection) so that the
model's time for that exact kernel equals the measured one. Every other
measurement only evaluates: its row gives the model's error and the
roofline's (the bill's, at the nominal peaks) beside it. Nothing else is
fitted.

Per measurement the script builds the npu op the measured kernel ran (a
matmul, a batched matmul for a grouped GEMM, an attention, a latent MLA
decode attention, a copy, an add, a softmax), one function per row, runs
`npu-opt --npu-{tpu,gpu}-pipeline=target=T --npu-report-cost=format=json`
once per target, and `--npu-report-bill` for the roofline. Rows the model
cannot express are listed with the reason. Python standard library only;
needs build/bin (scripts/setup.sh).
"""
import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

import validation_collectives
import validation_serving

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("NPU_BIN", os.path.join(ROOT, "build", "bin"))
TARGETS = os.path.join(ROOT, "npu-target")
DATA = os.path.join(TARGETS, "measure", "published.json")

# The measured chip -> the target file that models it (None: no target).
CHIPS = {"h100": "h100", "h800": "h800", "h200": "h200", "b200": "b200",
         "a100": "a100", "tpu-v5e": "tpu-v5e", "gh200": None, "gb200": None,
         "b300": None, "tpu-v5p": "tpu-v5p", "tpu-v6e": "tpu-v6e",
         "tpu-v7": "tpu-v7"}

# At most one matrix and one bandwidth measurement per chip.
CALIBRATION = {
    "h100": {"matrix": "mamf_h100_sxm_fp8", "bandwidth": "h100_torch_clone_bf16"},
    "h200": {"matrix": "mamf_h200_sxm_fp8", "bandwidth": "h200_gpustream_triad"},
    "a100": {"matrix": "mamf_a100_sxm_bf16", "bandwidth": "a100_80_gpustream_triad"},
    "b200": {"matrix": "mamf_b200_fp8"},
    "tpu-v5e": {"matrix": "v5e_xla_bf16_8192"},
}
# Chips without a measurement of their own take a calibrated chip's
# sustained fraction ([A], the reason in the source).
BORROWED = {
    "b200": {"bandwidth": ("h100", "the HBM controller efficiency of the only "
                           "directly measured copy on an NVIDIA HBM3 part")},
    "gb300": {"matrix": ("b200", "the same Blackwell tensor cores; no GB300 "
                         "matrix measurement"),
              "bandwidth": ("h100", "as b200")},
    "tpu-v5e": {"bandwidth": ("h100", "no TPU bandwidth measurement is "
                              "published; HBM efficiency taken from the "
                              "H100 copy")},
    "tpu-v5p": {"matrix": ("tpu-v5e", "the one TPU matmul measurement"),
                "bandwidth": ("h100", "as tpu-v5e")},
    "tpu-v6e": {"matrix": ("tpu-v5e", "as tpu-v5p"),
                "bandwidth": ("h100", "as tpu-v5e")},
    "tpu-v7": {"matrix": ("tpu-v5e", "as tpu-v5p"),
               "bandwidth": ("h100", "as tpu-v5e")},
    "h800": {"matrix": ("h100", "H100 silicon (only NVLink is cut)"),
             "bandwidth": ("h100", "H100 silicon (only NVLink is cut)")},
    "same-silicon-tpu": {"matrix": ("h100", "the pair is H100 silicon"),
                         "bandwidth": ("h100", "the pair is H100 silicon")},
    "same-silicon-gpu": {"matrix": ("h100", "the pair is H100 silicon"),
                         "bandwidth": ("h100", "the pair is H100 silicon")},
}
FIELD = {"matrix": ("matrix_clock_hz", "clock_hz"),
         "bandwidth": ("sustained_hbm_bandwidth_bytes_per_s",
                       "hbm_bandwidth_bytes_per_s")}
# Measurements kept out of the table, with the reason (not a kernel time, or
# not the implementation the side stands for: docs/fairness.md).
EXCLUDED = {
    "v5e_xla_bf16_1024": "a notebook timing of one jitted call: host dispatch "
                         "(about 0.1 ms) dominates a 15 us kernel",
    "fa2_h100_fwd_hd128_nc_16k": "FlashAttention-2 on Hopper; the GPU-like side "
                                 "stands for FlashAttention-3 (docs/fairness.md)",
    "flashmla_h800_dense_decode_compute_v1": "superseded by the same kernel's "
                                             "April 2025 version (the row above)",
}
# Kind of a row in the table (the four, plus the TPU matmuls).
GROUP = {"gemm": "GEMM", "grouped_gemm": "GEMM", "tpu_matmul": "TPU matmul",
         "attention": "attention", "mla_decode": "decode", "memory": "memory-bound"}
ELEM = {"bf16": "bf16", "fp16": "bf16", "fp32": "f32", "fp8_e4m3": "f8E4M3FN",
        "fp8": "f8E4M3FN", "fp64": "f32"}
BYTES = {"bf16": 2, "f32": 4, "f8E4M3FN": 1}


def t(shape, elem):
    return "tensor<" + "x".join(str(d) for d in shape) + f"x{elem}>"


def func(name, args, ret, op, pre=""):
    """A function of `args` returning `op`'s result (after the lines `pre`)."""
    params = ", ".join(f"%{n}: {ty}" for n, ty in args)
    return (f"func.func @{name}({params}) -> {ret} {{\n{pre}  %0 = {op}\n"
            f"  return %0 : {ret}\n}}\n")


def build(m):
    """(function text, work) for a measurement, work = (flops or bytes by
    the measurement's own convention, so that time = work / rate); or a
    string saying why it is not modelled."""
    s, kind, name = m.get("shape") or {}, m["kind"], "m_" + re.sub(r"\W", "_", m["id"])
    unit = m["measured"]["unit"]
    if kind in ("gemm", "tpu_matmul"):
        if s.get("impl") == "pallas" and s.get("bm", 512) < 256:
            return "a deliberately small Pallas block; the compiler picks its own tile"
        mm, n, k = s["m"], s["n"], s["k"]
        a = ELEM[s["dtype"]]
        out = "bf16" if a in ("f8E4M3FN", "bf16") else a
        pre = ""
        if s.get("layout") == "NT" and m["id"].startswith("dg_"):
            # DeepGEMM's own format: B in fp8 with one f32 scale per 128 x
            # 128 block (docs/formats.md; A's 1 x 128 scales are not a
            # tensor of the graph).
            sc = t([-(-n // 128), -(-k // 128)], "f32")
            pre = (f"  %w = npu.dequantize %b, %s block [128, 128] : "
                   f"{t([n, k], a)}, {sc} -> {t([n, k], 'bf16')}\n")
            op = (f"npu.matmul %a, %w transpose_rhs : {t([mm, k], a)}, "
                  f"{t([n, k], 'bf16')} -> {t([mm, n], out)}")
            args = [("a", t([mm, k], a)), ("b", t([n, k], a)), ("s", sc)]
        elif s.get("layout") == "NT":
            op = (f"npu.matmul %a, %b transpose_rhs : {t([mm, k], a)}, "
                  f"{t([n, k], a)} -> {t([mm, n], out)}")
            args = [("a", t([mm, k], a)), ("b", t([n, k], a))]
        else:
            op = (f"npu.matmul %a, %b : {t([mm, k], a)}, {t([k, n], a)} -> "
                  f"{t([mm, n], out)}")
            args = [("a", t([mm, k], a)), ("b", t([k, n], a))]
        return func(name, args, t([mm, n], out), op, pre), 2 * mm * n * k
    if kind == "grouped_gemm":
        g, mm, n, k = s["groups"], s["m_per_group"], s["n"], s["k"]
        a = ELEM[s["dtype"]]
        # DeepGEMM's groups: B per group in fp8 with 128 x 128 f32 scales.
        sc = t([g, -(-n // 128), -(-k // 128)], "f32")
        pre = (f"  %w = npu.dequantize %b, %s block [1, 128, 128] : "
               f"{t([g, n, k], a)}, {sc} -> {t([g, n, k], 'bf16')}\n")
        op = (f"npu.matmul %a, %w transpose_rhs : {t([g, mm, k], a)}, "
              f"{t([g, n, k], 'bf16')} -> {t([g, mm, n], 'bf16')}")
        return (func(name, [("a", t([g, mm, k], a)), ("b", t([g, n, k], a)),
                            ("s", sc)],
                     t([g, mm, n], "bf16"), op, pre), 2 * g * mm * n * k)
    if kind == "attention":
        if "batch" not in s:
            return "shape not stated in the source"
        b, h, sq, d = s["batch"], s["heads"], s["seq"], s["head_dim"]
        ty = t([b, h, sq, d], "bf16")
        causal = " causal" if s["causal"] else ""
        flops = 4 * b * h * sq * sq * d // (2 if s["causal"] else 1)
        return (func(name, [("q", ty), ("k", ty), ("v", ty)], ty,
                     f"npu.attention %q, %k, %v{causal} : {ty}, {ty}, {ty} -> {ty}"),
                flops)
    if kind == "mla_decode":
        if "topk" in s or "kv_dtype" in s:
            return "sparse (top-k) attention is not modelled"
        if "seqlen_k" not in s and "h_q" not in s:
            return "shape not stated in the source"
        # The sweep's batch 128 at a mean KV length of 4096, one query token;
        # the memory-bound figure at its smallest head count (16), the
        # compute-bound one at 128 heads.
        b, skv = s["batch"], 4096
        hq = 16 if unit == "GB/s" else s["h_q"]
        q, kv = t([b, hq, 1, 576], "bf16"), t([b, 1, skv, 576], "bf16")
        o = t([b, hq, 1, 512], "bf16")
        op = f"npu.attention %q, %k latent(512) : {q}, {kv} -> {o}"
        work = (2 * (b * skv * 576 + b * hq * 576 + b * hq * 512) if unit == "GB/s"
                else 2 * b * hq * skv * (576 + 512))
        return func(name, [("q", q), ("k", kv)], o, op), work
    if kind == "memory":
        op_kind = s.get("op")
        if op_kind == "copy" and "m" in s:
            e = ELEM[s["dtype"]]
            ty = t([s["m"], s["n"]], e)
            return (func(name, [("x", ty)], ty, f"npu.convert %x : {ty} -> {ty}"),
                    2 * s["m"] * s["n"] * BYTES[e])
        if op_kind == "softmax_fwd":
            ty = t([s["rows"], s["cols"]], ELEM[s["dtype"]])
            return (func(name, [("x", ty)], ty, f"npu.softmax %x : {ty} -> {ty}"),
                    2 * s["rows"] * s["cols"] * BYTES[ELEM[s["dtype"]]])
        if op_kind == "triad":
            # a = b + s c on 2^27 fp64 elements: 24 B each; as an f32 add of
            # the same bytes (2^28 elements: 12 B each).
            n = 1 << 28
            ty = t([n // 1024, 1024], "f32")
            return (func(name, [("x", ty), ("y", ty)], ty,
                         f"npu.add %x, %y : {ty}, {ty}"), 12 * n)
        return "write-only or unsized stream: no op of the dialect moves only that"
    return "end-to-end serving or multi-chip training: not a kernel the model prices alone"


def measured_ns(m, work):
    v, unit = m["measured"]["value"], m["measured"]["unit"]
    if unit == "TFLOPS":
        return work / (v * 1e12) * 1e9
    if unit == "GB/s":
        return work / (v * 1e9) * 1e9
    if unit == "ms":
        return v * 1e6
    if unit == "us":
        return v * 1e3
    return None


def run(argv, stdin):
    p = subprocess.run(argv, input=stdin, capture_output=True, text=True, cwd=ROOT)
    if p.returncode:
        sys.exit(f"validation.py: {' '.join(argv)} failed:\n{p.stderr[:2000]}")
    return p.stdout


def kind_of(target_path):
    with open(target_path) as f:
        return json.load(f)["kind"]


def model(target_path, module, options=""):
    """{function: modelled ns} and {function: roofline ns} on a target,
    with the backend pipeline's `options` (e.g. "gpu-epilogue=serial")."""
    pipe = "npu-tpu-pipeline" if kind_of(target_path) == "tpu" else "npu-gpu-pipeline"
    cost = json.loads(run([os.path.join(BIN, "npu-opt"), "-",
                           f"--{pipe}=target={target_path} {options}".strip(),
                           "--npu-report-cost=format=json", "-o", "/dev/null"],
                          module))
    bill = json.loads(run([os.path.join(BIN, "npu-opt"), "-",
                           f"--npu-report-bill=target={target_path} format=json",
                           "-o", "/dev/null"], module))
    # A measurement that times the kernel alone (a profiler's kernel time,
    # "timing": "kernel") excludes the launch: each kernel of these
    # one-op functions is one launch.
    launch_ns = 0.0
    if kind_of(target_path) == "gpu":
        with open(target_path) as f:
            launch_ns = json.load(f)["gpu"]["launch_overhead_ns"]
    times = {f["name"]: f["total"]["time_ns"] for f in cost["functions"]}
    device = {f["name"]: f["total"]["time_ns"] - launch_ns * len(f["kernels"])
              for f in cost["functions"]}
    roof = {f["name"]: sum(o["roofline_seconds"] for o in f["ops"]) * 1e9
            for f in bill["functions"]}
    return times, roof, device


def at_config(target_path, fn, options, config, l2=None):
    """(total ns, device ns) of the one-function module `fn` priced at the
    measured implementation's own kernel configuration (`config` of its
    measurement: block M x N x K and a TMA multicast on A or B, which is a
    cluster of two blocks along N or M) instead of the tile the model picks:
    the pipeline's tiling decision is rewritten to that configuration and
    the cost model and schedule rerun on it (optionally at another L2
    bandwidth, for scripts/validation_configs.py)."""
    pipe = f"--npu-gpu-pipeline=target={target_path} {options}".strip()
    out = run([os.path.join(BIN, "npu-opt"), "-", pipe], fn)
    tile = f"tile = [1, {config['block_m']}, {config['block_n']}, {config['block_k']}]"
    out, n = re.subn(r"tile = \[1, \d+, \d+, \d+\]", tile, out)
    cm, cn = {None: (1, 1), "A": (1, 2), "B": (2, 1)}[config["tma_multicast"]]
    out, n2 = re.subn(r"cluster_m = \d+, cluster_n = \d+",
                      f"cluster_m = {cm}, cluster_n = {cn}", out)
    if n != 1 or n2 != 1:
        sys.exit(f"validation.py: {fn.splitlines()[0]}: expected one GEMM "
                 f"tiling and one launch to set to the measured "
                 f"configuration, found {n} and {n2}")
    if l2:
        out = re.sub(r"l2_bandwidth_bytes_per_s = [0-9.e+]+",
                     f"l2_bandwidth_bytes_per_s = {l2:e}", out)
    cost = json.loads(run([os.path.join(BIN, "npu-opt"), "-",
                           "--npu-estimate-cost=target-kind=gpu",
                           "--npu-schedule-kernels",
                           "--npu-report-cost=format=json", "-o", "/dev/null"],
                          out))
    f = cost["functions"][0]
    with open(target_path) as tf:
        launch = json.load(tf)["gpu"]["launch_overhead_ns"]
    total = f["total"]["time_ns"]
    return total, total - launch * len(f["kernels"])


def priced(m, target_path, fn, l2=None):
    """The model's time for measurement `m` (one-function module `fn`) on a
    target file, as the table compares it: at the measured kernel's own
    configuration where the measurement states one (`l2`: at another L2
    bandwidth, there), without the launch where it timed the kernel alone."""
    name = re.search(r"@(\w+)", fn).group(1)
    if m.get("config"):
        total, dev = at_config(target_path, fn, options_of(m), m["config"], l2)
    else:
        times, _, device = model(target_path, fn, options_of(m))
        total, dev = times[name], device[name]
    return dev if m.get("timing") == "kernel" else total


def load():
    with open(DATA) as f:
        data = json.load(f)
    rows = []
    for m in data["measurements"]:
        target = CHIPS.get(m["chip"])
        built = (EXCLUDED[m["id"]] if m["id"] in EXCLUDED
                 else build(m) if target else f"no target file for {m['chip']}")
        rows.append((m, target, built))
    return rows


# --- calibration -------------------------------------------------------------

def set_field(path, field, value, source):
    """Replaces a numeric field's value and its source in a target file, as
    text (the file keeps its layout)."""
    with open(path) as f:
        s = f.read()
    s, n = re.subn(rf'("{field}": )[^,\n]+', rf'\g<1>{value:.6g}', s, count=1)
    s, n2 = re.subn(rf'("{field}": )"[^"\n]*"',
                    lambda mt: mt.group(1) + json.dumps(source), s, count=1)
    if n != 1 or n2 != 1:
        sys.exit(f"validation.py: {path}: field {field} not found")
    with open(path, "w") as f:
        f.write(s)


def solve(chip, what, m, fn, work):
    """The field value for which the model's time of `fn` on `chip` is the
    measured time (bisection between 20% and 100% of the quoted value)."""
    field, quoted_field = FIELD[what]
    src = os.path.join(TARGETS, chip + ".json")
    with open(src) as f:
        quoted = json.load(f)[quoted_field]
    want = measured_ns(m, work)
    tmp = tempfile.mkdtemp()
    try:
        path = os.path.join(tmp, chip + ".json")

        def time_at(v):
            shutil.copy(src, path)
            set_field(path, field, v, "calibrating")
            return priced(m, path, fn)

        lo, hi = 0.2 * quoted, quoted
        if time_at(hi) >= want:
            return hi, time_at(hi), want
        for _ in range(30):
            mid = (lo + hi) / 2
            if time_at(mid) > want:
                lo = mid
            else:
                hi = mid
        return hi, time_at(hi), want
    finally:
        shutil.rmtree(tmp)


def calibrate(rows):
    by_id = {m["id"]: (m, built) for m, _, built in rows}
    fractions = {}
    for chip, cal in CALIBRATION.items():
        for what in ("bandwidth", "matrix"):
            if what not in cal:
                continue
            m, built = by_id[cal[what]]
            fn, work = built
            value, got, want = solve(chip, what, m, fn, work)
            field, quoted_field = FIELD[what]
            with open(os.path.join(TARGETS, chip + ".json")) as f:
                quoted = json.load(f)[quoted_field]
            fractions[(chip, what)] = value / quoted
            src = m["source"]
            where = src.get("url") or f"{src.get('repo')}/{src.get('path')}"
            set_field(os.path.join(TARGETS, chip + ".json"), field, value,
                      f"[C] calibrated (scripts/validation.py --calibrate): the "
                      f"model's time for measurement '{m['id']}' ({m['workload']}: "
                      f"{m['measured']['value']} {m['measured']['unit']}, {where}) "
                      f"equals the measured {want / 1e3:.1f} us at this value, "
                      f"{value / quoted:.3f} x {quoted_field}; "
                      f"npu-target/calibration.md")
            print(f"{chip} {field} = {value:.6g} ({value / quoted:.3f} x quoted; "
                  f"model {got / 1e3:.2f} us vs measured {want / 1e3:.2f} us)")
    for chip, borrowed in BORROWED.items():
        for what, (donor, why) in borrowed.items():
            field, quoted_field = FIELD[what]
            path = os.path.join(TARGETS, chip + ".json")
            with open(path) as f:
                quoted = json.load(f)[quoted_field]
            frac = fractions[(donor, what)]
            set_field(path, field, frac * quoted,
                      f"[A] not measured for this chip: {frac:.3f} x "
                      f"{quoted_field}, the fraction calibrated on {donor} "
                      f"({why}); npu-target/calibration.md")
            print(f"{chip} {field} = {frac * quoted:.6g} ({frac:.3f} x quoted, from {donor})")


def write_calibration_md(rows):
    """npu-target/calibration.md from the target files' current values."""
    by_id = {m["id"]: m for m, _, _ in rows}
    out = ["# Calibration: the two published measurements each chip may take", "",
           "Generated by `python3 scripts/validation.py --calibrate` (do not "
           "edit by hand). Each chip takes at most one sustained matrix rate "
           "and one sustained bandwidth, both measured by someone else and "
           "published (npu-target/measure/published.json has the source and "
           "the line each was read from). The matrix measurement sets "
           "`matrix_clock_hz` (every matrix peak of the chip is scaled by "
           "`matrix_clock_hz / clock_hz` in the cost models), the bandwidth "
           "measurement `sustained_hbm_bandwidth_bytes_per_s`; each is solved "
           "by bisection so that the model's time for that exact kernel "
           "equals the measured time, so it absorbs whatever the model leaves "
           "out of that kernel. A chip with no measurement of its own takes a "
           "calibrated chip's fraction, marked `[A]` with the reason. Every "
           "other published number only validates (npu-target/validation.md). "
           "The bill's roofline keeps the quoted peaks.", "",
           "| chip | field | value | x quoted | from | measurement |",
           "|---|---|---:|---:|---|---|"]
    for chip in sorted(set(CALIBRATION) | set(BORROWED)):
        with open(os.path.join(TARGETS, chip + ".json")) as f:
            tf = json.load(f)
        for what in ("matrix", "bandwidth"):
            field, quoted_field = FIELD[what]
            frac = tf[field] / tf[quoted_field]
            if what in CALIBRATION.get(chip, {}):
                m = by_id[CALIBRATION[chip][what]]
                src = m["source"]
                where = src.get("url") or f"{src.get('repo')}: {src.get('path')}"
                row = (f"calibrated | `{m['id']}`: {m['workload']}, "
                       f"{m['measured']['value']} {m['measured']['unit']} ({where})")
            elif what in BORROWED.get(chip, {}):
                donor, why = BORROWED[chip][what]
                row = f"[A] {donor}'s fraction | {why}"
            else:
                row = "[A] quoted value | no measurement"
            out.append(f"| {chip} | `{field}` | {tf[field]:.4g} | {frac:.3f} | {row} |")
    def frac(chip):
        with open(os.path.join(TARGETS, chip + ".json")) as f:
            tf = json.load(f)
        return tf["matrix_clock_hz"] / tf["clock_hz"]

    bf16 = by_id["mamf_h100_sxm_bf16"]
    fn, work = build(bf16)
    want = measured_ns(bf16, work)
    bf16_err = (priced(bf16, os.path.join(TARGETS, "h100.json"), fn) - want) / want
    out += ["", f"What the fractions say: H100's fp8 rate sustains "
            f"{frac('h100'):.2f} of its quoted clock on the best published "
            f"torch shape, B200's {frac('b200'):.2f}, H200's "
            f"{frac('h200'):.2f} (each after the model's own tails and its L2 "
            "and shared-memory limits on that shape, so the fraction is not "
            "the measured TFLOPS over the peak: it carries the clock under "
            "the power limit and whatever else the model leaves out), TPU "
            f"v5e's bf16 XLA matmul {frac('tpu-v5e'):.2f}. One clock per chip "
            "serves every dtype: H100's bf16 best shape then comes out "
            f"{100 * abs(bf16_err):.0f}% {'slow' if bf16_err > 0 else 'fast'} "
            "(npu-target/validation.md), since bf16 draws less power than "
            "fp8. The H200 bandwidth comes from a STREAM triad of unstated "
            "form factor (0.74 of 4.8 TB/s), lower than the H100 copy's 0.90; "
            "the TPU targets and Blackwell take H100's 0.90, so the bandwidth "
            "a verdict rests on is an assumption on both sides "
            "(`npu-compare --sensitivity`). The v5e timing is a notebook's "
            "timing of one jitted call, so it carries the host dispatch too "
            "(about 0.1 ms of its 6.05 ms, by the 1024^3 row of the same "
            "notebook): the TPU fraction is, if anything, low."]
    with open(os.path.join(TARGETS, "calibration.md"), "w") as f:
        f.write("\n".join(out) + "\n")


# --- the table ---------------------------------------------------------------

def options_of(m):
    """The backend pipeline options the measured kernel's implementation
    needs: a GEMM whose stores stall its main loop (DeepGEMM before commit
    340d988, docs/cost-model-gpu.md "Epilogue")."""
    shape = m.get("shape") or {}
    return "gpu-epilogue=serial" if shape.get("epilogue") == "serial" else ""


def table(rows):
    modules, meta = {}, {}
    cal_ids = {i for c in CALIBRATION.values() for i in c.values()}
    for m, target, built in rows:
        if isinstance(built, str):
            continue
        fn, work = built
        key = (target, options_of(m))
        modules.setdefault(key, "")
        modules[key] += fn
        meta[m["id"]] = (key, re.search(r"@(\w+)", fn).group(1), work)
    results = {}
    for (target, options), module in modules.items():
        results[(target, options)] = model(
            os.path.join(TARGETS, target + ".json"), module, options)
    out = ["# Validation: the cost models against published measurements", "",
           "Generated by `python3 scripts/validation.py` (do not edit by hand). "
           "The measurements are npu-target/measure/published.json, each with its "
           "source and the line it was read from; the calibration rows (at most "
           "one matrix and one bandwidth measurement per chip, "
           "npu-target/calibration.md) are marked and left out of the "
           "statistics. `model` is the cost model's time for the kernel on the "
           "chip's target file (its launches, the sustained rates), at the "
           "kernel configuration the measurement states where it states one "
           "(DeepGEMM's block M x N and multicast: `config` in published.json), "
           "else at the tile the model picks; `model us, own tile` is the "
           "model's own pick beside it (docs/cost-model-gpu.md, \"Validation "
           "at DeepGEMM's own configurations\"). "
           "`roofline` is the bill's bound at the nominal peaks (max of compute "
           "and HBM time per op). Errors are (predicted - measured) / measured "
           "time: negative = the prediction is faster than the chip. H800 rows "
           "run on the h100 target (same silicon; the H800's clock under its "
           "power limit is not modelled). Rows timed as the kernel alone "
           "(DeepGEMM's `bench_kineto`: the profiler's kernel time) are "
           "compared with the model's time less its launches; the DeepGEMM "
           "table's kernel stored each output tile before its next main loop "
           "(fp8_gemm.cuh at 327ec92), so those rows are priced with "
           "`gpu-epilogue=serial` (docs/cost-model-gpu.md, \"Epilogue\"), "
           "and with B in DeepGEMM's own format, fp8 with one f32 scale per "
           "128 x 128 block (`npu.dequantize`, docs/formats.md). "
           "The TPU v5e timings are a "
           "notebook's timings of one jitted call each and carry the host "
           "dispatch (about 0.1 ms), which flatters the model on the smaller "
           "shapes.", "",
           "| id | kind | chip (target) | workload | measured | measured us | "
           "model us | model error | roofline error | model us, own tile | source |",
           "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    errs, roof_errs, skipped = {}, {}, []
    for m, target, built in rows:
        if isinstance(built, str):
            skipped.append((m, built))
            continue
        (tgt, _), fn, work = meta[m["id"]]
        times, roof, device = results[meta[m["id"]][0]]
        want = measured_ns(m, work)
        got = device[fn] if m.get("timing") == "kernel" else times[fn]
        # A measurement that states the kernel configuration it ran is
        # compared at that configuration; the model's own pick is shown.
        own = ""
        if m.get("config"):
            own = f"{got / 1e3:.2f}"
            got = priced(m, os.path.join(TARGETS, tgt + ".json"), built[0])
        bound = roof[fn]
        e, re_ = (got - want) / want, (bound - want) / want
        cal = m["id"] in cal_ids
        group = GROUP[m["kind"]]
        if not cal:
            errs.setdefault(group, []).append(e)
            roof_errs.setdefault(group, []).append(re_)
        src = m["source"]
        where = src.get("url") or f"{src.get('repo')}: {src.get('path')}"
        out.append(f"| {m['id']}{' (calibration)' if cal else ''} | {group} | "
                   f"{m['chip']} ({tgt}) | {m['workload']} | "
                   f"{m['measured']['value']} {m['measured']['unit']} | "
                   f"{want / 1e3:.2f} | {got / 1e3:.2f} | {100 * e:+.1f}% | "
                   f"{100 * re_:+.1f}% | {own} | {where} |")
    allm = [abs(e) for v in errs.values() for e in v]
    allr = [abs(e) for v in roof_errs.values() for e in v]
    out += ["", "## Summary (rows not used for calibration)", "",
            "| kind | rows | median abs(model error) | median abs(roofline error) |",
            "|---|---:|---:|---:|"]
    for g in sorted(errs):
        out.append(f"| {g} | {len(errs[g])} | "
                   f"{100 * statistics.median(abs(e) for e in errs[g]):.1f}% | "
                   f"{100 * statistics.median(abs(e) for e in roof_errs[g]):.1f}% |")
    out.append(f"| all | {len(allm)} | {100 * statistics.median(allm):.1f}% | "
               f"{100 * statistics.median(allr):.1f}% |")
    out += ["", "## Not modelled", ""]
    for m, why in skipped:
        out.append(f"- `{m['id']}` ({m['chip']}, {m['workload']}): {why}")
    collective_lines, (collective_rows, collective_median) = \
        validation_collectives.section()
    out += collective_lines
    serving_lines, (serving_rows, serving_median) = \
        validation_serving.section()
    out += serving_lines
    with open(os.path.join(TARGETS, "validation.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"validation.py: {len(allm)} rows, median |error| "
          f"{100 * statistics.median(allm):.1f}% (roofline "
          f"{100 * statistics.median(allr):.1f}%); collectives: "
          f"{collective_rows} rows, median |error| "
          f"{100 * collective_median:.1f}%; serving: {serving_rows} "
          f"comparisons, median |error| {100 * serving_median:.1f}%; wrote "
          f"npu-target/validation.md")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calibrate", action="store_true")
    args = ap.parse_args()
    rows = load()
    if args.calibrate:
        calibrate(rows)
        write_calibration_md(rows)
    table(rows)


if __name__ == "__main__":
    main()
