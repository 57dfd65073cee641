#!/usr/bin/env bash
# Regenerates docs/generated/ (dialect, interface and pass reference) from the
# .td descriptions with mlir-tblgen (`ninja mlir-doc`). Needs a build.
set -euo pipefail
cd "$(dirname "$0")/.."
ninja -C build mlir-doc >/dev/null
mkdir -p docs/generated
cp build/docs/Dialects/NpuOps.md build/docs/Dialects/NpuInterfaces.md \
   build/docs/NpuConversionPasses.md build/docs/NpuTransformsPasses.md docs/generated/
echo "docs/generated: $(ls docs/generated | tr '\n' ' ')"
# docs/results.md (scripts/results.py) and docs/benchmarks-{tpu,gpu}.md
# (scripts/bench_backends.py) are generated too, but by compiling and pricing
# whole workloads (minutes on 2 cores): rerun them by hand after a change to
# a cost model, a pass or a target file. No test checks that they are current,
# on purpose: their numbers move with every cost-model change, so such a check
# would fail on every model improvement and make ctest minutes longer.
