#!/usr/bin/env python3
"""The GPU-like cost model against measured rows (h200_measure.py's CSV).

For every timed row it builds the npu op the row ran (torch.matmul A[m,k] @
B[k,n] -> npu.matmul; scaled_dot_product_attention -> npu.attention;
softmax -> npu.softmax; F.rms_norm -> npu.rms_norm; a device-to-device copy
-> npu.convert bf16 -> bf16, a stream of the same bytes), one function per
row in one module, runs `npu-opt --npu-gpu-pipeline=target=T
--npu-report-cost=format=json` once, and prints per row the measured and the
modelled time and their ratio, then per kind the geometric mean of the ratio
and the median of |ratio - 1|. The measured numbers only evaluate the model
(npu-target/measure/README.md): nothing here fits a constant.

Rows not modelled are listed with the reason: errors and skipped cases,
rmsnorm_manual (eager PyTorch runs it as several kernels; the dialect's
rms_norm is one op, compare rmsnorm_torch), and copies measured with a warm
L2 (flush=none: the model prices a cold launch).

Usage: model_vs_measured.py CSV [--target h200] [--opt path/to/npu-opt]
"""
import argparse, csv, json, math, os, statistics, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read_rows(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith("#")]
    return list(csv.DictReader(lines))


def ints(row, *names):
    return [int(float(row[n])) for n in names]


def function(i, row):
    """(name, body, shape label) of the npu function for a row, or a reason
    string when the row is not modelled."""
    kind = row["kind"]
    note = row.get("note", "")
    if not row.get("time_us_median"):
        return f"no time ({note or 'empty'})"
    name = f"r{i}_{kind}"
    if kind == "gemm":
        m, n, k = ints(row, "m", "n", "k")
        a, b, c = (f"tensor<{m}x{k}xbf16>", f"tensor<{k}x{n}xbf16>",
                   f"tensor<{m}x{n}xbf16>")
        body = (f"func.func @{name}(%a: {a}, %b: {b}) -> {c} {{\n"
                f"  %0 = npu.matmul %a, %b : {a}, {b} -> {c}\n"
                f"  return %0 : {c}\n}}\n")
        return name, body, f"{m}x{n}x{k}"
    if kind == "sdpa":
        bt, h, s, d = ints(row, "batch", "heads", "seq", "head_dim")
        causal = int(row["causal"]) == 1
        t = f"tensor<{bt}x{h}x{s}x{d}xbf16>"
        attr = " causal" if causal else ""
        body = (f"func.func @{name}(%q: {t}, %k: {t}, %v: {t}) -> {t} {{\n"
                f"  %0 = npu.attention %q, %k, %v{attr} : {t}, {t}, {t} -> {t}\n"
                f"  return %0 : {t}\n}}\n")
        return name, body, f"b{bt} h{h} s{s} d{d}{' causal' if causal else ''}"
    if kind in ("softmax", "rmsnorm_torch"):
        if kind == "rmsnorm_torch" and "error" in note:
            return f"no F.rms_norm in this torch ({note})"
        r, c = ints(row, "rows", "cols")
        t = f"tensor<{r}x{c}xbf16>"
        if kind == "softmax":
            op, args = f"npu.softmax %x : {t} -> {t}", f"%x: {t}"
        else:
            op = (f"npu.rms_norm %x, %w eps(1.000000e-06) : {t}, "
                  f"tensor<{c}xbf16> -> {t}")
            args = f"%x: {t}, %w: tensor<{c}xbf16>"
        body = (f"func.func @{name}({args}) -> {t} {{\n  %0 = {op}\n"
                f"  return %0 : {t}\n}}\n")
        return name, body, f"{r}x{c}"
    if kind == "rmsnorm_manual":
        return "eager PyTorch runs it as several kernels; the dialect's rms_norm is one op (see rmsnorm_torch)"
    if kind == "copy":
        if "flush=none" in note:
            return "warm L2 (flush=none): the model prices a cold launch"
        (nbytes,) = ints(row, "bytes")
        elems = nbytes // 2
        t = f"tensor<{elems}xbf16>"
        body = (f"func.func @{name}(%x: {t}) -> {t} {{\n"
                f"  %0 = npu.convert %x : {t} -> {t}\n"
                f"  return %0 : {t}\n}}\n")
        return name, body, f"{nbytes / 2**20:g} MiB"
    return f"unknown kind {kind}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--target", default="h200")
    ap.add_argument("--opt", default=os.path.join(ROOT, "build", "bin", "npu-opt"))
    args = ap.parse_args()

    rows = read_rows(args.csv)
    modelled, skipped, module = [], [], ""
    for i, row in enumerate(rows):
        f = function(i, row)
        if isinstance(f, str):
            skipped.append((row["kind"], f))
            continue
        name, body, label = f
        module += body
        modelled.append((name, row, label))
    if not modelled:
        sys.exit("model_vs_measured.py: no row to model")
    p = subprocess.run(
        [args.opt, "-", f"--npu-gpu-pipeline=target={args.target}",
         "--npu-report-cost=format=json", "-o", "/dev/null"],
        input=module, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"model_vs_measured.py: npu-opt failed:\n{p.stderr}")
    cost = {f["name"]: f for f in json.loads(p.stdout)["functions"]}

    print(f"model: npu-opt --npu-gpu-pipeline=target={args.target}; "
          f"measured: {os.path.basename(args.csv)}")
    print()
    print("| kind | shape | note | measured us | modelled us | model / measured | bound |")
    print("|---|---|---|---:|---:|---:|---|")
    by_kind = {}
    for name, row, label in modelled:
        f = cost[name]["total"]
        meas = float(row["time_us_median"])
        mod = f["time_ns"] / 1e3
        ratio = mod / meas
        by_kind.setdefault(row["kind"], []).append(ratio)
        print(f"| {row['kind']} | {label} | {row.get('note', '')} | {meas:.2f} "
              f"| {mod:.2f} | {ratio:.3f} | {f.get('bound', '-')} |")
    print()
    print("| kind | rows | geomean model / measured | median abs(ratio - 1) |")
    print("|---|---:|---:|---:|")
    for kind, rs in by_kind.items():
        geo = math.exp(sum(math.log(r) for r in rs) / len(rs))
        med = statistics.median(abs(r - 1) for r in rs)
        print(f"| {kind} | {len(rs)} | {geo:.3f} | {med:.3f} |")
    if skipped:
        print()
        print("Not modelled:")
        for kind, why in skipped:
            print(f"- {kind}: {why}")


if __name__ == "__main__":
    main()
