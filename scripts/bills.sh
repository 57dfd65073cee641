#!/usr/bin/env bash
# Writes the DeepSeek-V3 bills (prefill 4K, 128K, 1M tokens; decode batch 1
# and 64 at a 4K context) on an H200 as JSON under docs/bills/, and prints how
# long each took. Needs a build (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
T=${TARGET:-h200}
cfg=examples/configs/deepseek-v3.json
run() {
  local name=$1; shift
  local start=$EPOCHREALTIME
  ./build/bin/npu-translate --import-hf-config "$cfg" "$@" |
    ./build/bin/npu-opt --npu-report-bill="target=$T format=json" -o /dev/null \
      > "docs/bills/deepseek-v3-$name-$T.json"
  local end=$EPOCHREALTIME
  awk -v n="$name" -v s="$start" -v e="$end" 'BEGIN { printf "%-16s %.2f s\n", n, e - s }'
}
run prefill-4k --phase=prefill --seq-len=4096
run prefill-128k --phase=prefill --seq-len=131072
run prefill-1m --phase=prefill --seq-len=1048576
run decode-b1 --phase=decode --batch=1 --context-len=4096
run decode-b64 --phase=decode --batch=64 --context-len=4096
