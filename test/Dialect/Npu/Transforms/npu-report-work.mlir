// RUN: npu-opt %s --npu-report-work -o /dev/null | FileCheck %s
// RUN: npu-opt %s --npu-report-work=format=json -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: not npu-opt %s --npu-report-work=format=xml -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADFMT

// A bf16 linear layer [16 x 64] * [64 x 32]^T: 2*16*32*64 = 65536 FLOPs,
// reads 16*64*2 + 32*64*2 = 6144 bytes, writes 16*32*2 = 1024 bytes, and
// its weight is 4096 parameter bytes.

// CHECK-LABEL: func @linear
// CHECK: npu.weight 0 0 0 0 0 0
// CHECK: npu.matmul 65536 0 0 6144 1024 4096 {{.*}}npu-report-work.mlir:[[@LINE+5]]:8
// CHECK: total 65536 0 0 6144 1024 4096
// CHECK-NOT: printMemref
func.func @linear(%x: tensor<16x64xbf16>) -> tensor<16x32xbf16> {
  %w = npu.weight "w" : tensor<32x64xbf16>
  %y = npu.matmul %x, %w transpose_rhs : tensor<16x64xbf16>, tensor<32x64xbf16> -> tensor<16x32xbf16>
  return %y : tensor<16x32xbf16>
}
// External declarations have no work and are not reported.
func.func private @printMemrefF32(tensor<*xf32>)

// JSON: "functions": [
// JSON: "name": "linear"
// JSON: "op": "npu.matmul"
// JSON: "total": {
// JSON: "bytes_read": 6144
// JSON: "matrix_flops": 65536
// JSON: "param_bytes": 4096

// BADFMT: error: npu-report-work: unknown format 'xml' (expected 'text' or 'json')
