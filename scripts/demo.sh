#!/usr/bin/env bash
# The main job on a bundled example: import DeepSeek-V3 (examples/configs)
# for a 4K-token prefill and for a batch-64 decode step, and print the bill of
# each on an H200: per-layer and per-op FLOPs, bytes, roofline time and bound,
# parameters, KV cache, and how many chips the model needs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
for args in "--phase=prefill --seq-len=4096" "--phase=decode --batch=64 --context-len=4095"; do
  echo "=== DeepSeek-V3 $args"
  # shellcheck disable=SC2086
  ./build/bin/npu-translate --import-hf-config examples/configs/deepseek-v3.json $args |
    ./build/bin/npu-opt --npu-report-bill="target=${TARGET:-h200}" -o /dev/null
done
