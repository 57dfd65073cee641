// RUN: npu-opt %s --npu-tpu-insert-dma | FileCheck %s

// The GEMM of tpu-assign-memory-spaces.mlir after that pass (HBM <-> VMEM
// staging copies): each copy becomes an asynchronous DMA whose wait sits
// right before the first op that touches its buffer, so both operand loads
// are in flight together; the output tile goes back with one DMA after the
// K loop.
// CHECK-LABEL: func.func @gemm
// CHECK: scf.for
// CHECK: %[[X:.*]] = npu.dma_start %{{.*}}, %[[XB:.*]] : memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>, memref<4x8xf32, #npu.memory_space<vmem>>
// CHECK-NOT: npu.dma_wait
// CHECK: %[[W:.*]] = npu.dma_start %{{.*}}, %[[WB:.*]] : memref<4x8xf32
// CHECK-NEXT: npu.dma_wait %[[X]]
// CHECK-NEXT: npu.dma_wait %[[W]]
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[XB]], %[[WB]] :
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: %[[O:.*]] = npu.dma_start %{{.*}}, %{{.*}} : memref<4x4xf32, #npu.memory_space<vmem>>, memref<4x4xf32, strided<[12, 1], offset: ?>, #npu.memory_space<hbm>>
// CHECK-NEXT: npu.dma_wait %[[O]]
// CHECK-NOT: memref.copy
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @gemm(%arg0: memref<8x16xf32, #npu.memory_space<hbm>>, %arg1: memref<12x16xf32, #npu.memory_space<hbm>>) -> memref<8x12xf32, #npu.memory_space<hbm>> {
    %c16 = arith.constant 16 : index
    %c4 = arith.constant 4 : index
    %c12 = arith.constant 12 : index
    %c8 = arith.constant 8 : index
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<8x12xf32, #npu.memory_space<hbm>>
    scf.for %arg2 = %c0 to %c8 step %c4 {
      scf.for %arg3 = %c0 to %c12 step %c4 {
        %subview = memref.subview %arg0[%arg2, 0] [4, 16] [1, 1] : memref<8x16xf32, #npu.memory_space<hbm>> to memref<4x16xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>
        %subview_0 = memref.subview %arg1[%arg3, 0] [4, 16] [1, 1] : memref<12x16xf32, #npu.memory_space<hbm>> to memref<4x16xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>
        %subview_1 = memref.subview %alloc[%arg2, %arg3] [4, 4] [1, 1] : memref<8x12xf32, #npu.memory_space<hbm>> to memref<4x4xf32, strided<[12, 1], offset: ?>, #npu.memory_space<hbm>>
        %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<4x4xf32, #npu.memory_space<vmem>>
        linalg.fill ins(%cst : f32) outs(%alloc_2 : memref<4x4xf32, #npu.memory_space<vmem>>)
        scf.for %arg4 = %c0 to %c16 step %c8 {
          %subview_3 = memref.subview %subview[0, %arg4] [4, 8] [1, 1] : memref<4x16xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>> to memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>
          %subview_4 = memref.subview %subview_0[0, %arg4] [4, 8] [1, 1] : memref<4x16xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>> to memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>
          %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32, #npu.memory_space<vmem>>
          memref.copy %subview_3, %alloc_5 : memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>> to memref<4x8xf32, #npu.memory_space<vmem>>
          %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32, #npu.memory_space<vmem>>
          memref.copy %subview_4, %alloc_6 : memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>> to memref<4x8xf32, #npu.memory_space<vmem>>
          linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloc_5, %alloc_6 : memref<4x8xf32, #npu.memory_space<vmem>>, memref<4x8xf32, #npu.memory_space<vmem>>) outs(%alloc_2 : memref<4x4xf32, #npu.memory_space<vmem>>) {
          ^bb0(%in: f32, %in_7: f32, %out: f32):
            %0 = arith.mulf %in, %in_7 : f32
            %1 = arith.addf %out, %0 : f32
            linalg.yield %1 : f32
          }
        }
        memref.copy %alloc_2, %subview_1 : memref<4x4xf32, #npu.memory_space<vmem>> to memref<4x4xf32, strided<[12, 1], offset: ?>, #npu.memory_space<hbm>>
      }
    }
    return %alloc : memref<8x12xf32, #npu.memory_space<hbm>>
  }
}

