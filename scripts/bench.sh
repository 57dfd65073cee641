#!/usr/bin/env bash
# Compile-time benchmarks: builds npu-bench (Google Benchmark; apt-get
# installs libbenchmark-dev if missing), runs it, and rewrites
# docs/benchmarks.md with the results table. One command: bash scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh libbenchmark-dev
scripts/setup.sh >/dev/null
cmake -S . -B build >/dev/null
ninja -C build npu-bench npu-opt npu-translate npu-compare npu-serve >/dev/null
out=$(mktemp)
./build/bin/npu-bench --benchmark_min_time=0.5 --benchmark_format=json > "$out"
# End-to-end: the command-line tools, one process per step and tool (includes
# start-up, parsing the printed IR, writing the output), with peak RSS:
# the bill, each backend pipeline, and npu-compare from the config (import,
# both pipelines, the comparison).
e2e=$(mktemp)
cfg=examples/configs/deepseek-v3.json
model=/tmp/npu-bench-model.mlir
timed() { # label, command...; a failed run is recorded as such
  local label=$1 start end tf stat rss
  shift
  tf=$(mktemp)
  start=$EPOCHREALTIME
  /usr/bin/env time -o "$tf" -f "%x %M" "$@" >/dev/null 2>&1 || true
  end=$EPOCHREALTIME
  read -r stat rss < "$tf"
  rm -f "$tf"
  [ "$stat" = 0 ] || rss=fail
  echo "$args|$label|$start|$end|$rss" >> "$e2e"
}
for args in "--phase=prefill --seq-len=4096" "--phase=prefill --seq-len=131072" \
            "--phase=prefill --seq-len=1048576" "--phase=decode --batch=1 --context-len=4095" \
            "--phase=decode --batch=256 --context-len=4095"; do
  # shellcheck disable=SC2086
  ./build/bin/npu-translate --import-hf-config $cfg $args -o $model
  timed bill ./build/bin/npu-opt $model --npu-report-bill="target=h200 format=json" -o /dev/null
  timed tpu ./build/bin/npu-opt $model --npu-tpu-pipeline="target=tpu-v7" -o /dev/null
  timed gpu ./build/bin/npu-opt $model --npu-gpu-pipeline="target=gb300" -o /dev/null
  # shellcheck disable=SC2086
  timed compare ./build/bin/npu-compare --config $cfg $args --format=json -o /dev/null
done
# Serving simulation (issue 26): 100,000 requests through each engine, the
# cost tables compiled once beforehand (--emit-costs), so the timing is the
# simulation's alone: one process per engine, start-up and JSON output
# included.
serve=$(mktemp)
tables=$(mktemp --suffix=.json)
trace=(--requests=100000 --rate=10 --prompt=longtail:512:4096 --output=longtail:256:2048)
ninja -C build npu-serve >/dev/null
for engine in static continuous; do
  ./build/bin/npu-serve --config=examples/configs/llama-3-8b.json --tpu=tpu-v7 \
    --gpu=h200 --tpu-engine=$engine --gpu-engine=$engine "${trace[@]}" \
    --emit-costs="$tables" >/dev/null
  start=$EPOCHREALTIME
  rss=$( { /usr/bin/env time -f "%M" ./build/bin/npu-serve --costs="$tables" \
    --tpu-engine=$engine --gpu-engine=$engine "${trace[@]}" --format=json \
    -o "$serve.$engine.json"; } 2>&1 | tail -1)
  end=$EPOCHREALTIME
  echo "$engine|$start|$end|$rss|$serve.$engine.json" >> "$serve"
done
# Written whole or not at all. Then the scaling section (issue 29): paired
# ratios in the sequence length, exponents in layers and kernels, and the
# memory of reports of 100k kernels.
python3 scripts/bench_table.py "$out" "$e2e" "$serve" > "$serve.md"
python3 scripts/compile_scaling.py --full >> "$serve.md"
ninja -C build npu-sweep >/dev/null
echo >> "$serve.md"
python3 scripts/sweep_bench.py >> "$serve.md"
mv "$serve.md" docs/benchmarks.md
rm -f "$out" "$e2e" $model "$serve" "$serve".*.json "$tables"
echo "wrote docs/benchmarks.md"
