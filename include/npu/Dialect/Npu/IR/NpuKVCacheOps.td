//===- NpuKVCacheOps.td - KV cache ops of the npu dialect -----------------===//
//
// Appending to and reading from a key or value cache of layout
// [B, Hkv, Smax, D] (the layout of npu attention's k and v). Work formulas:
// docs/work/moe.md.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUKVCACHEOPS_TD
#define NPU_DIALECT_NPU_IR_NPUKVCACHEOPS_TD

include "npu/Dialect/Npu/IR/NpuBase.td"
include "npu/Dialect/Npu/IR/NpuAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Npu_KVCacheAppendOp : Npu_Op<"kv_cache_append", [Pure]> {
  let summary = "writes new tokens into a KV cache at a run-time position";
  let description = [{
    Returns `cache` with tokens `[pos, pos + Snew)` replaced by `update`:
    `result[b, h, pos + s, d] = update[b, h, s, d]`, every other element
    unchanged. `cache` is `[B, H, Smax, D]`, `update` `[B, H, Snew, D]` with
    the same B, H, D and element type (f32, f16, bf16 or fp8) and
    `Snew <= Smax`; the result has the cache's type. `pos` is a run-time
    `index`. Value semantics; after bufferization the update happens in place.
    The reference lowering (`tensor.insert_slice` at a dynamic offset) clamps
    `pos` to `[0, Smax - Snew]` so that it never writes out of bounds; a
    `pos` that is a constant must already be in that range (the verifier
    rejects one that is not, which the clamp would silently move).

    Work: 0 FLOPs; reads `update` and writes it into the cache:
    bytesRead = bytesWritten = `B*H*Snew*D*elem` (only the appended rows
    move; the rest of the cache stays where it is).

    ```mlir
    %k2 = npu.kv_cache_append %kcache, %knew at %pos
        : tensor<1x8x4096x128xbf16>, tensor<1x8x1x128xbf16> -> tensor<1x8x4096x128xbf16>
    ```
  }];
  let arguments = (ins Npu_FloatOrF8Tensor:$cache, Npu_FloatOrF8Tensor:$update,
                       Index:$pos);
  let results = (outs Npu_FloatOrF8Tensor:$result);
  let assemblyFormat = [{
    $cache `,` $update `at` $pos attr-dict `:` type($cache) `,` type($update)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Npu_KVCacheReadOp : Npu_Op<"kv_cache_read", [Pure]> {
  let summary = "the first tokens of a KV cache, as a view";
  let description = [{
    `result[b, h, s, d] = cache[b, h, s, d]` for `s < length`: the tokens
    `[0, length)` of a cache `[B, H, Smax, D]`, with `1 <= length <= Smax`.
    The result is `[B, H, length, D]` of the cache's element type.

    Work: nothing. It is a view; its consumer (attention) reads the bytes
    and counts them.

    ```mlir
    %k = npu.kv_cache_read %kcache length(1025)
        : tensor<1x8x4096x128xbf16> -> tensor<1x8x1025x128xbf16>
    ```
  }];
  let arguments = (ins Npu_FloatOrF8Tensor:$cache, I64Attr:$length);
  let results = (outs Npu_FloatOrF8Tensor:$result);
  let assemblyFormat = [{
    $cache `length` `(` $length `)` attr-dict `:` type($cache) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

#endif // NPU_DIALECT_NPU_IR_NPUKVCACHEOPS_TD
