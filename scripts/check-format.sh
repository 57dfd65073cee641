#!/usr/bin/env bash
# Fails if any C++ file differs from .clang-format (LLVM style).
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files '*.cpp' '*.h' 2>/dev/null || find include lib tools unittests -name '*.cpp' -o -name '*.h')
clang-format --dry-run --Werror $files
echo "check-format: $(echo "$files" | wc -w) files clean"
