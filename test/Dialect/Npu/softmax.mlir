// RUN: npu-opt %s | npu-opt | FileCheck %s
// RUN: npu-opt %s --mlir-print-op-generic | npu-opt | FileCheck %s

// CHECK-LABEL: func.func @softmax_last
// CHECK: npu.softmax %{{.*}} : tensor<12x64x64xf32> -> tensor<12x64x64xf32>
func.func @softmax_last(%x: tensor<12x64x64xf32>) -> tensor<12x64x64xf32> {
  %0 = npu.softmax %x : tensor<12x64x64xf32> -> tensor<12x64x64xf32>
  return %0 : tensor<12x64x64xf32>
}

// The default dim (-1) is not printed.
// CHECK-LABEL: func.func @softmax_explicit_default
// CHECK: npu.softmax %{{.*}} : tensor<4x8xbf16> -> tensor<4x8xbf16>
func.func @softmax_explicit_default(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %0 = npu.softmax %x dim(-1) : tensor<4x8xbf16> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// CHECK-LABEL: func.func @softmax_middle
// CHECK: npu.softmax %{{.*}} dim(1) : tensor<2x5x3xf16> -> tensor<2x5x3xf16>
// CHECK: npu.softmax %{{.*}} dim(-3) : tensor<2x5x3xf16> -> tensor<2x5x3xf16>
func.func @softmax_middle(%x: tensor<2x5x3xf16>) -> tensor<2x5x3xf16> {
  %0 = npu.softmax %x dim(1) : tensor<2x5x3xf16> -> tensor<2x5x3xf16>
  %1 = npu.softmax %0 dim(-3) : tensor<2x5x3xf16> -> tensor<2x5x3xf16>
  return %1 : tensor<2x5x3xf16>
}

// CHECK-LABEL: func.func @softmax_rank1
// CHECK: npu.softmax %{{.*}} dim(0) : tensor<7xf32> -> tensor<7xf32>
func.func @softmax_rank1(%x: tensor<7xf32>) -> tensor<7xf32> {
  %0 = npu.softmax %x dim(0) : tensor<7xf32> -> tensor<7xf32>
  return %0 : tensor<7xf32>
}
