// RUN: npu-opt %s --npu-lower-to-linalg | FileCheck %s

// An untiled kernel is its body: inlined, its npu ops lowered, its results
// the yielded values (the tiling decision is ignored here).
// CHECK-LABEL: func.func @gemm
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK-NOT: npu.
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[W]] : tensor<4x8xf32>, tensor<8x3xf32>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[B]] : tensor<4x3xf32>, tensor<3xf32>)
// CHECK: return %[[S]], %[[M]] : tensor<4x3xf32>, tensor<4x3xf32>
func.func @gemm(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %y:2 = npu.kernel gemm (%x, %w, %b) {npu.tiling = #npu.tiling<loops = [1, 4, 3, 8], tile = [1, 2, 2, 4], buffers = 2, sram_bytes = 0>} : (tensor<4x8xf32>, tensor<8x3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %wt: tensor<8x3xf32>, %bias: tensor<3xf32>):
    %m = npu.matmul %a, %wt : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
    %s = npu.add %m, %bias : tensor<4x3xf32>, tensor<3xf32>
    npu.yield %s, %m : tensor<4x3xf32>, tensor<4x3xf32>
  }
  return %y#0, %y#1 : tensor<4x3xf32>, tensor<4x3xf32>
}

// A kernel that yields one of its inputs.
// CHECK-LABEL: func.func @copy
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @copy(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = npu.kernel copy (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    npu.yield %a : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}
