// Class: a KV-cache append at a constant position past the cache. The
// reference lowering clamps a run-time position into the cache, so a
// constant one that does not fit would silently write the tokens elsewhere:
// the verifier rejects it at the op.
// RUN: rm -f %t.out
// RUN: %exit1 npu-opt %s -split-input-file -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out

func.func @past(%c: tensor<1x2x8x4xf32>, %u: tensor<1x2x2x4xf32>) -> tensor<1x2x8x4xf32> {
  %p = arith.constant 7 : index
  // CHECK: kv-append-position.mlir:[[@LINE+1]]:8: error: 'npu.kv_cache_append' op position 7 puts the 2 new tokens outside the cache (Smax = 8): a constant position must be in [0, 6]
  %0 = npu.kv_cache_append %c, %u at %p : tensor<1x2x8x4xf32>, tensor<1x2x2x4xf32> -> tensor<1x2x8x4xf32>
  return %0 : tensor<1x2x8x4xf32>
}

// -----

func.func @negative(%c: tensor<1x2x8x4xf32>, %u: tensor<1x2x2x4xf32>) -> tensor<1x2x8x4xf32> {
  %p = arith.constant -1 : index
  // CHECK: kv-append-position.mlir:[[@LINE+1]]:8: error: 'npu.kv_cache_append' op position -1 puts the 2 new tokens outside the cache (Smax = 8): a constant position must be in [0, 6]
  %0 = npu.kv_cache_append %c, %u at %p : tensor<1x2x8x4xf32>, tensor<1x2x2x4xf32> -> tensor<1x2x8x4xf32>
  return %0 : tensor<1x2x8x4xf32>
}
