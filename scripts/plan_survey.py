#!/usr/bin/env python3
"""npu-tpu-check-plan over every example config (docs/plan-check.md).

Each config of examples/configs is imported at prefill of 1000, 1024 and
4096 tokens and decode at batch 1 (777 and 1000 cached tokens), 8 (1000 and
4095) and 64 (1000), compiled with the TPU-like pipeline for tpu-v7 and
tpu-v5e, and every kernel's lowered memory program is measured against
what the cost model priced (npu-tpu-check-plan, tolerance 0). A case the
importer refuses (a prompt past a model's positions) is skipped and
counted. Prints one line per kernel that differs and a summary; exits 1 if
any differs.

usage: python3 scripts/plan_survey.py [--bin DIR] [--jobs N] [--configs a,b]
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = ["--phase=prefill --seq-len=1000", "--phase=prefill --seq-len=1024",
         "--phase=prefill --seq-len=4096",
         "--phase=decode --batch=1 --context-len=777",
         "--phase=decode --batch=1 --context-len=1000",
         "--phase=decode --batch=8 --context-len=1000",
         "--phase=decode --batch=8 --context-len=4095",
         "--phase=decode --batch=64 --context-len=1000"]
TARGETS = ["tpu-v7", "tpu-v5e"]


def check(bin_dir, config, case, target):
    """(status, lines): 'skip' if the importer refuses the case."""
    def tool(name):
        return os.path.join(bin_dir, name)
    graph = subprocess.run(
        [tool("npu-translate"), "--import-hf-config", config] + case.split(),
        capture_output=True, text=True)
    if graph.returncode:
        return "skip", []
    module = subprocess.run(
        [tool("npu-opt"), f"--npu-tpu-pipeline=target={target}"],
        input=graph.stdout, capture_output=True, text=True)
    if module.returncode:
        return "fail", [module.stderr.strip().splitlines()[0]]
    report = subprocess.run(
        [tool("npu-opt"), "--npu-tpu-check-plan=report=true", "-o",
         os.devnull], input=module.stdout, capture_output=True, text=True)
    lines = [l.split(" {npu.cost")[0] for l in report.stderr.splitlines()
             if "error:" in l]
    summary = [l for l in report.stdout.splitlines()
               if l.startswith("npu-tpu-check-plan:")]
    if report.returncode or lines or not summary:
        return "fail", lines or ["no summary"]
    return "ok", []


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--configs", default="")
    args = parser.parse_args()
    cfg_dir = os.path.join(ROOT, "examples", "configs")
    names = sorted(f[:-5] for f in os.listdir(cfg_dir) if f.endswith(".json"))
    if args.configs:
        names = [n for n in names if n in args.configs.split(",")]
    jobs = [(n, c, t) for n in names for c in CASES for t in TARGETS]
    counts = {"ok": 0, "skip": 0, "fail": 0}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = pool.map(
            lambda j: (j, check(args.bin, os.path.join(cfg_dir, j[0] + ".json"),
                                j[1], j[2])), jobs)
        for (name, case, target), (status, lines) in results:
            counts[status] += 1
            if status == "fail":
                print(f"{name} {target} {case}:")
                for line in lines:
                    print(f"  {line}")
    print(f"plan_survey: {len(jobs)} cases, {counts['ok']} as priced, "
          f"{counts['fail']} not, {counts['skip']} refused by the importer")
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
