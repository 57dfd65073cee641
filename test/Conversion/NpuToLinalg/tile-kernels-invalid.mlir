// RUN: npu-opt %s --split-input-file --verify-diagnostics --npu-tile-kernels

// The K/V held on chip (tile #5) must be the K/V tile, the KV length or a multiple of the K/V tile.
func.func @held_kv(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @below {{attention tile #5 (the K/V held on chip) is 3: expected the K/V tile (2), the KV length (8) or a multiple of the K/V tile between them}}
  %0 = npu.kernel attention (%q, %k, %v) {npu.tiling = #npu.tiling<loops = [2, 8, 8, 4, 8, 8], tile = [1, 4, 2, 4, 4, 3], buffers = 2, sram_bytes = 0>} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  ^bb0(%a: tensor<1x2x8x4xf32>, %b: tensor<1x2x8x4xf32>, %c: tensor<1x2x8x4xf32>):
    %o = npu.attention %a, %b, %c causal : tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32> -> tensor<1x2x8x4xf32>
    npu.yield %o : tensor<1x2x8x4xf32>
  }
  return %0 : tensor<1x2x8x4xf32>
}

// -----

// A tiling written for the old five loops is rejected, not misread.
func.func @five(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @below {{attention tiling needs 6 loops and tile sizes [heads, q, kv, head dim, q sub-tile, held kv], got 5}}
  %0 = npu.kernel attention (%q, %k, %v) {npu.tiling = #npu.tiling<loops = [2, 8, 8, 4, 8], tile = [1, 4, 2, 4, 4], buffers = 2, sram_bytes = 0>} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  ^bb0(%a: tensor<1x2x8x4xf32>, %b: tensor<1x2x8x4xf32>, %c: tensor<1x2x8x4xf32>):
    %o = npu.attention %a, %b, %c causal : tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32> -> tensor<1x2x8x4xf32>
    npu.yield %o : tensor<1x2x8x4xf32>
  }
  return %0 : tensor<1x2x8x4xf32>
}
