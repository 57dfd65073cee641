// Class: unknown attributes. A misspelled option is not silently kept; an
// unknown or mistyped npu.* decision is rejected.
// RUN: rm -f %t.out
// RUN: %exit1 npu-opt %s --split-input-file -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: unknown-attr.mlir:[[@LINE+2]]:8: error: 'npu.attention' op has unknown attribute 'causl'
func.func @typo(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %0 = npu.attention %q, %q, %q {causl} : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

// CHECK: unknown-attr.mlir:[[@LINE+2]]:8: error: unknown npu attribute 'npu.tile'
func.func @unknown_npu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = npu.silu %x {npu.tile = 3} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK: unknown-attr.mlir:[[@LINE+2]]:8: error: 'npu.cost' must be a #npu.cost, got 1 : i64
func.func @mistyped(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = npu.silu %x {npu.cost = 1} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK: unknown-attr.mlir:[[@LINE+5]]:3: error: 'npu.buffers' must be an integer >= 1 on a loop, got 0 : i64
func.func @no_buffers(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
  } {npu.buffers = 0 : i64}
  return
}
