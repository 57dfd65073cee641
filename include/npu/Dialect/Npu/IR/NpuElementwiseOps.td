//===- NpuElementwiseOps.td - elementwise ops of the npu dialect ----------===//
//
// Binary arithmetic with trailing-suffix broadcast (add, mul) and the
// activation functions of transformer FFNs (silu, gelu, swiglu). All compute
// in f32 and round once to the result element type. Work formulas: see each
// op's description and docs/work/elementwise.md.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUELEMENTWISEOPS_TD
#define NPU_DIALECT_NPU_IR_NPUELEMENTWISEOPS_TD

include "npu/Dialect/Npu/IR/NpuBase.td"
include "npu/Dialect/Npu/IR/NpuAttrs.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Shared classes
//===----------------------------------------------------------------------===//

/// `result = lhs <op> rhs`, where `rhs` has the shape of `lhs` or of a
/// trailing suffix of it (bias / per-channel broadcast).
class Npu_BinaryOp<string mnemonic, list<Trait> traits = []>
    : Npu_Op<mnemonic, !listconcat(traits,
          [Pure, AllTypesMatch<["lhs", "result"]>])> {
  let arguments = (ins Npu_FloatTensor:$lhs, Npu_FloatTensor:$rhs);
  let results = (outs Npu_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of leading dimensions of `lhs` along which `rhs` is
    /// broadcast (0 when both have the same shape).
    int64_t getNumBroadcastDims() {
      return getLhs().getType().getRank() - getRhs().getType().getRank();
    }
  }];
}

