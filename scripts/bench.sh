#!/usr/bin/env bash
# Compile-time benchmarks: builds npu-bench (Google Benchmark; apt-get
# installs libbenchmark-dev if missing), runs it, and rewrites
# docs/benchmarks.md with the results table. One command: bash scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh libbenchmark-dev
scripts/setup.sh >/dev/null
cmake -S . -B build >/dev/null
ninja -C build npu-bench npu-opt npu-translate >/dev/null
out=$(mktemp)
./build/bin/npu-bench --benchmark_min_time=0.5 --benchmark_format=json > "$out"
# End-to-end: the command-line tools, one process per step (includes start-up,
# parsing the printed IR and writing the JSON bill), with peak RSS.
e2e=$(mktemp)
cfg=examples/configs/deepseek-v3.json
for args in "--phase=prefill --seq-len=4096" "--phase=prefill --seq-len=131072" \
            "--phase=prefill --seq-len=1048576" "--phase=decode --batch=1 --context-len=4095" \
            "--phase=decode --batch=256 --context-len=4095"; do
  # shellcheck disable=SC2086
  ./build/bin/npu-translate --import-hf-config $cfg $args -o /tmp/npu-bench-model.mlir
  start=$EPOCHREALTIME
  rss=$( { /usr/bin/env time -f "%M" ./build/bin/npu-opt /tmp/npu-bench-model.mlir \
            --npu-report-bill="target=h200 format=json" -o /dev/null >/dev/null; } 2>&1 | tail -1 || echo "?")
  end=$EPOCHREALTIME
  echo "$args|$start|$end|$rss" >> "$e2e"
done
python3 scripts/bench_table.py "$out" "$e2e" > docs/benchmarks.md
rm -f "$out" "$e2e" /tmp/npu-bench-model.mlir
echo "wrote docs/benchmarks.md"
