//===- NpuNormOps.td - softmax, normalizations and rotary embedding -------===//
//
// softmax, rms_norm, layer_norm and rope. All four compute in f32 and round
// once to the result type, which is the input type. See docs/work/norm.md for
// the work formulas.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUNORMOPS_TD
#define NPU_DIALECT_NPU_IR_NPUNORMOPS_TD

include "npu/Dialect/Npu/IR/NpuBase.td"
include "npu/Dialect/Npu/IR/NpuAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

def Npu_SoftmaxOp : Npu_Op<"softmax", [Pure]> {
  let summary = "numerically stable softmax along one dimension";
  let description = [{
    `result = exp(x - max_k x) / sum_k exp(x - max_k x)`, where `k` runs over
    dimension `dim` (default `-1`, the last; negative values count from the
    end, `-rank <= dim < rank`). Computed in f32 and rounded once to the
    result type, which must equal the input type (f32, f16 or bf16).

    Work, with E = number of elements of `x`: `4·E` vector FLOPs (per
    element one max, one subtract, one add into the sum, one divide) and
    `E` transcendental FLOPs (one exp per element). Reads `x` once, writes
    the result once.

    ```mlir
    // Attention probabilities over the keys.
    %p = npu.softmax %s : tensor<12x1024x1024xf32> -> tensor<12x1024x1024xf32>
    // Along a middle dimension.
    %q = npu.softmax %x dim(1) : tensor<2x5x3xbf16> -> tensor<2x5x3xbf16>
    ```
  }];
  let arguments = (ins Npu_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$dim);
  let results = (outs Npu_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`dim` `(` $dim^ `)`)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// `dim` in [0, rank) (only meaningful on a verified op).
    int64_t getNormalizedDim();
  }];
}

//===----------------------------------------------------------------------===//
// RMSNormOp
//===----------------------------------------------------------------------===//

