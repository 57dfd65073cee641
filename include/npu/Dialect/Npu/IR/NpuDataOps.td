//===- NpuDataOps.td - parameters, gathers and shape ops ------------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUDATAOPS_TD
#define NPU_DIALECT_NPU_IR_NPUDATAOPS_TD

include "npu/Dialect/Npu/IR/NpuBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Npu_WeightOp : Npu_Op<"weight", [Pure]> {
  let summary = "a named model parameter";
  let description = [{
    Produces the model parameter named `name` (e.g. the Hugging Face
    checkpoint key). It does no work itself; ops that consume it count its
    bytes as `paramBytes`. Its value is not part of the IR: the reference
    lowering materializes it as a deterministic tensor whose element `i` (in
    row-major order) is `((i * 7 + 3) mod 17 - 8) / 16`, so that lowered
    models can run; a stored format's element (npu.dequantize) is, with
    `t = 7 i + 3`, `(t mod 15) - 7` for int8 and int4, and the bit pattern
    `t mod 16` for fp4, `t mod 120` for fp8 and `120 + (t mod 8)` for e8m0.

    ```mlir
    %wq = npu.weight "model.layers.0.self_attn.q_a_proj.weight" : tensor<1536x7168xbf16>
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs Npu_WeightTensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Gather
//===----------------------------------------------------------------------===//

def Npu_EmbeddingOp : Npu_Op<"embedding", [Pure]> {
  let summary = "token embedding: gathers rows of a table";
  let description = [{
    `result[i..., d] = table[clamp(ids[i...], 0, V - 1), d]` for a table of
    shape `[V, D]` and integer (i32 or i64) `ids` of any shape; the result
    has shape `ids.shape + [D]` and the table's element type (f32, f16, bf16
    or fp8). Out-of-range ids are clamped to `[0, V - 1]` (a model never
    produces them; the reference lowering must not read out of bounds).

    Work: 0 FLOPs. `bytesRead = bytes(ids) + numel(ids) * D * elemBytes`:
    only the gathered rows move, not the whole table. `bytesWritten =
    bytes(result)` (the same rows). `paramBytes = bytes(table)` when the
    table is a parameter: the whole table must be held in memory, even though
    a call moves only the rows it gathers.

    ```mlir
    %t = npu.weight "model.embed_tokens.weight" : tensor<128256x4096xbf16>
    %e = npu.embedding %t, %ids : tensor<128256x4096xbf16>, tensor<1x8xi32> -> tensor<1x8x4096xbf16>
    ```
  }];
  let arguments = (ins Npu_FloatOrF8Tensor:$table, Npu_IndexTensor:$ids);
  let results = (outs Npu_FloatOrF8Tensor:$result);
  let assemblyFormat = [{
    $table `,` $ids attr-dict `:` type($table) `,` type($ids) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

def Npu_ReshapeOp : Npu_Op<"reshape", [Pure]> {
  let summary = "reinterprets a tensor with another shape (row-major)";
  let description = [{
    The result holds the elements of `input` in the same row-major order
    with another shape: same element count, same element type (any npu
    element type, fp8 and integers included).

    Work: none (a view: 0 FLOPs, 0 bytes read or written; the consumers
    pay). A reshape of a parameter is a parameter, so its consumers count
    the parameter bytes they read.

    ```mlir
    %h = npu.reshape %q : tensor<4x4096xbf16> -> tensor<4x32x128xbf16>
    ```
  }];
  let arguments = (ins Npu_AnyTensor:$input);
  let results = (outs Npu_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Npu_BroadcastOp : Npu_Op<"broadcast", [Pure]> {
  let summary = "repeats a tensor along its size-1 dimensions";
  let description = [{
    `result[i...] = input[j...]` with `j_k = 0` where the input dimension
    `k` is 1 and `j_k = i_k` elsewhere. Same rank and element type; every
    input dimension is 1 or equal to the result's. Used, e.g., for
    DeepSeek-V3's RoPE key, computed once per token and shared by all heads
    (`[B, 1, S, 64] -> [B, 128, S, 64]`).

    Work: 0 FLOPs; a copy: reads the input once, writes the result once.
    (A fused kernel would read the shared row instead; that is the
    backends' decision.)

    ```mlir
    %k_pe = npu.broadcast %pe : tensor<1x1x4096x64xbf16> -> tensor<1x128x4096x64xbf16>
    ```
  }];
  let arguments = (ins Npu_AnyTensor:$input);
  let results = (outs Npu_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Npu_TransposeOp : Npu_Op<"transpose", [Pure]> {
  let summary = "permutes the dimensions of a tensor";
  let description = [{
    Result dimension `k` is input dimension `perm[k]` (as `torch.permute`):
    `result[i_0, ..., i_(r-1)] = input[j]` with `j[perm[k]] = i_k`. `perm` is a permutation of `[0, rank)`. Same element
    type (any npu element type).

    Work: 0 FLOPs; a copy: reads the input once and writes the result once
    (`bytes(input)` each); `paramBytes = bytes(input)` when the input is a
    parameter.

    ```mlir
    %t = npu.transpose %x perm [0, 2, 1, 3] : tensor<4x128x32x128xbf16> -> tensor<4x32x128x128xbf16>
    ```
  }];
  let arguments = (ins Npu_AnyTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Npu_AnyTensor:$result);
  let assemblyFormat = [{
    $input `perm` $perm attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Npu_ConcatOp : Npu_Op<"concat", [Pure]> {
  let summary = "concatenates tensors along one dimension";
  let description = [{
    Concatenates one or more tensors of the same rank and element type (any
    npu element type) along dimension `dim`; every other dimension is equal
    in all inputs and the result, and the result's dimension `dim` is the
    sum of the inputs'.

    Work: 0 FLOPs; a copy: reads every input once, writes the result once;
    `paramBytes` sums the inputs that are parameters.

    ```mlir
    %k = npu.concat %k_nope, %k_rope dim(2) : tensor<4x128x128xbf16>, tensor<4x128x64xbf16> -> tensor<4x128x192xbf16>
    ```
  }];
  let arguments = (ins Variadic<Npu_AnyTensor>:$inputs, I64Attr:$dim);
  let results = (outs Npu_AnyTensor:$result);
  let assemblyFormat = [{
    $inputs `dim` `(` $dim `)` attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Npu_SliceOp : Npu_Op<"slice", [Pure]> {
  let summary = "a static strided window of a tensor";
  let description = [{
    `result[i...] = input[offsets + i * strides]` (per dimension) for
    `i` in `[0, sizes)`. `offsets`, `sizes` and `strides` have one entry per
    dimension; offsets are >= 0, sizes and strides >= 1, and every accessed
    index `offset + (size - 1) * stride` is inside the input. The result's
    shape is `sizes` and its element type the input's (any npu element
    type).

    Work: none (a view: 0 FLOPs, 0 bytes; the consumers pay). A slice of a
    parameter is a parameter (as reshape).

    ```mlir
    %rope = npu.slice %q offsets [0, 0, 128] sizes [4, 128, 64] strides [1, 1, 1] : tensor<4x128x192xbf16> -> tensor<4x128x64xbf16>
    ```
  }];
  let arguments = (ins Npu_AnyTensor:$input, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes, DenseI64ArrayAttr:$strides);
  let results = (outs Npu_AnyTensor:$result);
  let assemblyFormat = [{
    $input `offsets` $offsets `sizes` $sizes `strides` $strides attr-dict
    `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // NPU_DIALECT_NPU_IR_NPUDATAOPS_TD
