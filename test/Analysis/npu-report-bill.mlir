// RUN: npu-opt %s --npu-report-bill="target=mock-gpu format=json" -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: npu-opt %s --npu-report-bill="target=mock-gpu" -o /dev/null | FileCheck %s --check-prefix=TEXT
// RUN: not npu-opt %s --npu-report-bill="target=no-such-chip" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTARGET
// RUN: not npu-opt %s --npu-report-bill="target=mock-gpu format=csv" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADFMT
// Without target=, the chip the module was compiled for (its npu.target);
// with neither, an error (there is no default chip).
// RUN: npu-opt %s --npu-set-target="target=mock-gpu" --npu-report-bill -o /dev/null | FileCheck %s --check-prefix=TEXT
// RUN: not npu-opt %s --npu-report-bill -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE

// A toy decode step, batch 2, with two layers of one kind: every number
// below is derived by hand in the comments.
//
// Parameters: emb 10x64 + l0 64x64 + l1 64x64 = 640 + 4096 + 4096 = 8832
// elements, bf16: 17664 B.
// KV cache: two caches [2, 4, 4, 16] bf16 = 1024 B each = 2048 B; per token
// (over both layers) 2 * 1024 / (2 sequences * 4 rows) = 256 B.
// One layer: matmul 2*2*64*64 = 16384 FLOP, reads x 256 B + w 8192 B, writes
// 256 B; transpose reads and writes 256 B; kv append reads and writes 256 B;
// add: 128 FLOP, reads 512 B, writes 256 B. Layer: 16384 matrix FLOP, 128
// vector FLOP, reads 9472 B, writes 1024 B.
// @model: embedding reads 2*4 B of ids + 2 rows of 128 B, writes 256 B.
// Total: 32768 matrix FLOP, 256 vector FLOP, reads 264 + 2*9472 = 19208 B,
// writes 256 + 2*1024 = 2304 B.
// Peak live activations: in a layer, y and the transposed key (512 B); in
// @model at a call, its input (256 B) plus the layer's 512 B (which include
// the value the layer returns): 768 B.
// HBM needed: 17664 + 2048 + 768 = 20480 B: fits in mock-gpu's 1 GiB.

module attributes {npu.model = {model_type = "toy", phase = "decode", batch = 2 : i64, context_len = 3 : i64, layers = 2 : i64}} {
  func.func private @layer(%x: tensor<2x1x64xbf16>, %pos: index, %cache: tensor<2x4x4x16xbf16>, %w: tensor<64x64xbf16> {npu.param}) -> (tensor<2x1x64xbf16>, tensor<2x4x4x16xbf16>) {
    %y = npu.matmul %x, %w transpose_rhs : tensor<2x1x64xbf16>, tensor<64x64xbf16> -> tensor<2x1x64xbf16>
    %k = npu.reshape %y : tensor<2x1x64xbf16> -> tensor<2x1x4x16xbf16>
    %kt = npu.transpose %k perm [0, 2, 1, 3] : tensor<2x1x4x16xbf16> -> tensor<2x4x1x16xbf16>
    %c = npu.kv_cache_append %cache, %kt at %pos : tensor<2x4x4x16xbf16>, tensor<2x4x1x16xbf16> -> tensor<2x4x4x16xbf16>
    %r = npu.add %x, %y : tensor<2x1x64xbf16>, tensor<2x1x64xbf16>
    return %r, %c : tensor<2x1x64xbf16>, tensor<2x4x4x16xbf16>
  }
  func.func @model(%tok: tensor<2x1xi32>, %pos: index, %c0: tensor<2x4x4x16xbf16>, %c1: tensor<2x4x4x16xbf16>) -> (tensor<2x1x64xbf16>, tensor<2x4x4x16xbf16>, tensor<2x4x4x16xbf16>) {
    %emb = npu.weight "emb" : tensor<10x64xbf16>
    %x = npu.embedding %emb, %tok : tensor<10x64xbf16>, tensor<2x1xi32> -> tensor<2x1x64xbf16>
    %w0 = npu.weight "l0" : tensor<64x64xbf16>
    %a:2 = func.call @layer(%x, %pos, %c0, %w0) : (tensor<2x1x64xbf16>, index, tensor<2x4x4x16xbf16>, tensor<64x64xbf16>) -> (tensor<2x1x64xbf16>, tensor<2x4x4x16xbf16>)
    %w1 = npu.weight "l1" : tensor<64x64xbf16>
    %b:2 = func.call @layer(%a#0, %pos, %c1, %w1) : (tensor<2x1x64xbf16>, index, tensor<2x4x4x16xbf16>, tensor<64x64xbf16>) -> (tensor<2x1x64xbf16>, tensor<2x4x4x16xbf16>)
    return %b#0, %a#1, %b#1 : tensor<2x1x64xbf16>, tensor<2x4x4x16xbf16>, tensor<2x4x4x16xbf16>
  }
}

// JSON-DAG: "schema": "npu-bill/1"
// JSON-DAG: "parameters": 8832
// JSON-DAG: "parameter_bytes": 17664
// JSON-DAG: "kv_cache_bytes": 2048
// JSON-DAG: "kv_cache_bytes_per_token": 256
// JSON-DAG: "peak_live_activation_bytes": 768
// JSON-DAG: "hbm_needed_bytes": 20480
// JSON-DAG: "min_chips": 1
// JSON-DAG: "fits_in_one_chip": true
// JSON-DAG: "tokens": 2
// JSON: "total": {
// JSON-DAG: "matrix_flops": 32768
// JSON-DAG: "vector_flops": 256
// JSON-DAG: "bytes_read": 19208
// JSON-DAG: "bytes_written": 2304
// JSON-DAG: "name": "total"

// TEXT: npu bill on mock-gpu: batch=2 context_len=3 layers=2 model_type=toy phase=decode
// TEXT: ridge 40.0 FLOP/B
// TEXT: npu.embedding
// TEXT: layer 0 (@layer)
// TEXT: layer 1 (@layer)
// The matmul alone: compute 16384 / 4.096e12 = 4 ns, memory
// (8448 + 256) / 1.024e11 = 85 ns: memory-bound, 85 ns.
// TEXT-LABEL: Per op of @layer (called 2 time(s); peak live activations 512.000 B)
// TEXT: npu.matmul {{.*}} 0.085 us memory
// TEXT-LABEL: Model
// TEXT: parameters: 8832
// TEXT: KV cache: 2048 B (256 B per token)
// TEXT: HBM needed: 20480 B {{.*}} fits in one chip

// NOTARGET: error: npu-report-bill: {{.*}}no-such-chip
// NONE: error: npu-report-bill: no target: give one (--npu-report-bill="target=<name>") or set the module's npu.target
// BADFMT: error: npu-report-bill: unknown format 'csv' (expected 'text' or 'json')
