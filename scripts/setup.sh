#!/usr/bin/env bash
# Installs what npu needs on Debian 12 (as root, or with sudo available) and
# configures + builds it in ./build. Idempotent: reruns only rebuild.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh cmake ninja-build g++ lld python3 git clang-format librsvg2-bin libgtest-dev parallel libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools

if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DLLVM_USE_LINKER=lld
fi
ninja -C build
