#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, docs/fuzzing.md) in ./build-fuzz with
# clang, ASan and UBSan, and runs each for N seconds:
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     # default: 60, all
#
# TARGET is parse, passes, backends, target, system, import, calls, options, serve or sweep. The targets run side by side,
# NPU_FUZZ_JOBS at a time (default: the number of cores). Fails if any
# target finds a crash, a leak, a timeout or runs out of memory; the input is
# saved under build-fuzz/fuzz/crashes/<target>/ and the script prints the
# command that reproduces it. New interesting inputs accumulate in
# build-fuzz/fuzz/corpus/<target>/, so that later runs start from them.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(parse passes backends target system import calls options serve sweep)
JOBS=${NPU_FUZZ_JOBS:-$(nproc)}

# The sanitized build shared with scripts/sanitize.sh (clang, ASan, UBSan,
# coverage; fuzz/FuzzFlags.cmake).
scripts/build-sanitized.sh npu-fuzzers npu-translate

OUT=build-fuzz/fuzz
BIN=build-fuzz/bin
# npu-translate (instrumented too) imports tiny models as seeds; fuzz/AsanOptions.cpp
# says why user poisoning is off.
ASAN_OPTIONS=allow_user_poisoning=0 python3 fuzz/make-corpus.py "$OUT" \
  --translate "$BIN/npu-translate"

# Seeds: the generated ones, plus the tree's own files read in place.
declare -A DICT SEEDS
DICT[parse]=mlir;    SEEDS[parse]="$OUT/seeds/mlir"
DICT[passes]=mlir;   SEEDS[passes]="$OUT/seeds/mlir"
DICT[backends]=mlir; SEEDS[backends]="$OUT/seeds/mlir"
DICT[target]=target; SEEDS[target]="npu-target test/Target"
DICT[system]=target; SEEDS[system]="npu-target/systems test/System/Inputs"
DICT[sweep]=target;  SEEDS[sweep]="examples/sweeps test/Sweep/Inputs"
DICT[import]=config; SEEDS[import]="$OUT/seeds/config examples/configs test/Import/Inputs"
DICT[calls]=calls;   SEEDS[calls]="$OUT/seeds/calls"
DICT[options]=options; SEEDS[options]="$OUT/seeds/options"
DICT[serve]=serve;   SEEDS[serve]="$OUT/seeds/serve"
declare -A BINARY=([options]=compare-options)

# -rss_limit_mb: 2 GiB per process, also the largest single allocation.
# -timeout: seconds per input; the slowest seeds (the reference pipeline on
# an imported model, under ASan) take well under a second.
# Leak detection stays on: each input gets its own MLIRContext, so anything
# still allocated after an input is a real leak (docs/fuzzing.md).
run_one() {
  local t=$1
  mkdir -p "$OUT/corpus/$t" "$OUT/crashes/$t"
  # shellcheck disable=SC2086
  "$BIN/npu-fuzz-${BINARY[$t]:-$t}" -max_total_time="$SECS" -rss_limit_mb=2048 -timeout=25 \
    -detect_leaks=1 -print_final_stats=1 -dict="$OUT/dict/${DICT[$t]}.dict" \
    -artifact_prefix="$OUT/crashes/$t/" \
    "$OUT/corpus/$t" ${SEEDS[$t]} >"$OUT/$t.log" 2>&1
}

rm -f "$OUT"/*.status
for t in "${TARGETS[@]}"; do
  [ -n "${DICT[$t]:-}" ] || { echo "unknown fuzz target '$t'" >&2; exit 2; }
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
  echo "fuzzing $t for ${SECS}s (log: $OUT/$t.log)"
  (if run_one "$t"; then echo ok; else echo "failed ($?)"; fi >"$OUT/$t.status") &
done
wait

status=0
for t in "${TARGETS[@]}"; do
  result=$(cat "$OUT/$t.status")
  stats=$(grep -E "stat::number_of_executed_units" "$OUT/$t.log" | awk '{print $2}')
  echo "npu-fuzz-${BINARY[$t]:-$t}: $result, ${stats:-?} inputs run"
  if [ "$result" != ok ]; then
    status=1
    grep -E "^(==[0-9]+==ERROR|SUMMARY|npu fuzz invariant|artifact_prefix|Test unit written)" \
      "$OUT/$t.log" | head -20 || true
    for f in "$OUT/crashes/$t"/*; do
      [ -f "$f" ] && echo "  reproduce: $BIN/npu-fuzz-${BINARY[$t]:-$t} $f"
    done
  fi
done
exit $status
