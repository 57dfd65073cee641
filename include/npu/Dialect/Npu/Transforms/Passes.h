//===- Passes.h - passes on npu graph IR -------------------------*- C++
//-*-===//

#ifndef NPU_DIALECT_NPU_TRANSFORMS_PASSES_H
#define NPU_DIALECT_NPU_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::npu {
#define GEN_PASS_DECL
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

#endif // NPU_DIALECT_NPU_TRANSFORMS_PASSES_H
