//===- NpuMatmulOps.td - matmul of the npu dialect ------------------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUMATMULOPS_TD
#define NPU_DIALECT_NPU_IR_NPUMATMULOPS_TD

include "npu/Dialect/Npu/IR/NpuBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Npu_MatmulOp : Npu_Op<"matmul", [Pure]> {
  let summary = "batched matrix multiplication with optional transposes";
  let description = [{
    `result[b..., m, n] = sum_k lhs[b..., m, k] * rhs[b..., k, n]`, with the
    products and the sum computed in `acc_type` (f32 unless given) and the
    sum rounded once to the result element type.

    * `lhs` has shape `[b..., M, K]`, or `[b..., K, M]` with `transpose_lhs`.
    * `rhs` has shape `[b..., K, N]`, or `[b..., N, K]` with `transpose_rhs`
      (the PyTorch `nn.Linear` weight layout). `rhs` may also be rank 2 while
      `lhs` has batch dimensions: the same matrix (typically a weight) is
      used for every batch element.
    * Operands may be f32, f16, bf16 or fp8 (e4m3fn, e5m2); the result is
      f32, f16 or bf16.

    Work: `2·B·M·N·K` matrix FLOPs (B = product of batch dimensions); reads
    both operands once, writes the result once.

    ```mlir
    // A token batch times an nn.Linear weight [out, in].
    %y = npu.matmul %x, %w transpose_rhs
        : tensor<4x128x7168xbf16>, tensor<1536x7168xbf16> -> tensor<4x128x1536xbf16>
    // Batched attention-style product with an explicit accumulator type.
    %s = npu.matmul %q, %k transpose_rhs acc(f32)
        : tensor<8x64x128xf16>, tensor<8x256x128xf16> -> tensor<8x64x256xf16>
    ```
  }];
  let arguments = (ins Npu_FloatOrF8Tensor:$lhs, Npu_FloatOrF8Tensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs,
                       OptionalAttr<TypeAttr>:$acc_type);
  let results = (outs Npu_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_lhs` $transpose_lhs^)? (`transpose_rhs` $transpose_rhs^)?
    (`acc` `(` $acc_type^ `)`)? attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Sizes of the problem: batch (product of batch dims), M, N, K.
    struct Dims { int64_t batch, m, n, k; };
    Dims getDims();
    /// The accumulator type: `acc_type` if given, else f32.
    ::mlir::Type getAccumulatorType();
  }];
}

#endif // NPU_DIALECT_NPU_IR_NPUMATMULOPS_TD
