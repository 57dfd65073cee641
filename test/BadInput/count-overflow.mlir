// Class: counts that overflow 64 bits. 2 * 2^30 * 2^30 * 2^30 FLOPs do not
// fit: the error is at the op, in the report and in the backend pipeline.
// RUN: rm -f %t.out
// RUN: %exit1 npu-opt %s --npu-report-work -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// RUN: %exit1 npu-opt %s --npu-tpu-pipeline="target=tpu-v7" -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: count-overflow.mlir:[[@LINE+2]]:8: error: work of this op (FLOPs or bytes) does not fit in 64 bits
func.func @f(%a: tensor<1073741824x1073741824xbf16>, %b: tensor<1073741824x1073741824xbf16>) -> tensor<1073741824x1073741824xbf16> {
  %0 = npu.matmul %a, %b : tensor<1073741824x1073741824xbf16>, tensor<1073741824x1073741824xbf16> -> tensor<1073741824x1073741824xbf16>
  return %0 : tensor<1073741824x1073741824xbf16>
}
