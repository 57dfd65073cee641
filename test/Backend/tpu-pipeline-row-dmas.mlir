// RUN: npu-opt %s --split-input-file --npu-set-target="target=mock-tpu" --npu-tpu-pipeline-row-dmas --canonicalize | FileCheck %s
// RUN: npu-opt %s --split-input-file --npu-set-target="target=tpu-v7" --npu-tpu-pipeline-row-dmas --canonicalize | FileCheck %s --check-prefix=V7
// RUN: not npu-opt %s --split-input-file --npu-set-target="target=h100" --npu-tpu-pipeline-row-dmas -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU

#hbm = #npu.memory_space<hbm>
#vmem = #npu.memory_space<vmem>
// Eight rows of x gathered by index into a VMEM tile, each copy waited before
// the next starts. mock-tpu keeps 4 row copies in flight (its
// row_dmas_in_flight_per_core): rows 0..2 start before
// the loop; iteration r (5 of them) starts row r + 3 (its index loaded
// then) and waits for row r; the last three rows are waited after it.
// CHECK-LABEL: func.func @gather
// CHECK: %[[T0:.*]] = npu.dma_start
// CHECK: %[[T1:.*]] = npu.dma_start
// CHECK: %[[T2:.*]] = npu.dma_start
// CHECK: %[[L:.*]]:3 = scf.for %[[R:.*]] = %c0 to %c5 step %c1 iter_args(%[[A:.*]] = %[[T0]], %[[B:.*]] = %[[T1]], %[[C:.*]] = %[[T2]]) -> (!npu.dma_token, !npu.dma_token, !npu.dma_token)
// CHECK: %[[N:.*]] = arith.addi %[[R]], %c3
// CHECK: memref.load %{{.*}}[%[[N]]]
// CHECK: %[[T:.*]] = npu.dma_start
// CHECK-NEXT: npu.dma_wait %[[A]]
// CHECK-NEXT: scf.yield %[[B]], %[[C]], %[[T]]
// CHECK: npu.dma_wait %[[L]]#0
// CHECK-NEXT: npu.dma_wait %[[L]]#1
// CHECK-NEXT: npu.dma_wait %[[L]]#2
// CHECK-NEXT: linalg.fill
// tpu-v7 keeps 32 in flight, more than the 8 rows: all 8 start before the
// first wait and no loop is left.
// V7-LABEL: func.func @gather
// V7: npu.dma_start
// V7-NOT: npu.dma_wait
// V7: npu.dma_start
// V7-NOT: npu.dma_wait
// V7: npu.dma_start
// V7-NOT: npu.dma_wait
// V7: npu.dma_start
// V7-NOT: npu.dma_wait
// V7: npu.dma_start
// V7-NOT: npu.dma_wait
// V7: npu.dma_start
// V7-NOT: npu.dma_wait
// V7: npu.dma_start
// V7-NOT: npu.dma_wait
// V7: npu.dma_start
// V7-NOT: scf.for
// V7: npu.dma_wait
func.func @gather(%x: memref<64x16xf32, #hbm>, %order: memref<8xindex, #hbm>, %tile: memref<8x16xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %r = %c0 to %c8 step %c1 {
    %i = memref.load %order[%r] : memref<8xindex, #hbm>
    %src = memref.subview %x[%i, 0] [1, 16] [1, 1] : memref<64x16xf32, #hbm> to memref<1x16xf32, strided<[16, 1], offset: ?>, #hbm>
    %dst = memref.subview %tile[%r, 0] [1, 16] [1, 1] : memref<8x16xf32, #vmem> to memref<1x16xf32, strided<[16, 1], offset: ?>, #vmem>
    %t = npu.dma_start %src, %dst : memref<1x16xf32, strided<[16, 1], offset: ?>, #hbm>, memref<1x16xf32, strided<[16, 1], offset: ?>, #vmem>
    npu.dma_wait %t
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%tile : memref<8x16xf32, #vmem>)
  return
}

// -----

#hbm = #npu.memory_space<hbm>
#vmem = #npu.memory_space<vmem>
// Left alone: a loop that computes on what it loads (the double-buffered
// loops are npu-tpu-double-buffer's), one whose copies all write the same
// buffer, and one of a single iteration.
// CHECK-LABEL: func.func @not_rows
// CHECK-NOT: iter_args
// CHECK: return
func.func @not_rows(%x: memref<64x16xf32, #hbm>, %tile: memref<8x16xf32, #vmem>, %one: memref<1x16xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.for %r = %c0 to %c8 step %c1 {
    %src = memref.subview %x[%r, 0] [1, 16] [1, 1] : memref<64x16xf32, #hbm> to memref<1x16xf32, strided<[16, 1], offset: ?>, #hbm>
    %dst = memref.subview %tile[%r, 0] [1, 16] [1, 1] : memref<8x16xf32, #vmem> to memref<1x16xf32, strided<[16, 1], offset: ?>, #vmem>
    %t = npu.dma_start %src, %dst : memref<1x16xf32, strided<[16, 1], offset: ?>, #hbm>, memref<1x16xf32, strided<[16, 1], offset: ?>, #vmem>
    npu.dma_wait %t
    linalg.fill ins(%zero : f32) outs(%dst : memref<1x16xf32, strided<[16, 1], offset: ?>, #vmem>)
  }
  scf.for %r = %c0 to %c8 step %c1 {
    %src = memref.subview %x[%r, 0] [1, 16] [1, 1] : memref<64x16xf32, #hbm> to memref<1x16xf32, strided<[16, 1], offset: ?>, #hbm>
    %t = npu.dma_start %src, %one : memref<1x16xf32, strided<[16, 1], offset: ?>, #hbm>, memref<1x16xf32, #vmem>
    npu.dma_wait %t
  }
  scf.for %r = %c0 to %c1 step %c1 {
    %src = memref.subview %x[%r, 0] [1, 16] [1, 1] : memref<64x16xf32, #hbm> to memref<1x16xf32, strided<[16, 1], offset: ?>, #hbm>
    %dst = memref.subview %tile[%r, 0] [1, 16] [1, 1] : memref<8x16xf32, #vmem> to memref<1x16xf32, strided<[16, 1], offset: ?>, #vmem>
    %t = npu.dma_start %src, %dst : memref<1x16xf32, strided<[16, 1], offset: ?>, #hbm>, memref<1x16xf32, strided<[16, 1], offset: ?>, #vmem>
    npu.dma_wait %t
  }
  return
}

// -----

// GPU: error: npu-tpu-pipeline-row-dmas: target 'h100' is not TPU-like (no 'tpu' part)
func.func @f() {
  return
}
