#!/usr/bin/env python3
"""Which kernels of a whole model lower to a TPU memory program?

Imports a model (npu-translate --import-hf-config), runs it through
`npu-opt --npu-tpu-pipeline` (fusion, tiling decisions, cost), then takes
every distinct kernel (same body, operand types and tiling) into a module
of its own and runs `--npu-tpu-lower-pipeline` on it: tiling, bufferization,
memory spaces, DMA, double buffering, SRAM plan and its check. For each
kernel the table gives the tiling, the SRAM the cost model counted, the
peak of the lowered plan, and the outcome (the first error otherwise).

Writes docs/lowering-coverage.md (or prints with --stdout).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "build", "bin")

CASES = [
    ("DeepSeek-V3 prefill 4K", ["--phase=prefill", "--seq-len=4096"]),
    ("DeepSeek-V3 decode, batch 64, 4K context",
     ["--phase=decode", "--batch=64", "--context-len=4095"]),
]
# Other families (issue 28): their kernels only (the whole-model table keeps
# DeepSeek-V3). Attention sinks, soft-capping, GeGLU and biased, clamped
# experts each lower through the same tilings.
FAMILY_CASES = [
    ("GPT-OSS-20B prefill 1K", "gpt-oss-20b", ["--phase=prefill", "--seq-len=1024"]),
    ("GPT-OSS-20B decode, batch 8, 1K context", "gpt-oss-20b",
     ["--phase=decode", "--batch=8", "--context-len=1023"]),
    ("Gemma-2-9B prefill 1K", "gemma-2-9b", ["--phase=prefill", "--seq-len=1024"]),
    ("Gemma-2-9B decode, batch 8, 1K context", "gemma-2-9b",
     ["--phase=decode", "--batch=8", "--context-len=1023"]),
]
TYPE = re.compile(r"tensor<[^>]*>|memref<[^>]*>|index|[if]\d+|bf16")


def kernels(module):
    """(kind, header line, standalone module) per distinct kernel."""
    lines = module.split("\n")
    head = lines[0]
    seen = {}
    i = 0
    while i < len(lines):
        m = re.match(r"\s*%\S+ = npu.kernel\s+(\w+)\((.*?)\) \{", lines[i])
        if not m:
            i += 1
            continue
        body, depth, j = [], 0, i
        while True:
            body.append(lines[j])
            depth += lines[j].count("{") - lines[j].count("}")
            if j > i and depth == 0 and re.match(r"\s*\}\s*$", lines[j]):
                break
            j += 1
        i = j + 1
        sig = re.search(r"\} : \((.*?)\) -> (.*) \{$", body[0])
        ins = TYPE.findall(sig.group(1))
        outs = TYPE.findall(sig.group(2))
        n = len(outs)
        first = re.sub(r"npu.kernel\s+(\w+)\((.*?)\)",
                       lambda k: "npu.kernel %s(%s)" % (
                           k.group(1), ", ".join("%%a%d" % a for a in range(len(ins)))),
                       body[0], count=1)
        first = re.sub(r"^\s*%\S+ = ", "    %%r%s = " % (":%d" % n if n > 1 else ""), first)
        first = re.sub(r"npu.cost = #npu.cost<[^>]*>, |npu.slot = #npu.slot<[^>]*>, ", "", first)
        text = "\n".join([first] + body[1:])
        key = re.sub(r"%[\w#:]+", "%", text)
        if key in seen:
            continue
        rets = ", ".join("%%r#%d" % r for r in range(n)) if n > 1 else "%r"
        mod = "%s\n  func.func @k(%s) -> (%s) {\n%s\n    return %s : %s\n  }\n}\n" % (
            head, ", ".join("%%a%d: %s" % (a, t) for a, t in enumerate(ins)),
            ", ".join(outs), text, rets, ", ".join(outs))
        seen[key] = (m.group(1), first, mod)
    return list(seen.values())


def tiled_model(args, target, config="deepseek-v3"):
    """The model imported and run through --npu-tpu-pipeline."""
    model = subprocess.run(
        [os.path.join(BIN, "npu-translate"), "--import-hf-config",
         os.path.join(ROOT, "examples", "configs", config + ".json")] + args,
        capture_output=True, text=True, check=True).stdout
    return subprocess.run(
        [os.path.join(BIN, "npu-opt"), "-", "--npu-tpu-pipeline=target=" + target],
        input=model, capture_output=True, text=True, check=True).stdout


def whole(args, target):
    """The whole model lowered as one program: (seconds, error or None,
    [(function, VMEM peak, DMA starts, VMEM buffers)])."""
    tiled = tiled_model(args, target)
    t0 = time.perf_counter()
    r = subprocess.run(
        [os.path.join(BIN, "npu-opt"), "-", "--npu-tpu-lower-pipeline=target=" + target],
        input=tiled, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        err = re.search(r"error: (.*)", r.stderr)
        return dt, err.group(1) if err else r.stderr.strip()[:200], []
    funcs = []
    for part in re.split(r"\n  func\.func ", r.stdout)[1:]:
        name = re.match(r"(?:private )?@(\w+)", part).group(1)
        peak = re.search(r"npu.sram_peak = (\d+)", part.split("\n", 1)[0])
        funcs.append((name, peak.group(1) if peak else "0",
                      part.count("npu.dma_start"),
                      len(re.findall(r"memref.alloc\(\).*npu.sram_offset", part))))
    return dt, None, funcs


def survey(name, args, target, config="deepseek-v3"):
    tiled = tiled_model(args, target, config)
    rows = []
    for kind, header, mod in kernels(tiled):
        r = subprocess.run(
            [os.path.join(BIN, "npu-opt"), "-", "--npu-tpu-lower-pipeline=target=" + target,
             "-o", "/dev/null"], input=mod, capture_output=True, text=True)
        til = re.search(r" tile = \[([^\]]*)\]", header)
        shared = re.search(r"shared_tile = \[([^\]]*)\]", header)
        sram = re.search(r"sram_bytes = (\d+)", header)
        plan = ""
        if r.returncode == 0:
            p = subprocess.run(
                [os.path.join(BIN, "npu-opt"), "-", "--npu-tpu-lower-pipeline=target=" + target],
                input=mod, capture_output=True, text=True).stdout
            m = re.search(r"npu.sram_peak = (\d+)", p)
            plan = m.group(1) if m else "0"
            outcome = "lowered"
        else:
            err = re.search(r"error: (.*)", r.stderr)
            outcome = err.group(1) if err else r.stderr.strip()[:200]
            outcome = re.sub(r"npu-tpu-[\w-]+: ", "", outcome)
        operands = TYPE.findall(re.search(r"\} : \((.*?)\) ->", header).group(1))
        tile = til.group(1) if til else "-"
        if shared:
            tile += "; shared expert " + shared.group(1)
        rows.append((kind, operands[0] if operands else "", tile,
                     sram.group(1) if sram else "-", plan, outcome))
    return rows


def mib(b):
    return "%.1f" % (int(b) / 2 ** 20) if b and b not in ("-",) else "-"


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--target", default="tpu-v7")
    a.add_argument("--stdout", action="store_true")
    o = a.parse_args()
    out = ["# TPU-like memory lowering of a whole model: which kernels lower",
           "",
           "Generated by `python3 scripts/lower_survey.py` (do not edit by hand). Each distinct",
           "kernel of the model after `--npu-tpu-pipeline=target=%s` is lowered on its own with" % o.target,
           "`--npu-tpu-lower-pipeline` (docs/memory-tpu.md). *model SRAM*: the working set the",
           "cost model priced (`sram_bytes`); *plan peak*: the lowered VMEM plan's peak",
           "(`npu.sram_peak`). A kernel that does not lower still has its modelled cost; what",
           "is missing is the memory program (docs/tiling.md, \"not built\").",
           ""]
    total = ok = 0
    for name, config, args in [(n, "deepseek-v3", a) for n, a in CASES] + FAMILY_CASES:
        rows = survey(name, args, o.target, config)
        out += ["## " + name, "",
                "| kernel | first operand | tile | model SRAM (MiB) | plan peak (MiB) | outcome |",
                "|---|---|---|---:|---:|---|"]
        for kind, first, tile, sram, plan, outcome in rows:
            out.append("| %s | `%s` | %s | %s | %s | %s |" % (
                kind, first, tile, mib(sram), mib(plan), outcome.replace("|", "\\|")))
            total += 1
            ok += outcome == "lowered"
        out.append("")
    out.append("%d of %d distinct kernels lower." % (ok, total))
    out += ["", "## The whole model as one program", "",
            "Each model through `--npu-tpu-pipeline` and then `--npu-tpu-lower-pipeline` as one",
            "module: the parameters are constant globals in HBM (`npu-weights-to-globals`), each",
            "function gets its own VMEM plan, which `npu-tpu-verify-sram` checks. *DMA starts*",
            "and *VMEM buffers* count ops in the IR (a DMA in a loop counts once); *lower s*",
            "is the wall time of the lowering process on this machine.", "",
            "| model | target | function | plan peak (MiB) | VMEM of the core (MiB) | DMA starts | VMEM buffers | lower s |",
            "|---|---|---|---:|---:|---:|---:|---:|"]
    for name, args in CASES:
        for target in ("tpu-v5e", "tpu-v7"):
            vmem = json.load(open(os.path.join(ROOT, "npu-target", target + ".json")))
            vmem = vmem["tpu"]["vmem_bytes_per_core"]
            dt, err, funcs = whole(args, target)
            if err:
                out.append("| %s | %s | - | - | %s | - | - | %.1f (fails: %s) |" % (
                    name, target, mib(vmem), dt, err.replace("|", "\\|")))
            for fn, peak, dmas, bufs in funcs:
                out.append("| %s | %s | `@%s` | %s | %s | %d | %d | %.1f |" % (
                    name, target, fn, mib(peak), mib(vmem), dmas, bufs, dt))
    out.append("")
    text = "\n".join(out) + "\n"
    if o.stdout:
        sys.stdout.write(text)
    else:
        with open(os.path.join(ROOT, "docs", "lowering-coverage.md"), "w") as f:
            f.write(text)
        print("lower_survey.py: %d of %d kernels lower; wrote docs/lowering-coverage.md" % (ok, total))


if __name__ == "__main__":
    main()
