// RUN: npu-opt %s --split-input-file --npu-tpu-issue-loads-early | FileCheck %s

#hbm = #npu.memory_space<hbm>
#vmem = #npu.memory_space<vmem>
// A MoE M tile's shape: the rows of x gathered by a chain of one-row copies
// (its buffer allocated and zeroed first), then the first weight tile of a
// pipelined loop. The weight load and what it needs (its buffer, its view)
// move above the chain: the weights load while the rows are copied.
// CHECK-LABEL: func.func @rows_then_weights
// CHECK: %[[W:.*]] = memref.alloc() : memref<4x16xf32, #npu.memory_space<vmem>>
// CHECK-NEXT: %[[T:.*]] = npu.dma_start %{{.*}}, %[[W]]
// CHECK: %[[ROWS:.*]] = memref.alloc() : memref<8x16xf32, #npu.memory_space<vmem>>
// CHECK-NEXT: linalg.fill {{.*}}outs(%[[ROWS]]
// CHECK-NEXT: scf.for
// CHECK: npu.dma_wait
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[T]])
func.func @rows_then_weights(%x: memref<64x16xf32, #hbm>, %order: memref<8xindex, #hbm>, %w: memref<4x16xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %rows = memref.alloc() : memref<8x16xf32, #vmem>
  linalg.fill ins(%zero : f32) outs(%rows : memref<8x16xf32, #vmem>)
  scf.for %r = %c0 to %c8 step %c1 {
    %i = memref.load %order[%r] : memref<8xindex, #hbm>
    %src = memref.subview %x[%i, 0] [1, 16] [1, 1] : memref<64x16xf32, #hbm> to memref<1x16xf32, strided<[16, 1], offset: ?>, #hbm>
    %dst = memref.subview %rows[%r, 0] [1, 16] [1, 1] : memref<8x16xf32, #vmem> to memref<1x16xf32, strided<[16, 1], offset: ?>, #vmem>
    %t = npu.dma_start %src, %dst : memref<1x16xf32, strided<[16, 1], offset: ?>, #hbm>, memref<1x16xf32, strided<[16, 1], offset: ?>, #vmem>
    npu.dma_wait %t
  }
  %wbuf = memref.alloc() : memref<4x16xf32, #vmem>
  %t0 = npu.dma_start %w, %wbuf : memref<4x16xf32, #hbm>, memref<4x16xf32, #vmem>
  %last = scf.for %k = %c0 to %c2 step %c1 iter_args(%t = %t0) -> (!npu.dma_token) {
    npu.dma_wait %t
    linalg.fill ins(%zero : f32) outs(%rows : memref<8x16xf32, #vmem>)
    scf.yield %t : !npu.dma_token
  }
  return
}

// -----

#hbm = #npu.memory_space<hbm>
#vmem = #npu.memory_space<vmem>
// The load stays below compute (no buffer's life grows over it), below a
// store's wait (it frees a buffer the load's would then live beside), and
// below a buffer allocated earlier that only later ops use (the VMEM
// planner's order).
// CHECK-LABEL: func.func @stays
// CHECK: linalg.generic
// CHECK: npu.dma_wait
// CHECK: memref.alloc() : memref<8x16xf32
// CHECK: memref.alloc() : memref<4x16xf32
// CHECK-NEXT: npu.dma_start
// CHECK-NEXT: scf.for
func.func @stays(%a: memref<8x16xf32, #vmem>, %out: memref<8x16xf32, #hbm>, %w: memref<4x16xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%a : memref<8x16xf32, #vmem>) {
  ^bb0(%o: f32):
    %n = arith.negf %o : f32
    linalg.yield %n : f32
  }
  %s = npu.dma_start %a, %out : memref<8x16xf32, #vmem>, memref<8x16xf32, #hbm>
  npu.dma_wait %s
  %later = memref.alloc() : memref<8x16xf32, #vmem>
  %wbuf = memref.alloc() : memref<4x16xf32, #vmem>
  %t0 = npu.dma_start %w, %wbuf : memref<4x16xf32, #hbm>, memref<4x16xf32, #vmem>
  %last = scf.for %k = %c0 to %c2 step %c1 iter_args(%t = %t0) -> (!npu.dma_token) {
    npu.dma_wait %t
    %f = arith.constant 1.0 : f32
    linalg.fill ins(%f : f32) outs(%later : memref<8x16xf32, #vmem>)
    scf.yield %t : !npu.dma_token
  }
  return
}

// -----

#hbm = #npu.memory_space<hbm>
#vmem = #npu.memory_space<vmem>
// A row copy into the load's own buffer: the load waits for it.
// CHECK-LABEL: func.func @same_buffer
// CHECK: npu.dma_wait
// CHECK-NEXT: %[[T:.*]] = npu.dma_start
// CHECK-NEXT: scf.for {{.*}} iter_args(%{{.*}} = %[[T]])
func.func @same_buffer(%x: memref<64x16xf32, #hbm>, %w: memref<4x16xf32, #hbm>, %wbuf: memref<4x16xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %src = memref.subview %x[0, 0] [1, 16] [1, 1] : memref<64x16xf32, #hbm> to memref<1x16xf32, strided<[16, 1]>, #hbm>
  %dst = memref.subview %wbuf[3, 0] [1, 16] [1, 1] : memref<4x16xf32, #vmem> to memref<1x16xf32, strided<[16, 1], offset: 48>, #vmem>
  %r = npu.dma_start %src, %dst : memref<1x16xf32, strided<[16, 1]>, #hbm>, memref<1x16xf32, strided<[16, 1], offset: 48>, #vmem>
  npu.dma_wait %r
  %t0 = npu.dma_start %w, %wbuf : memref<4x16xf32, #hbm>, memref<4x16xf32, #vmem>
  %last = scf.for %k = %c0 to %c2 step %c1 iter_args(%t = %t0) -> (!npu.dma_token) {
    npu.dma_wait %t
    scf.yield %t : !npu.dma_token
  }
  return
}
