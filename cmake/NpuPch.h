//===- NpuPch.h - Headers precompiled once for npu's targets ---*- C++ -*-===//
//
// The MLIR and LLVM headers (and the npu dialect's generated ones) that most
// translation units include, parsed once into a precompiled header that the
// libraries, tools and tests reuse (cmake/NpuPch.cmake, docs/building.md).
// Kept to the IR core: a larger precompiled header is slower to load than a
// small file takes to compile. Every file still includes what it uses: a
// build with -DNPU_PCH=OFF checks that.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/PatternMatch.h"
#include "npu/Dialect/Npu/IR/NpuDialect.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
