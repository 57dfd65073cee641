//===- Passes.h - conversions out of the npu dialect -------------*- C++
//-*-===//

#ifndef NPU_CONVERSION_PASSES_H
#define NPU_CONVERSION_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace gpu {
class GPUDialect; // npu-tile-kernels block-mapping=gpu
} // namespace gpu
class RewritePatternSet;
namespace npu {

#define GEN_PASS_DECL
#include "npu/Conversion/Passes.h.inc"

/// Adds the reference lowering patterns of every npu op family.
void populateNpuToLinalgPatterns(RewritePatternSet &patterns);

/// Inlines the body of every `npu.kernel` under `root` in place of the
/// kernel (its results become the yielded values), leaving its npu ops to the
/// reference lowering: the untiled semantics of a kernel.
void inlineNpuKernels(Operation *root);

#define GEN_PASS_REGISTRATION
#include "npu/Conversion/Passes.h.inc"

} // namespace npu
} // namespace mlir

#endif // NPU_CONVERSION_PASSES_H
