// Class: unknown op. An op the npu dialect does not define is an error.
// RUN: rm -f %t.out
// RUN: %exit1 npu-opt %s -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: unknown-op.mlir:[[@LINE+2]]:8: error: {{.*}}npu.flash_attention
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "npu.flash_attention"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
