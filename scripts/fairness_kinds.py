"""Rewrites the time columns of docs/fairness.md's "What each kernel kind
stands for" table from the tools: per kernel kind, the kernel time summed
over calls of DeepSeek-V3 (checkpoint weights) prefill 4K and decode at batch
64, 4K context, on tpu-v7 / gb300 (as docs/results.md, question 5); the
attention row's decode cell is Llama-3-8B decode at batch 256, 4K context
(DeepSeek-V3 decodes with `mla_absorbed`). The kind of a kernel is its
label's name before the parenthesis.

    python3 scripts/fairness_kinds.py
"""
import collections
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "build", "bin")
CFG = os.path.join(ROOT, "examples", "configs")
DOC = os.path.join(ROOT, "docs", "fairness.md")
PAIR = ["--tpu=tpu-v7", "--gpu=gb300"]


def compare(model, *translate):
    imp = subprocess.run(
        [os.path.join(BIN, "npu-translate"), "--import-hf-config",
         os.path.join(CFG, model + ".json"), *translate],
        capture_output=True, text=True)
    if imp.returncode != 0:
        sys.exit("fairness_kinds.py: npu-translate failed:\n" + imp.stderr)
    cmp = subprocess.run(
        [os.path.join(BIN, "npu-compare"), "-", "--format=json", *PAIR],
        input=imp.stdout, capture_output=True, text=True)
    if cmp.returncode != 0:
        sys.exit("fairness_kinds.py: npu-compare failed:\n" + cmp.stderr)
    return json.loads(cmp.stdout)


def by_kind(report):
    """kind -> [TPU-like ms, GPU-like ms], summed over calls."""
    acc = collections.defaultdict(lambda: [0.0, 0.0])
    for f in report["functions"]:
        for r in f["rows"]:
            if r["call"]:
                continue
            for s, key in enumerate(("tpu", "gpu")):
                for item in (r[key] or {}).get("items", []):
                    kind = item["name"].split("(")[0]
                    acc[kind][s] += f["calls"] * item["time_ns"] / 1e6
    return acc


def cell(times):
    tpu, gpu = times
    return f"{tpu:.2f} / {gpu:.2f} ({tpu / gpu:.2f})"


def main():
    deepseek = ["--weight-dtype=checkpoint"]
    pre = by_kind(compare("deepseek-v3", "--phase=prefill", "--batch=1",
                          "--seq-len=4096", *deepseek))
    dec = by_kind(compare("deepseek-v3", "--phase=decode", "--batch=64",
                          "--context-len=4095", *deepseek))
    llama = by_kind(compare("llama-3-8b", "--phase=decode", "--batch=256",
                            "--context-len=4095"))
    text = open(DOC).read()
    out, seen = [], set()
    for line in text.split("\n"):
        m = re.match(r"\| `(\w+)` \|", line)
        cols = line.split(" | ")
        if m and len(cols) == 5 and (m.group(1) in pre or m.group(1) in dec):
            kind = m.group(1)
            seen.add(kind)
            cols[3] = cell(pre[kind]) if kind in pre else "-"
            if kind == "attention":
                cols[4] = "Llama-3-8B b256, 4K: " + cell(llama[kind]) + " |"
            elif kind in dec:
                cols[4] = cell(dec[kind]) + " |"
            else:
                cols[4] = "- |"
            line = " | ".join(cols)
        out.append(line)
    missing = [k for k in list(pre) + list(dec) if k not in seen]
    if missing:
        sys.exit("fairness_kinds.py: no row in docs/fairness.md for " +
                 ", ".join(missing))
    open(DOC, "w").write("\n".join(out))
    print("docs/fairness.md: the kinds' time columns rewritten")


if __name__ == "__main__":
    main()
