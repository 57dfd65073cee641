#!/usr/bin/env bash
# Runs the whole test suite (lit, mlir-runner execution tests, GoogleTest)
# under AddressSanitizer + UndefinedBehaviorSanitizer: builds ./build-fuzz
# (scripts/build-sanitized.sh) and runs its ctest. Any sanitizer report
# fails the test that triggered it (-fno-sanitize-recover=all), leaks
# included. docs/fuzzing.md, "Sanitizers".
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build-sanitized.sh
# allow_user_poisoning=0: see fuzz/AsanOptions.cpp (the fuzzers set it
# themselves; the tools and unit tests get it from here, lit passes
# ASAN_OPTIONS through to the tests).
export ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-fuzz --output-on-failure -j "$(nproc)" "$@"
