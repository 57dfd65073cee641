#!/usr/bin/env bash
# The main job on a bundled example: parse and verify a Llama-3-8B decoder
# layer (prefill, 2048 tokens) and print the work of every op and the total.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
./build/bin/npu-opt examples/llama3-8b-layer-prefill.mlir --npu-report-work -o /dev/null
