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
