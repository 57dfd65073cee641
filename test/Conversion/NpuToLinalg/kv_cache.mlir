// RUN: npu-opt %s --npu-lower-to-linalg | FileCheck %s

// Append: insert_slice at the position clamped to [0, Smax - Snew] = [0, 5];
// read: a static extract_slice of the first tokens.
// CHECK-LABEL: func.func @append_read
// CHECK-SAME: %[[CACHE:[^:]*]]: tensor<1x2x8x4xf16>, %[[NEW:[^:]*]]: tensor<1x2x3x4xf16>, %[[POS:[^:]*]]: index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK: %[[LO:.*]] = arith.maxsi %[[POS]], %[[C0]] : index
// CHECK: %[[OFF:.*]] = arith.minsi %[[LO]], %[[C5]] : index
// CHECK: %[[INS:.*]] = tensor.insert_slice %[[NEW]] into %[[CACHE]][0, 0, %[[OFF]], 0] [1, 2, 3, 4] [1, 1, 1, 1] : tensor<1x2x3x4xf16> into tensor<1x2x8x4xf16>
// CHECK: tensor.extract_slice %[[INS]][0, 0, 0, 0] [1, 2, 5, 4] [1, 1, 1, 1] : tensor<1x2x8x4xf16> to tensor<1x2x5x4xf16>
func.func @append_read(%c: tensor<1x2x8x4xf16>, %n: tensor<1x2x3x4xf16>, %p: index) -> tensor<1x2x5x4xf16> {
  %c2 = npu.kv_cache_append %c, %n at %p : tensor<1x2x8x4xf16>, tensor<1x2x3x4xf16> -> tensor<1x2x8x4xf16>
  %r = npu.kv_cache_read %c2 length(5) : tensor<1x2x8x4xf16> -> tensor<1x2x5x4xf16>
  return %r : tensor<1x2x5x4xf16>
}
