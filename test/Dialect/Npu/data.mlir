// RUN: npu-opt %s | npu-opt | FileCheck %s
// RUN: npu-opt %s --mlir-print-op-generic | npu-opt | FileCheck %s

// CHECK-LABEL: func.func @embedding
// CHECK: %[[T:.*]] = npu.weight "model.embed_tokens.weight" : tensor<128256x4096xbf16>
// CHECK: npu.embedding %[[T]], %{{.*}} : tensor<128256x4096xbf16>, tensor<1x8xi32> -> tensor<1x8x4096xbf16>
func.func @embedding(%ids: tensor<1x8xi32>) -> tensor<1x8x4096xbf16> {
  %t = npu.weight "model.embed_tokens.weight" : tensor<128256x4096xbf16>
  %0 = npu.embedding %t, %ids : tensor<128256x4096xbf16>, tensor<1x8xi32> -> tensor<1x8x4096xbf16>
  return %0 : tensor<1x8x4096xbf16>
}

// CHECK-LABEL: func.func @embedding_i64_fp8
// CHECK: npu.embedding %{{.*}}, %{{.*}} : tensor<100x16xf8E4M3FN>, tensor<7xi64> -> tensor<7x16xf8E4M3FN>
func.func @embedding_i64_fp8(%t: tensor<100x16xf8E4M3FN>, %ids: tensor<7xi64>) -> tensor<7x16xf8E4M3FN> {
  %0 = npu.embedding %t, %ids : tensor<100x16xf8E4M3FN>, tensor<7xi64> -> tensor<7x16xf8E4M3FN>
  return %0 : tensor<7x16xf8E4M3FN>
}

// CHECK-LABEL: func.func @reshape
// CHECK: npu.reshape %{{.*}} : tensor<4x4096xbf16> -> tensor<4x32x128xbf16>
// CHECK: npu.reshape %{{.*}} : tensor<6xi32> -> tensor<2x3xi32>
// CHECK: npu.reshape %{{.*}} : tensor<1x1xf32> -> tensor<f32>
func.func @reshape(%x: tensor<4x4096xbf16>, %i: tensor<6xi32>, %s: tensor<1x1xf32>) -> (tensor<4x32x128xbf16>, tensor<2x3xi32>, tensor<f32>) {
  %0 = npu.reshape %x : tensor<4x4096xbf16> -> tensor<4x32x128xbf16>
  %1 = npu.reshape %i : tensor<6xi32> -> tensor<2x3xi32>
  %2 = npu.reshape %s : tensor<1x1xf32> -> tensor<f32>
  return %0, %1, %2 : tensor<4x32x128xbf16>, tensor<2x3xi32>, tensor<f32>
}

// CHECK-LABEL: func.func @transpose
// CHECK: npu.transpose %{{.*}} perm [0, 2, 1, 3] : tensor<4x128x32x128xbf16> -> tensor<4x32x128x128xbf16>
func.func @transpose(%x: tensor<4x128x32x128xbf16>) -> tensor<4x32x128x128xbf16> {
  %0 = npu.transpose %x perm [0, 2, 1, 3] : tensor<4x128x32x128xbf16> -> tensor<4x32x128x128xbf16>
  return %0 : tensor<4x32x128x128xbf16>
}

// CHECK-LABEL: func.func @concat
// CHECK: npu.concat %{{.*}}, %{{.*}} dim(2) : tensor<4x128x128xbf16>, tensor<4x128x64xbf16> -> tensor<4x128x192xbf16>
// CHECK: npu.concat %{{.*}}, %{{.*}}, %{{.*}} dim(0) : tensor<1x3xf8E5M2>, tensor<2x3xf8E5M2>, tensor<1x3xf8E5M2> -> tensor<4x3xf8E5M2>
func.func @concat(%a: tensor<4x128x128xbf16>, %b: tensor<4x128x64xbf16>, %c: tensor<1x3xf8E5M2>, %d: tensor<2x3xf8E5M2>) -> (tensor<4x128x192xbf16>, tensor<4x3xf8E5M2>) {
  %0 = npu.concat %a, %b dim(2) : tensor<4x128x128xbf16>, tensor<4x128x64xbf16> -> tensor<4x128x192xbf16>
  %1 = npu.concat %c, %d, %c dim(0) : tensor<1x3xf8E5M2>, tensor<2x3xf8E5M2>, tensor<1x3xf8E5M2> -> tensor<4x3xf8E5M2>
  return %0, %1 : tensor<4x128x192xbf16>, tensor<4x3xf8E5M2>
}

// CHECK-LABEL: func.func @slice
// CHECK: npu.slice %{{.*}} offsets [0, 0, 128] sizes [4, 128, 64] strides [1, 1, 1] : tensor<4x128x192xbf16> -> tensor<4x128x64xbf16>
// CHECK: npu.slice %{{.*}} offsets [1] sizes [3] strides [2] : tensor<7xi64> -> tensor<3xi64>
func.func @slice(%x: tensor<4x128x192xbf16>, %y: tensor<7xi64>) -> (tensor<4x128x64xbf16>, tensor<3xi64>) {
  %0 = npu.slice %x offsets [0, 0, 128] sizes [4, 128, 64] strides [1, 1, 1] : tensor<4x128x192xbf16> -> tensor<4x128x64xbf16>
  %1 = npu.slice %y offsets [1] sizes [3] strides [2] : tensor<7xi64> -> tensor<3xi64>
  return %0, %1 : tensor<4x128x64xbf16>, tensor<3xi64>
}

// CHECK-LABEL: func.func @broadcast_rope_key
// CHECK: npu.broadcast %{{.*}} : tensor<1x1x16x64xbf16> -> tensor<1x8x16x64xbf16>
func.func @broadcast_rope_key(%pe: tensor<1x1x16x64xbf16>) -> tensor<1x8x16x64xbf16> {
  %0 = npu.broadcast %pe : tensor<1x1x16x64xbf16> -> tensor<1x8x16x64xbf16>
  return %0 : tensor<1x8x16x64xbf16>
}
