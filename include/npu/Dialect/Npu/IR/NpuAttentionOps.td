//===- NpuAttentionOps.td - Attention ops of the npu dialect -------------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUATTENTIONOPS_TD
#define NPU_DIALECT_NPU_IR_NPUATTENTIONOPS_TD

include "npu/Dialect/Npu/IR/NpuBase.td"
include "npu/Dialect/Npu/IR/NpuAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Npu_AttentionOp : Npu_Op<"attention", [Pure, AttrSizedOperandSegments]> {
  let summary = "scaled dot-product attention (MHA, GQA, MQA, MLA), causal, "
                "sliding-window and chunked";
  let description = [{
    Softmax attention of every query head over the keys of its key/value
    head, computed in f32 and rounded once to the result element type:

    ```
    s[b,h,i,j]   = scale * sum_d query[b,h,i,d] * key[b,h/G,j,d]
    s[b,h,i,j]   = c * tanh(s[b,h,i,j] / c)      (with softcap(c))
    s[b,h,i,j]   = -inf where (i, j) is masked
    p[b,h,i,j]   = exp(s - m) / (sum_j exp(s - m) [+ exp(sinks[h] - m)])
                   with m = max_j s
    out[b,h,i,e] = sum_j p[b,h,i,j] * V[b,h/G,j,e]
    ```

    Shapes: `query [B, Hq, Sq, Dqk]`, `key [B, Hkv, Skv, Dqk]`,
    `value [B, Hkv, Skv, Dv]`, result `[B, Hq, Sq, Dv]`.

    * Heads: `Hq` must be a multiple of `Hkv`; query head `h` uses key/value
      head `h floordiv G` with `G = Hq / Hkv`. `Hkv = Hq` is multi-head
      attention, `1 < Hkv < Hq` grouped-query (GQA), `Hkv = 1` multi-query
      (MQA). `Dv` may differ from `Dqk` (MLA: e.g. Dqk = 192, Dv = 128).
    * Latent form (`latent(Dv)`, no `value` operand): MLA decode with the
      up-projections absorbed (DeepSeek-V3, FlashMLA). `key` is the cached
      `[c_kv ; k_rope]` (e.g. 512 + 64 = 576 wide) and `V = key[..., 0:Dv]`,
      the compressed latent. Requires `Dv <= Dqk`.
    * `scale` (default `1/sqrt(Dqk)`) must be finite and > 0.
    * `sinks(%s)` (`[Hq]`, any float type, computed in f32): attention
      sinks (GPT-OSS, StreamingLLM): a learned logit per query head that
      joins every row's softmax denominator and takes no value, so a row's
      probabilities sum to less than 1. Kernels add `exp(sink - m)` to the
      row sum once, after the last key (the same result as putting the sink
      in the running max, without the overflow of `exp(sink - m)` mattering:
      a huge term only drives the output to 0).
    * `softcap(c)` (c finite and > 0): logit soft-capping (Gemma-2,
      Grok): the scaled scores are squashed into (-c, c) before the mask
      and the softmax, as FlashAttention's `softcap`.
    * `causal`: positions are bottom-right aligned, as in FlashAttention and
      decoding with a KV cache: query `i` is at position `p_i = Skv - Sq + i`
      and sees key `j` iff `j <= p_i`. Requires `Sq <= Skv`, so every query
      sees at least one key.
    * `window(W)` (W >= 1, requires `causal`): sliding window; query `i`
      also needs `j > p_i - W`, i.e. it sees at most the W keys ending at
      its own position.
    * `chunk(C)` (C >= 1, requires `causal`, not with `window`): chunked
      attention (Llama-4's local layers, `attention_chunk_size`): the
      positions are cut into chunks of C and query `i` also needs
      `j >= C * floor(p_i / C)`, i.e. it sees the keys of its own chunk up
      to its position.
    * the result is f32, f16 or bf16; query, key and value may also be fp8
      (a quantized KV cache; with an fp8 query too, FlashAttention-3's fp8
      forward, whose products run at the fp8 rate). Every operand is
      widened to f32 exactly: the scores and the softmax are f32 (the
      reference does not round P to fp8 as FA3 does before P V).

    Work. `P` = unmasked (query, key) pairs per (batch, query head), in
    closed form: `Sq*Skv` without mask, `sum_i min(p_i + 1, W)` when
    causal (W = infinity without window), `sum_i (p_i mod C) + 1` with
    chunk(C). Masked pairs are not counted (FlashAttention skips masked
    blocks).
    * matrix: `2*B*Hq*P*(Dqk + Dv)` (Q*K^T and P*V).
    * transcendental: `B*Hq*P` (one exp per score); with softcap another
      `B*Hq*P` (the tanh); with sinks `B*Hq*Sq` (one exp per row).
    * vector: `4*B*Hq*P` (scale, running max, subtract max, sum per score)
      `+ B*Hq*Sq*Dv` (final divide by the sum); with softcap `2*B*Hq*P`
      more (the divide and multiply by c); with sinks `2*B*Hq*Sq` more (the
      subtract and the add to each row's sum).
    * bytesRead: query + key + value (latent form: key once, as V is a
      slice of it); bytesWritten: the result; paramBytes: the operands that
      are parameters (normally none).

    ```mlir
    // Llama-3-8B GQA causal prefill (32 query heads, 8 KV heads).
    %o = npu.attention %q, %k, %v causal
        : tensor<1x32x8192x128xbf16>, tensor<1x8x8192x128xbf16>,
          tensor<1x8x8192x128xbf16> -> tensor<1x32x8192x128xbf16>
    // Sliding window with an explicit scale.
    %o = npu.attention %q, %k, %v scale(0.125) causal window(4096)
        : tensor<1x8x4096x64xf16>, tensor<1x8x4096x64xf16>,
          tensor<1x8x4096x64xf16> -> tensor<1x8x4096x64xf16>
    // Gemma-2: soft-capped logits (c = 50) in a 4096-key window.
    %o = npu.attention %q, %k, %v scale(0.0625) softcap(50.0) causal window(4096)
        : tensor<1x8x4096x256xbf16>, tensor<1x4x4096x256xbf16>,
          tensor<1x4x4096x256xbf16> -> tensor<1x8x4096x256xbf16>
    // Llama-4 local layers: chunks of 8192 positions.
    %o = npu.attention %q, %k, %v causal chunk(8192)
        : tensor<1x40x16384x128xbf16>, tensor<1x8x16384x128xbf16>,
          tensor<1x8x16384x128xbf16> -> tensor<1x40x16384x128xbf16>
    // GPT-OSS: one learned sink logit per query head, window 128.
    %o = npu.attention %q, %k, %v sinks(%s) causal window(128)
        : tensor<1x64x4096x64xbf16>, tensor<1x8x4096x64xbf16>,
          tensor<1x8x4096x64xbf16>, sinks tensor<64xbf16>
          -> tensor<1x64x4096x64xbf16>
    // DeepSeek-V3 MLA decode on the latent KV cache (c_kv ; k_rope).
    %o = npu.attention %q, %kv latent(512) scale(0.0723) causal
        : tensor<1x128x1x576xbf16>, tensor<1x1x4096x576xbf16>
          -> tensor<1x128x1x512xbf16>
    ```
  }];
  let arguments = (ins Npu_FloatOrF8Tensor:$query, Npu_FloatOrF8Tensor:$key,
                       Optional<Npu_FloatOrF8Tensor>:$value,
                       Optional<Npu_FloatTensor>:$sinks,
                       OptionalAttr<I64Attr>:$latent,
                       OptionalAttr<F64Attr>:$scale,
                       OptionalAttr<F64Attr>:$softcap, UnitAttr:$causal,
                       OptionalAttr<I64Attr>:$window,
                       OptionalAttr<I64Attr>:$chunk);
  let results = (outs Npu_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key (`,` $value^)? (`sinks` `(` $sinks^ `)`)?
    (`latent` `(` $latent^ `)`)?
    (`scale` `(` $scale^ `)`)? (`softcap` `(` $softcap^ `)`)?
    (`causal` $causal^)? (`window` `(` $window^ `)`)?
    (`chunk` `(` $chunk^ `)`)? attr-dict `:` type($query) `,` type($key) (`,` type($value)^)?
    (`,` `sinks` type($sinks)^)? `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Sizes of the problem (valid once the op verifies).
    struct Dims {
      int64_t batch, qHeads, kvHeads, qLen, kvLen, qkDim, vDim;
    };
    Dims getDims();
    /// The softmax scale: `scale` if given, else 1/sqrt(Dqk).
    double getScaleValue();
    /// Whether this is the latent (absorbed MLA) form: V = key[..., 0:Dv].
    bool isLatent() { return !getValue() && getLatentAttr(); }
    /// The window and chunk sizes (0: none).
    int64_t getWindowSize() {
      return getWindowAttr() ? getWindowAttr().getInt() : 0;
    }
    int64_t getChunkSize() {
      return getChunkAttr() ? getChunkAttr().getInt() : 0;
    }
    /// Number of unmasked (query, key) pairs of one (batch, head), in closed
    /// form: qLen*kvLen when !causal, else sum over i < qLen of the keys
    /// position p_i = kvLen - qLen + i sees, [firstVisibleKey(p_i), p_i].
    /// Requires qLen <= kvLen when causal.
    static ::mlir::npu::Count countUnmaskedPairs(int64_t qLen, int64_t kvLen,
                                                 bool causal, int64_t window,
                                                 int64_t chunk);
    /// The first key a causal query at position p >= 0 sees: p - window + 1
    /// (at least 0) with a window, C * floor(p / C) with chunk(C), else 0
    /// (window and chunk 0 = none). Non-decreasing in p.
    static int64_t firstVisibleKey(int64_t p, int64_t window, int64_t chunk);
  }];
}

#endif // NPU_DIALECT_NPU_IR_NPUATTENTIONOPS_TD
