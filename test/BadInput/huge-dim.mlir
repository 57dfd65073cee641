// Class: huge dimension (2^40 and beyond).
// RUN: rm -f %t.out
// RUN: %exit1 npu-opt %s -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: huge-dim.mlir:[[@LINE+2]]:8: error: 'npu.silu' op
func.func @f(%x: tensor<1099511627776xf32>) -> tensor<1099511627776xf32> {
  %0 = npu.silu %x : tensor<1099511627776xf32>
  return %0 : tensor<1099511627776xf32>
}
