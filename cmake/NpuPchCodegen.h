//===- NpuPchCodegen.h - Precompiled headers of the lowering ---*- C++ -*-===//
//
// NpuPch.h and the upstream dialects that the lowering passes build
// (cmake/NpuPch.cmake): parsing them is most of a pass file's compile time.
//
//===----------------------------------------------------------------------===//

#include "NpuPch.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
