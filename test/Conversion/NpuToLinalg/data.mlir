// RUN: npu-opt %s --npu-lower-to-linalg | FileCheck %s

// CHECK-DAG: #[[IDMAP:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// Ids are clamped to [0, V - 1] before the row is read.
// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[T:.*]]: tensor<10x4xf32>, %[[IDS:.*]]: tensor<2x3xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[IDMAP]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[IDS]] : tensor<2x3xi32>)
// CHECK: ^bb0(%[[ID:.*]]: i32, %{{.*}}: f32):
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[MAX:.*]] = arith.constant 9 : i32
// CHECK: %[[LO:.*]] = arith.maxsi %[[ID]], %[[ZERO]] : i32
// CHECK: %[[HI:.*]] = arith.minsi %[[LO]], %[[MAX]] : i32
// CHECK: %[[ROW:.*]] = arith.index_cast %[[HI]] : i32 to index
// CHECK: %[[COL:.*]] = linalg.index 2 : index
// CHECK: tensor.extract %[[T]][%[[ROW]], %[[COL]]] : tensor<10x4xf32>
func.func @embedding(%t: tensor<10x4xf32>, %ids: tensor<2x3xi32>) -> tensor<2x3x4xf32> {
  %0 = npu.embedding %t, %ids : tensor<10x4xf32>, tensor<2x3xi32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @reshape
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<4x6xbf16> into tensor<24xbf16>
// CHECK: tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2]] output_shape [2, 3, 4] : tensor<24xbf16> into tensor<2x3x4xbf16>
func.func @reshape(%x: tensor<4x6xbf16>) -> tensor<2x3x4xbf16> {
  %0 = npu.reshape %x : tensor<4x6xbf16> -> tensor<2x3x4xbf16>
  return %0 : tensor<2x3x4xbf16>
}

// CHECK-LABEL: func.func @reshape_scalar
// CHECK: tensor.collapse_shape %{{.*}} [] : tensor<1x1xi64> into tensor<i64>
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1, 1, 1] : tensor<f32> into tensor<1x1x1xf32>
func.func @reshape_scalar(%x: tensor<1x1xi64>, %y: tensor<f32>) -> (tensor<i64>, tensor<1x1x1xf32>) {
  %0 = npu.reshape %x : tensor<1x1xi64> -> tensor<i64>
  %1 = npu.reshape %y : tensor<f32> -> tensor<1x1x1xf32>
  return %0, %1 : tensor<i64>, tensor<1x1x1xf32>
}

// CHECK-LABEL: func.func @reshape_identity
// CHECK-NEXT: return %arg0
func.func @reshape_identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = npu.reshape %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @transpose
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = npu.transpose %x perm [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @transpose_identity
// CHECK-NOT: linalg.transpose
// CHECK: return %arg0
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = npu.transpose %x perm [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @concat
// CHECK: tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<2x3xf16>, tensor<2x5xf16>) -> tensor<2x8xf16>
func.func @concat(%a: tensor<2x3xf16>, %b: tensor<2x5xf16>) -> tensor<2x8xf16> {
  %0 = npu.concat %a, %b dim(1) : tensor<2x3xf16>, tensor<2x5xf16> -> tensor<2x8xf16>
  return %0 : tensor<2x8xf16>
}

// CHECK-LABEL: func.func @slice
// CHECK: tensor.extract_slice %{{.*}}[1, 0] [2, 3] [1, 2] : tensor<4x8xf32> to tensor<2x3xf32>
func.func @slice(%x: tensor<4x8xf32>) -> tensor<2x3xf32> {
  %0 = npu.slice %x offsets [1, 0] sizes [2, 3] strides [1, 2] : tensor<4x8xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
