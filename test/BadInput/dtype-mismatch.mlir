// Class: dtype mismatch. An integer tensor where a float one is required.
// RUN: rm -f %t.out
// RUN: %exit1 npu-opt %s -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: dtype-mismatch.mlir:[[@LINE+2]]:8: error: 'npu.silu' op
func.func @f(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = npu.silu %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}
