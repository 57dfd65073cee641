//===- Passes.td - conversions out of the npu dialect ---------------------===//

#ifndef NPU_CONVERSION_PASSES_TD
#define NPU_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def NpuLowerToLinalg : Pass<"npu-lower-to-linalg", "ModuleOp"> {
  let summary = "Reference lowering of every npu op to linalg/tensor/arith/math/scf";
  let description = [{
    Rewrites every `npu` op into upstream dialects on tensors. This lowering
    *defines* the numerical semantics of the dialect: the execution tests run
    its output with `mlir-runner` and compare with an independent reference,
    and the tiled and fused pipelines are checked against it.

    The lowering favours clarity over speed: attention materializes its
    score matrix, top-k is a selection loop, and `npu.weight` becomes a
    deterministic constant tensor (see its description). Reductions
    accumulate in f32 (or the op's accumulator type) and round once.

    Any npu op left unconverted is an error at its location.

    Example:
    ```mlir
    %y = npu.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
    ```
    becomes a `linalg.fill` of the accumulator and a `linalg.generic` with
    iterators `[parallel, parallel, reduction]`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // NPU_CONVERSION_PASSES_TD
