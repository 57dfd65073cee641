#!/usr/bin/env bash
# Installs, builds and runs every test (lit + FileCheck, mlir-runner execution
# tests, GoogleTest unit tests) through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd build
ctest --output-on-failure -j "$(nproc)"
