#!/usr/bin/env bash
# Installs clang and configures + builds ./build-fuzz: all of npu compiled by
# clang with AddressSanitizer, UndefinedBehaviorSanitizer, assertions and
# libFuzzer's coverage (fuzz/FuzzFlags.cmake, docs/fuzzing.md). One build
# serves both the sanitized test suite (scripts/sanitize.sh) and the fuzzers
# (scripts/fuzz.sh).
#   scripts/build-sanitized.sh [NINJA_TARGET...]      # default: everything
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh cmake ninja-build lld python3 clang-22 libclang-rt-22-dev librsvg2-bin libgtest-dev libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools

# -O1 with line tables: the usual sanitizer/fuzzing build (fast enough,
# readable stack traces).
if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S . -B build-fuzz \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DLLVM_USE_LINKER=lld \
    -DNPU_ENABLE_FUZZERS=ON
fi
ninja -C build-fuzz "$@"
