// Class: zero dimension. Every dimension of an npu tensor is in [1, 2^40).
// RUN: rm -f %t.out
// RUN: %exit1 npu-opt %s -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: zero-dim.mlir:[[@LINE+2]]:8: error: 'npu.silu' op
func.func @f(%x: tensor<0x4xf32>) -> tensor<0x4xf32> {
  %0 = npu.silu %x : tensor<0x4xf32>
  return %0 : tensor<0x4xf32>
}