/// `result = f(input)` element by element; the result has the input's type.
class Npu_UnaryOp<string mnemonic, list<Trait> traits = []>
    : Npu_Op<mnemonic, !listconcat(traits,
          [Pure, AllTypesMatch<["input", "result"]>])> {
  let arguments = (ins Npu_FloatTensor:$input);
  let results = (outs Npu_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

//===----------------------------------------------------------------------===//
// convert
//===----------------------------------------------------------------------===//

def Npu_ConvertOp : Npu_Op<"convert", [Pure]> {
  let summary = "element-wise conversion to another float type";
  let description = [{
    `result[i] = round(input[i])` to the result's element type (round to
    nearest even; fp8 e4m3fn saturates to +-448 in practice, the reference
    lowering uses `arith.truncf`). Same shape. Used, e.g., to store bf16 keys
    and values into an fp8 KV cache.

    Work: `numel` vector FLOPs (one conversion per element); reads the
    input, writes the result.

    ```mlir
    %k8 = npu.convert %k : tensor<1x8x1x128xbf16> -> tensor<1x8x1x128xf8E4M3FN>
    ```
  }];
  let arguments = (ins Npu_FloatOrF8Tensor:$input);
  let results = (outs Npu_FloatOrF8Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// add, mul
//===----------------------------------------------------------------------===//

def Npu_AddOp : Npu_BinaryOp<"add"> {
  let summary = "element-wise addition with broadcast";
  let description = [{
    `result[i..., j...] = lhs[i..., j...] + rhs[j'...]`, computed in f32 and
    rounded once to the element type. `rhs` broadcasts to `lhs`: its
    dimensions, aligned with lhs's last ones, each equal lhs's or are 1
    (`j'` is 0 there). E.g. a bias `[N]` added to every row of `[M, N]`, a
    rank-0 `rhs` as a scalar, a per-row `[M, 1]`. `rhs` has lhs's element
    type (f32, f16 or bf16) or f32; the result has the type of `lhs`.

    Work: `numel(result)` vector FLOPs; reads `lhs` and `rhs` once each
    (a broadcast `rhs` is read once, not once per row), writes the result.

    ```mlir
    %h = npu.add %x, %attn : tensor<4x4096xbf16>, tensor<4x4096xbf16>
    %y = npu.add %xw, %bias : tensor<1024x3072xf32>, tensor<3072xf32>
    ```
  }];
}

def Npu_MulOp : Npu_BinaryOp<"mul"> {
  let summary = "element-wise multiplication with broadcast";
  let description = [{
    `result[i..., j...] = lhs[i..., j...] * rhs[j'...]`, computed in f32 and
    rounded once to the element type. `rhs` broadcasts to `lhs` as in
    `npu.add`: a per-channel scale `[N]` on `[M, N]`, a per-row scale
    `[M, 1]` kept in f32 (Llama-4 weighting each routed row by its f32
    router score; its query temperature per position, `[S, 1]` on
    `[B, H, S, D]`). The result has the type of `lhs`.

    Work: `numel(result)` vector FLOPs; reads `lhs` and `rhs` once each,
    writes the result.

    ```mlir
    %y = npu.mul %gate, %up : tensor<8x14336xbf16>, tensor<8x14336xbf16>
    %s = npu.mul %x, %scale : tensor<4x7168xf32>, tensor<7168xf32>
    %r = npu.mul %rows, %score : tensor<16x5120xbf16>, tensor<16x1xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

def Npu_SiluOp : Npu_UnaryOp<"silu"> {
  let summary = "SiLU (swish) activation: x * sigmoid(x)";
  let description = [{
    `result = x * s` with `s = 1 / (1 + exp(-x))`, computed in f32 and
    rounded once to the element type.

    Work per element (n = numel): 1 transcendental (`exp`) and 3 vector
    FLOPs (`+ 1`, the divide, `* x`); the negation is a sign flip and is not
    counted. Reads the input once, writes the result.

    ```mlir
    %y = npu.silu %x : tensor<8x14336xbf16>
    ```
  }];
}

def Npu_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how npu.gelu evaluates the Gaussian CDF", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Tanh", 1, "tanh">]> {
  let cppNamespace = "::mlir::npu";
}

def Npu_GeluOp : Npu_UnaryOp<"gelu"> {
  let summary = "GELU activation, exact (erf) or tanh-approximated";
  let description = [{
    Computed in f32, rounded once to the element type. With
    `approximate = none` (the default, PyTorch's `approximate='none'`):

    `result = (0.5 * x) * (1 + erf(x * (1/sqrt(2))))`

    Work per element: 1 transcendental (`erf`) and 4 vector FLOPs
    (`x * 1/sqrt(2)`, `0.5 * x`, `1 + erf`, the final multiply).

    With `approximate = tanh` (GPT-2's `gelu_new`, PyTorch's
    `approximate='tanh'`), `0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)))`,
    evaluated with the constants folded as

    `u = (x*x) * (sqrt(2/pi)*0.044715) + sqrt(2/pi)`,
    `result = (0.5 * x) * (1 + tanh(u * x))`

    Work per element: 1 transcendental (`tanh`) and 7 vector FLOPs (`x*x`,
    `* c1`, `+ c0`, `* x`, `0.5 * x`, `1 + tanh`, the final multiply).

    Both forms read the input once and write the result.

    ```mlir
    %y = npu.gelu %x : tensor<4x3072xf32>
    %z = npu.gelu %x approximate = tanh : tensor<1024x3072xf16>
    ```
  }];
  let arguments = (ins Npu_FloatTensor:$input,
                       DefaultValuedAttr<Npu_GeluApproximation,
                           "::mlir::npu::GeluApproximation::None">:$approximate);
  let assemblyFormat = [{
    $input (`approximate` `=` $approximate^)? attr-dict `:` type($input)
  }];
}

def Npu_GatedActivation : I32EnumAttr<"GatedActivation",
    "the activation of a gated FFN (npu.swiglu)", [
      I32EnumAttrCase<"Silu", 0, "silu">,
      I32EnumAttrCase<"Gelu", 1, "gelu">,
      I32EnumAttrCase<"GeluTanh", 2, "gelu_tanh">]> {
  let cppNamespace = "::mlir::npu";
}

def Npu_SwigluOp : Npu_Op<"swiglu",
    [Pure, AllTypesMatch<["gate", "up", "result"]>]> {
  let summary = "gated FFN activation: act(gate) * up (SwiGLU, GeGLU)";
  let description = [{
    `result = act(gate) * up`, computed in f32 and rounded once to the
    element type. `gate`, `up` and the result have the same type (the two
    halves of a gated FFN's up-projection). `activation`:

    * `silu` (the default; SwiGLU: Llama, DeepSeek, Qwen, Mistral): npu.silu,
      `gate * (1 / (1 + exp(-gate)))`;
    * `gelu` (GeGLU, exact): npu.gelu;
    * `gelu_tanh` (GeGLU with the tanh approximation: Gemma's
      `gelu_pytorch_tanh`): npu.gelu `approximate = tanh`.

    Work per element: the activation's (silu: 1 transcendental + 3 vector;
    gelu: 1 + 4; gelu_tanh: 1 + 7) plus 1 vector FLOP (`* up`). Reads
    `gate` and `up` once, writes the result.

    ```mlir
    %h = npu.swiglu %gate, %up : tensor<8x14336xbf16>
    %g = npu.swiglu %gate, %up activation = gelu_tanh : tensor<8x14336xbf16>
    ```
  }];
  let arguments = (ins Npu_FloatTensor:$gate, Npu_FloatTensor:$up,
                       DefaultValuedAttr<Npu_GatedActivation,
                           "::mlir::npu::GatedActivation::Silu">:$activation);
  let results = (outs Npu_FloatTensor:$result);
  let assemblyFormat = [{
    $gate `,` $up (`activation` `=` $activation^)? attr-dict `:` type($gate)
  }];
}

def Npu_SoftcapOp : Npu_UnaryOp<"softcap"> {
  let summary = "soft-capping: c * tanh(x / c)";
  let description = [{
    `result = cap * tanh(x / cap)`, computed in f32 and rounded once to the
    element type: squashes values into (-cap, cap). Gemma-2's final logits
    (`final_logit_softcapping`); attention's own cap is npu.attention's
    `softcap`. `cap` must be finite and > 0.

    Work per element: 1 transcendental (`tanh`) and 2 vector FLOPs (the
    divide and the multiply). Reads the input once, writes the result.

    ```mlir
    %y = npu.softcap %logits cap(30.0) : tensor<1x1x256000xbf16>
    ```
  }];
  let arguments = (ins Npu_FloatTensor:$input, F64Attr:$cap);
  let assemblyFormat = "$input `cap` `(` $cap `)` attr-dict `:` type($input)";
  let hasVerifier = 1;
}

#endif // NPU_DIALECT_NPU_IR_NPUELEMENTWISEOPS_TD
