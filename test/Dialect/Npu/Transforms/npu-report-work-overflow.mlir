// RUN: not npu-opt %s --npu-report-work -o %t.out 2>&1 | FileCheck %s
// RUN: not test -s %t.out

// 2 * 2^30 * 2^14 * 2^20 = 2^65 FLOPs: every tensor fits in 64 bits, the
// count does not. The report fails at the op instead of wrapping around, and
// prints nothing.
func.func @too_much_work(%a: tensor<1073741824x1048576xf8E4M3FN>, %b: tensor<1048576x16384xf8E4M3FN>) -> tensor<1073741824x16384xbf16> {
  // CHECK: npu-report-work-overflow.mlir:[[@LINE+1]]:8: error: work of this op (FLOPs or bytes) does not fit in 64 bits
  %y = npu.matmul %a, %b : tensor<1073741824x1048576xf8E4M3FN>, tensor<1048576x16384xf8E4M3FN> -> tensor<1073741824x16384xbf16>
  return %y : tensor<1073741824x16384xbf16>
}
// CHECK-NOT: total
