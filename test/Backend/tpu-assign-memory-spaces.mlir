// RUN: npu-opt %s --split-input-file --verify-diagnostics --npu-tpu-assign-memory-spaces | FileCheck %s

// A bufferized GEMM (npu-tile-kernels of 8x16 x 12x16^T with tiles M 4, N 4,
// K 8, then one-shot bufferization): arguments and result in HBM; the
// operand tiles staged in the K loop; the output tile staged once for the
// N-loop body (filled in VMEM, not copied in; copied out after the K loop).
// CHECK-LABEL: func.func @gemm(%{{.*}}: memref<8x16xf32, #npu.memory_space<hbm>>, %{{.*}}: memref<12x16xf32, #npu.memory_space<hbm>>) -> memref<8x12xf32, #npu.memory_space<hbm>>
// CHECK: %[[C:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x12xf32, #npu.memory_space<hbm>>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[CT:.*]] = memref.subview %[[C]]{{.*}}#npu.memory_space<hbm>>
// CHECK-NEXT: %[[ACC:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x4xf32, #npu.memory_space<vmem>>
// CHECK-NOT: memref.copy
// CHECK: linalg.fill {{.*}}outs(%[[ACC]] :
// CHECK: scf.for
// CHECK: %[[XT:.*]] = memref.subview {{.*}} to memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>
// CHECK: %[[WT:.*]] = memref.subview {{.*}} to memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>
// CHECK: %[[XB:.*]] = memref.alloc() {{.*}} : memref<4x8xf32, #npu.memory_space<vmem>>
// CHECK: memref.copy %[[XT]], %[[XB]]
// CHECK: %[[WB:.*]] = memref.alloc() {{.*}} : memref<4x8xf32, #npu.memory_space<vmem>>
// CHECK: memref.copy %[[WT]], %[[WB]]
// CHECK: linalg.generic {{.*}} ins(%[[XB]], %[[WB]] : {{.*}}) outs(%[[ACC]] :
// CHECK-NOT: memref.copy
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: memref.copy %[[ACC]], %[[CT]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return %[[C]]
func.func @gemm(%arg0: memref<8x16xf32>, %arg1: memref<12x16xf32>) -> memref<8x12xf32> {
  %c16 = arith.constant 16 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %c8 = arith.constant 8 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<8x12xf32>
  scf.for %arg2 = %c0 to %c8 step %c4 {
    scf.for %arg3 = %c0 to %c12 step %c4 {
      %subview = memref.subview %arg0[%arg2, 0] [4, 16] [1, 1] : memref<8x16xf32> to memref<4x16xf32, strided<[16, 1], offset: ?>>
      %subview_0 = memref.subview %arg1[%arg3, 0] [4, 16] [1, 1] : memref<12x16xf32> to memref<4x16xf32, strided<[16, 1], offset: ?>>
      %subview_1 = memref.subview %alloc[%arg2, %arg3] [4, 4] [1, 1] : memref<8x12xf32> to memref<4x4xf32, strided<[12, 1], offset: ?>>
      linalg.fill ins(%cst : f32) outs(%subview_1 : memref<4x4xf32, strided<[12, 1], offset: ?>>)
      scf.for %arg4 = %c0 to %c16 step %c8 {
        %subview_2 = memref.subview %subview[0, %arg4] [4, 8] [1, 1] : memref<4x16xf32, strided<[16, 1], offset: ?>> to memref<4x8xf32, strided<[16, 1], offset: ?>>
        %subview_3 = memref.subview %subview_0[0, %arg4] [4, 8] [1, 1] : memref<4x16xf32, strided<[16, 1], offset: ?>> to memref<4x8xf32, strided<[16, 1], offset: ?>>
        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%subview_2, %subview_3 : memref<4x8xf32, strided<[16, 1], offset: ?>>, memref<4x8xf32, strided<[16, 1], offset: ?>>) outs(%subview_1 : memref<4x4xf32, strided<[12, 1], offset: ?>>) {
        ^bb0(%in: f32, %in_4: f32, %out: f32):
          %0 = arith.mulf %in, %in_4 : f32
          %1 = arith.addf %out, %0 : f32
          linalg.yield %1 : f32
        }
      }
    }
  }
  return %alloc : memref<8x12xf32>
}

// -----

// A per-tile temporary with a dynamic size min(10 - iv, 4) goes to VMEM at
// its bound (4) with a view of the actual size; the HBM result tile is
// written by a copy that npu-tpu-insert-dma will make a DMA.
// CHECK-LABEL: func.func @temporary(%{{.*}}: memref<10xf32, #npu.memory_space<hbm>>)
// CHECK: scf.for
// CHECK: %[[N:.*]] = arith.minsi
// CHECK: %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32, #npu.memory_space<vmem>>
// CHECK: %[[V:.*]] = memref.subview %[[T]][0] [%[[N]]] [1] : memref<4xf32, #npu.memory_space<vmem>> to memref<?xf32, strided<[1]>, #npu.memory_space<vmem>>
// CHECK: linalg.fill {{.*}}outs(%[[V]] :
// CHECK: %[[O:.*]] = memref.subview {{.*}} : memref<10xf32, #npu.memory_space<hbm>> to memref<?xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>>
// CHECK: memref.copy %[[V]], %[[O]]
func.func @temporary(%out: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  %cst = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c10 step %c4 {
    %r = arith.subi %c10, %i : index
    %n = arith.minsi %r, %c4 : index
    %t = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf32>
    linalg.fill ins(%cst : f32) outs(%t : memref<?xf32>)
    %o = memref.subview %out[%i] [%n] [1] : memref<10xf32> to memref<?xf32, strided<[1], offset: ?>>
    memref.copy %t, %o : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
  }
  return
}

// -----

// An HBM operand whose size has no constant bound cannot be staged.
func.func @unbounded(%x: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %t = memref.subview %x[%i] [%n] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
    // expected-error @below {{cannot bound the sizes of HBM operand}}
    linalg.fill ins(%cst : f32) outs(%t : memref<?xf32, strided<[1], offset: ?>>)
  }
  return
}
