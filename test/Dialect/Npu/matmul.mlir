// RUN: npu-opt %s | npu-opt | FileCheck %s
// RUN: npu-opt %s --mlir-print-op-generic | npu-opt | FileCheck %s

// CHECK-LABEL: func.func @matmul_plain
// CHECK: npu.matmul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
func.func @matmul_plain(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = npu.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @matmul_linear_weight
// CHECK: npu.weight "w" : tensor<1536x7168xf8E4M3FN>
// CHECK: npu.matmul %{{.*}}, %{{.*}} transpose_rhs acc(f32) : tensor<2x3x7168xbf16>, tensor<1536x7168xf8E4M3FN> -> tensor<2x3x1536xbf16>
func.func @matmul_linear_weight(%x: tensor<2x3x7168xbf16>) -> tensor<2x3x1536xbf16> {
  %w = npu.weight "w" : tensor<1536x7168xf8E4M3FN>
  %0 = npu.matmul %x, %w transpose_rhs acc(f32) : tensor<2x3x7168xbf16>, tensor<1536x7168xf8E4M3FN> -> tensor<2x3x1536xbf16>
  return %0 : tensor<2x3x1536xbf16>
}

// CHECK-LABEL: func.func @matmul_batched_transposed
// CHECK: npu.matmul %{{.*}}, %{{.*}} transpose_lhs transpose_rhs : tensor<8x64x32xf16>, tensor<8x128x64xf16> -> tensor<8x32x128xf16>
func.func @matmul_batched_transposed(%a: tensor<8x64x32xf16>, %b: tensor<8x128x64xf16>) -> tensor<8x32x128xf16> {
  %0 = npu.matmul %a, %b transpose_lhs transpose_rhs : tensor<8x64x32xf16>, tensor<8x128x64xf16> -> tensor<8x32x128xf16>
  return %0 : tensor<8x32x128xf16>
}
