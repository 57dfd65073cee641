// Class: shape mismatch. The error names both sizes.
// RUN: rm -f %t.out
// RUN: %exit1 npu-opt %s -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: shape-mismatch.mlir:[[@LINE+2]]:8: error: 'npu.matmul' op
func.func @f(%a: tensor<4x8xbf16>, %b: tensor<16x4xbf16>) -> tensor<4x4xbf16> {
  %0 = npu.matmul %a, %b : tensor<4x8xbf16>, tensor<16x4xbf16> -> tensor<4x4xbf16>
  return %0 : tensor<4x4xbf16>
}
