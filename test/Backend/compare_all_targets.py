#!/usr/bin/env python3
"""Runs npu-compare on MODULE for every TPU-like target against every
GPU-like target of `npu-target-info --list` (the built-in targets), and
prints one line per pair: its time ratio, or why it failed. Exits non-zero
if any pair fails.

usage: compare_all_targets.py BIN_DIR MODULE
"""
import json
import os
import subprocess
import sys


def main():
    bindir, module = sys.argv[1], sys.argv[2]
    listing = subprocess.run([os.path.join(bindir, "npu-target-info"), "--list"],
                             capture_output=True, text=True, check=True).stdout
    targets = {"tpu": [], "gpu": []}
    for line in listing.splitlines()[1:]:
        name, kind = line.split()[:2]
        targets[kind].append(name)
    failed = 0
    for tpu in targets["tpu"]:
        for gpu in targets["gpu"]:
            out = subprocess.run([os.path.join(bindir, "npu-compare"), module,
                                  "--tpu=" + tpu, "--gpu=" + gpu, "--format=json"],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                failed += 1
                print("%s vs %s: FAILED: %s" % (tpu, gpu, out.stderr.strip()))
                continue
            total = json.loads(out.stdout)["total"]
            print("%s vs %s: compared, tpu/gpu %.3f" % (
                tpu, gpu, total["tpu"]["time_ns"] / total["gpu"]["time_ns"]))
    print("%d TPU-like x %d GPU-like targets, %d failed" % (
        len(targets["tpu"]), len(targets["gpu"]), failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