def Npu_RMSNormOp : Npu_Op<"rms_norm", [Pure]> {
  let summary = "root-mean-square normalization over the last dimension";
  let description = [{
    Over the last dimension, of size N:
    `result = x * rsqrt(sum(x^2) / N + eps) * gamma` (Llama, DeepSeek),
    with `gamma` of shape `[N]`; without `gamma`, `x * rsqrt(sum(x^2) / N +
    eps)` (Llama-4's weightless QK norm, `Llama4TextL2Norm`). Computed in
    f32 and rounded once to the result type. `x`, `gamma` and the result
    share one element type (f32, f16 or bf16); the result type equals the
    type of `x`. `eps` (default 1e-6) must be finite, > 0 and stay > 0 when
    rounded to f32.

    Work, with E = elements of `x` and R = E / N rows:
    * vector `4·E + 2·R` (`3·E + 2·R` without gamma): per element square,
      add into the sum, scale by rstd, multiply by gamma; per row divide by
      N and add eps;
    * transcendental `R`: one rsqrt per row;
    * reads `x` and `gamma`, writes the result; `gamma` is parameter bytes
      when it is a parameter.

    ```mlir
    %g = npu.weight "model.layers.0.input_layernorm.weight" : tensor<4096xbf16>
    %y = npu.rms_norm %x, %g eps(1.0e-5)
        : tensor<8192x4096xbf16>, tensor<4096xbf16> -> tensor<8192x4096xbf16>
    // Llama-4's QK norm: no gamma.
    %qn = npu.rms_norm %q eps(1.0e-5)
        : tensor<1x40x4096x128xbf16> -> tensor<1x40x4096x128xbf16>
    ```
  }];
  let arguments = (ins Npu_FloatTensor:$input,
                       Optional<Npu_FloatTensor>:$gamma,
                       DefaultValuedAttr<F64Attr, "1.0e-6">:$eps);
  let results = (outs Npu_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`,` $gamma^)? (`eps` `(` $eps^ `)`)? attr-dict
    `:` type($input) (`,` type($gamma)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// LayerNormOp
//===----------------------------------------------------------------------===//

def Npu_LayerNormOp : Npu_Op<"layer_norm", [Pure]> {
  let summary = "layer normalization over the last dimension";
  let description = [{
    Over the last dimension, of size N (GPT-2, `torch.nn.LayerNorm`):
    ```
    mean   = sum(x) / N
    d      = x - mean
    var    = sum(d^2) / N                 (biased, as PyTorch)
    result = d * rsqrt(var + eps) * gamma [+ beta]
    ```
    `gamma` and the optional `beta` have shape `[N]`. Computed in f32 and
    rounded once to the result type. `x`, `gamma`, `beta` and the result
    share one element type (f32, f16 or bf16); the result type equals the
    type of `x`. `eps` (default 1e-5) must be finite, > 0 and stay > 0 when
    rounded to f32.

    Work, with E = elements of `x` and R = E / N rows (b = 1 with `beta`,
    else 0):
    * vector `(6 + b)·E + 3·R`: per element add into the sum, subtract the
      mean, square, add into the sum of squares, scale by rstd, multiply by
      gamma (and add beta); per row two divides by N (mean, variance) and
      one add of eps;
    * transcendental `R`: one rsqrt per row;
    * reads `x`, `gamma` (and `beta`), writes the result; `gamma` and `beta`
      are parameter bytes when they are parameters.

    ```mlir
    %y = npu.layer_norm %x, %g, %b
        : tensor<1024x768xf32>, tensor<768xf32>, tensor<768xf32> -> tensor<1024x768xf32>
    %z = npu.layer_norm %x, %g eps(1.0e-6)
        : tensor<1024x768xf32>, tensor<768xf32> -> tensor<1024x768xf32>
    ```
  }];
  let arguments = (ins Npu_FloatTensor:$input, Npu_FloatTensor:$gamma,
                       Optional<Npu_FloatTensor>:$beta,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs Npu_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $gamma (`,` $beta^)? (`eps` `(` $eps^ `)`)? attr-dict
    `:` type($input) `,` type($gamma) (`,` type($beta)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// RopeOp
//===----------------------------------------------------------------------===//

def Npu_RopeOp : Npu_Op<"rope", [Pure]> {
  let summary = "rotary position embedding";
  let description = [{
    Rotates `x` of shape `[..., S, D]` (rank >= 2; the second-to-last
    dimension is the sequence, e.g. `[B, H, S, D]`). Row `s` is at position
    `p = offset + s` (`offset` >= 0, default 0; a decode step passes the
    context length). Only the first `R = rotary_dim` features (even,
    `2 <= R <= D`, default `D`) are rotated; the others pass through.

    With `inv_freq[i] = theta^(-2i/R)` for `i` in `[0, R/2)` and angle
    `a = p * inv_freq[i]`, each pair `(x1, x2)` becomes
    `(x1·cos a - x2·sin a, x2·cos a + x1·sin a)`. Pairs are
    `(x[i], x[i + R/2])` by default (Hugging Face `rotate_half`, Llama), or
    `(x[2i], x[2i+1])` with `interleaved` (GPT-J, the DeepSeek reference).
    `theta` (default 10000) must be finite and > 1. Computed in f32 and
    rounded once; the result type equals the input type.

    Work, with E = elements of `x` (rows = E / D):
    * vector `3·(E/D)·R + S·R/2`: per rotated element two multiplies and one
      add, plus one multiply `p * inv_freq[i]` per entry of the `[S, R/2]`
      angle table;
    * transcendental `S·R`: one sin and one cos per table entry; the table
      is shared by every batch and head. `inv_freq` depends only on the
      attributes (a compile-time constant) and is not counted;
    * reads `x`, writes the result.

    ```mlir
    // Llama-3 prefill: q [B, H, S, D].
    %q2 = npu.rope %q theta(5.0e+05) : tensor<1x32x128x128xbf16> -> tensor<1x32x128x128xbf16>
    // DeepSeek-V3 decode: q_pe at position 4096, interleaved pairs.
    %p2 = npu.rope %p offset(4096) interleaved : tensor<1x128x1x64xbf16> -> tensor<1x128x1x64xbf16>
    // GPT-NeoX style partial rotary embedding.
    %k2 = npu.rope %k rotary_dim(32) : tensor<1x8x16x128xf32> -> tensor<1x8x16x128xf32>
    ```
  }];
  let arguments = (ins Npu_FloatTensor:$input,
                       DefaultValuedAttr<F64Attr, "10000.0">:$theta,
                       DefaultValuedAttr<I64Attr, "0">:$offset,
                       UnitAttr:$interleaved,
                       OptionalAttr<I64Attr>:$rotary_dim);
  let results = (outs Npu_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`theta` `(` $theta^ `)`)? (`offset` `(` $offset^ `)`)?
    (`interleaved` $interleaved^)? (`rotary_dim` `(` $rotary_dim^ `)`)?
    attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of rotated features: `rotary_dim` if given, else the last
    /// dimension.
    int64_t getRotaryDimOrDefault();
  }];
}

#endif // NPU_DIALECT_NPU_IR_NPUNORMOPS_TD
