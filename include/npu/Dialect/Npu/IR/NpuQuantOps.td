//===- NpuQuantOps.td - scaled number formats --------------*- tablegen -*-===//
//
// Weights stored in a narrow format with shared scales (int8/int4 groups,
// fp8 per-tensor, per-row or block scales, MXFP4, NVFP4), as an operand form
// of the ops that consume them (docs/formats.md).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUQUANTOPS_TD
#define NPU_DIALECT_NPU_IR_NPUQUANTOPS_TD

include "npu/Dialect/Npu/IR/NpuBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// Element types of stored values: int8, int4 (two per byte in memory),
/// fp8 e4m3fn / e5m2, fp4 e2m1fn (two per byte).
def Npu_StoredValueTensor
    : StaticShapeTensorOf<[I8, I<4>, F8E4M3FN, F8E5M2, F4E2M1FN]>;
/// Element types of scales: f32, bf16, f16, e8m0 (MX: a power of two), or
/// e4m3fn (NVFP4's block scales).
def Npu_ScaleTensor
    : StaticShapeTensorOf<[F32, BF16, F16, F8E8M0FNU, F8E4M3FN]>;

def Npu_DequantizeOp : Npu_Op<"dequantize", [Pure]> {
  let summary = "values in a narrow format times block-shared scales";
  let description = [{
    `result[i] = value(values[i]) * value(scales[i floordiv block])
    [* value(global)]`, computed in f32 and rounded once to the result's
    element type, where `i floordiv block` divides each index by the block
    size of its dimension. It is how a model states that a weight is stored
    quantized:

    | format | values | scales | block (weight `[K, N]`) |
    |---|---|---|---|
    | int8 / int4 weight-only, group g | i8 / i4 | bf16 or f32 | `[g, 1]` |
    | fp8 per-tensor | f8E4M3FN / f8E5M2 | f32 | `[K, N]` |
    | fp8 per output channel | f8E4M3FN | f32 | `[K, 1]` |
    | fp8 block (DeepSeek-V3) | f8E4M3FN | f32 | `[128, 128]` |
    | MXFP4 (OCP MX) | f4E2M1FN | f8E8M0FNU | 32 along K |
    | NVFP4 | f4E2M1FN | f8E4M3FN, plus `global` f32 | 16 along K |

    `scales` has the rank of `values` and `ceil(dim / block)` entries per
    dimension (a partial last block shares its scale). `global` is a rank-0
    f32 tensor (NVFP4's per-tensor second-level scale). Integer values are
    signed; 4-bit values occupy half a byte in memory.

    The op is an operand form, not a computation: its result is never
    stored. Every use is the weight operand of a matrix op (the rhs of
    `npu.matmul`, a routed or shared expert weight of `npu.moe_experts`);
    the consumer's kernel converts each
    weight tile as it loads, in the matrix unit where the target takes the
    format, else on the vector unit (docs/formats.md). Hence its own work is
    nothing; its consumers read the stored values and scales
    (`getNumBytes` of the result is their bytes), and a parameter's
    dequantized form is a parameter.

    ```mlir
    %w = npu.dequantize %wq, %s block [128, 128]
        : tensor<7168x2048xf8E4M3FN>, tensor<56x16xf32> -> tensor<7168x2048xbf16>
    %e = npu.dequantize %bq, %bs block [1, 1, 32]
        : tensor<32x2880x2880xf4E2M1FN>, tensor<32x2880x90xf8E8M0FNU>
        -> tensor<32x2880x2880xbf16>
    ```
  }];
  let arguments = (ins Npu_StoredValueTensor:$values,
                       Npu_ScaleTensor:$scales,
                       Optional<0DTensorOf<[F32]>>:$global,
                       DenseI64ArrayAttr:$block);
  let results = (outs Npu_FloatTensor:$result);
  let assemblyFormat = [{
    $values `,` $scales (`global` `(` $global^ `)`)? `block` $block attr-dict
    `:` type($values) `,` type($scales) (`,` type($global)^)? `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Bytes the stored values and scales (and global scale) occupy.
    Count getStoredBytes();
  }];
}

#endif // NPU_DIALECT_NPU_IR_NPUQUANTOPS_TD
