#!/usr/bin/env bash
# The main job on a bundled example: DeepSeek-V3 (examples/configs) for a
# 4K-token prefill and a batch-64 decode step compiled both ways by
# npu-compare -- the TPU-like pipeline (compile-time decisions, tpu-v7) and the
# GPU-like pipeline (run-time decisions modelled, gb300) -- side by side per
# kernel and in total, with traces and SVG pictures in demo-out/; then the
# bill of each step on an H200 (FLOPs, bytes, roofline, KV cache, chips).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
mkdir -p demo-out
for args in "--phase=prefill --seq-len=4096" "--phase=decode --batch=64 --context-len=4095"; do
  name=$(echo "$args" | cut -d' ' -f1 | cut -d= -f2)
  echo "=== npu-compare: DeepSeek-V3 $args, tpu-v7 vs gb300 (15 largest differences)"
  # shellcheck disable=SC2086
  ./build/bin/npu-compare --config=examples/configs/deepseek-v3.json $args --top=15 \
    --svg-dir="demo-out/$name" --trace-dir="demo-out/$name"
done
for args in "--phase=prefill --seq-len=4096" "--phase=decode --batch=64 --context-len=4095"; do
  echo "=== DeepSeek-V3 $args"
  # shellcheck disable=SC2086
  ./build/bin/npu-translate --import-hf-config examples/configs/deepseek-v3.json $args |
    ./build/bin/npu-opt --npu-report-bill="target=${TARGET:-h200}" -o /dev/null
done
