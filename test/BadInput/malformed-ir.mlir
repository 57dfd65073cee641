// Class: malformed IR. A syntax error is reported at its line and column.
// RUN: rm -f %t.out
// RUN: %exit1 npu-opt %s -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: malformed-ir.mlir:[[@LINE+2]]:{{[0-9]+}}: error:
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = npu.silu %x : tensor<4xf32
  return %0 : tensor<4xf32>
}
