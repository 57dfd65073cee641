// RUN: npu-opt %s --split-input-file --npu-tpu-double-buffer | FileCheck %s
// RUN: npu-opt %s --split-input-file --npu-tpu-double-buffer --canonicalize | FileCheck %s --check-prefix=CANON

// The GEMM of tpu-insert-dma.mlir after that pass: the M and N tile loops,
// a perfect nest, become one loop over the 2 x 3 output tiles; the K loop's
// operand loads get two VMEM buffers each, the first tile loaded before the
// loop, and each iteration starts the next tile's DMAs before waiting on the
// current tile's (carried as loop values) and computing on it. The tile loop
// gets two accumulators: its first tile runs before it (the prologue), and
// each iteration starts its tile's store, then waits for the previous tile's
// (carried as a loop value); the last store is waited for after the loop.
// The K loop (2 steps) computes its last step on slot 1 of its buffers, so
// the tile loop hands the next tile its first K tiles: started into slot 0
// after the K loop, before that last step (the K buffers, used by every
// tile, move out of the tile loop).
// CHECK-LABEL: func.func @gemm
// CHECK: %[[XB:.*]] = memref.alloc() {{.*}} : memref<2x4x8xf32, #npu.memory_space<vmem>>
// CHECK: %[[WB:.*]] = memref.alloc() {{.*}} : memref<2x4x8xf32, #npu.memory_space<vmem>>
// CHECK: %[[ACC:.*]] = memref.alloc() {{.*}} : memref<2x4x4xf32, #npu.memory_space<vmem>>
// CHECK: %[[T0:.*]] = npu.dma_start
// CHECK: %[[T1:.*]] = npu.dma_start
// CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %[[T0]], %[[B:.*]] = %[[T1]], {{.*}}) -> (!npu.dma_token, !npu.dma_token,
// CHECK: npu.dma_start
// CHECK: npu.dma_start
// CHECK: npu.dma_wait %[[A]]
// CHECK-NEXT: npu.dma_wait %[[B]]
// CHECK-NEXT: linalg.generic
// CHECK: scf.yield
// The second tile's first K tiles, then the first tile's last K step.
// CHECK: %[[H0:.*]] = npu.dma_start {{.*}}#npu.memory_space<hbm>>, memref<4x8xf32, {{.*}}#npu.memory_space<vmem>>
// CHECK: %[[H1:.*]] = npu.dma_start {{.*}}#npu.memory_space<hbm>>, memref<4x8xf32, {{.*}}#npu.memory_space<vmem>>
// CHECK: npu.dma_wait
// CHECK: npu.dma_wait
// CHECK: linalg.generic
// The first output tile's store, then the tile loop carrying its token and
// the handed-off loads.
// CHECK: %[[S0:.*]] = npu.dma_start %{{.*}}, %{{.*}} : memref<4x4xf32, {{.*}}#npu.memory_space<vmem>>, memref<4x4xf32, {{.*}}#npu.memory_space<hbm>>
// CHECK: %[[R:.*]]:9 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[A1:.*]] = %[[H0]], %[[B1:.*]] = %[[H1]], {{.*}}, %[[PREV:.*]] = %[[S0]]) -> (
// CHECK: memref.subview %[[ACC]][
// CHECK: %[[KL:.*]]:4 = scf.for {{.*}} iter_args(%{{.*}} = %[[A1]], %{{.*}} = %[[B1]],
// CHECK: scf.yield
// CHECK: %[[N0:.*]] = npu.dma_start {{.*}}#npu.memory_space<hbm>>, memref<4x8xf32, {{.*}}#npu.memory_space<vmem>>
// CHECK: %[[N1:.*]] = npu.dma_start {{.*}}#npu.memory_space<hbm>>, memref<4x8xf32, {{.*}}#npu.memory_space<vmem>>
// CHECK: npu.dma_wait %[[KL]]#0
// CHECK-NEXT: npu.dma_wait %[[KL]]#1
// CHECK-NEXT: linalg.generic
// CHECK: %[[S:.*]] = npu.dma_start {{.*}}#npu.memory_space<vmem>>, memref<4x4xf32, {{.*}}#npu.memory_space<hbm>>
// CHECK-NEXT: npu.dma_wait %[[PREV]]
// CHECK-NEXT: scf.yield %{{.*}}, %{{.*}}, %[[N0]], %[[N1]], {{.*}}, %[[S]] :
// The last tile: its K loop starts on the handed-off tiles.
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[R]]#2, %{{.*}} = %[[R]]#3,
// CHECK: npu.dma_wait %[[R]]#8
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
          %1 = npu.dma_start %subview_3, %alloc_5 : memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>, memref<4x8xf32, #npu.memory_space<vmem>>
          %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32, #npu.memory_space<vmem>>
          %2 = npu.dma_start %subview_4, %alloc_6 : memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>, memref<4x8xf32, #npu.memory_space<vmem>>
          npu.dma_wait %1
          npu.dma_wait %2
          linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloc_5, %alloc_6 : memref<4x8xf32, #npu.memory_space<vmem>>, memref<4x8xf32, #npu.memory_space<vmem>>) outs(%alloc_2 : memref<4x4xf32, #npu.memory_space<vmem>>) {
          ^bb0(%in: f32, %in_7: f32, %out: f32):
            %3 = arith.mulf %in, %in_7 : f32
            %4 = arith.addf %out, %3 : f32
            linalg.yield %4 : f32
          }
        }
        %0 = npu.dma_start %alloc_2, %subview_1 : memref<4x4xf32, #npu.memory_space<vmem>>, memref<4x4xf32, strided<[12, 1], offset: ?>, #npu.memory_space<hbm>>
        npu.dma_wait %0
      }
    }
    return %alloc : memref<8x12xf32, #npu.memory_space<hbm>>
  }
}


// -----

// A loop over [%lo, %hi): its trip count is known only at run time (a causal
// KV range). The first tile's load runs before the loop if the loop runs
// (lo < hi); each iteration prefetches the next tile into the other buffer
// if there is one (iv + step < hi), then waits for its own and computes. No
// epilogue is peeled: the last iteration's prefetch is predicated off.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: %[[LO:[a-z0-9]+]]: index, %[[HI:[a-z0-9]+]]: index)
// CHECK: memref.alloc() {{.*}} : memref<2x4x8xf32, #npu.memory_space<vmem>>
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %{{.*}}, %[[HI]] : index
// CHECK: %[[T0:.*]] = npu.dma_start {{.*}} if %[[RUNS]] :
// CHECK: scf.for %[[IV:[a-z0-9]+]] = %[[LO]] to %[[HI]] step %c8 iter_args(%[[T:[a-z0-9]+]] = %[[T0]], {{.*}}) -> (!npu.dma_token,
// CHECK: %[[LAST:.*]] = arith.subi %[[HI]], %{{.*}} : index
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[IV]], %[[LAST]] : index
// CHECK: %[[TN:.*]] = npu.dma_start {{.*}} if %[[MORE]] :
// CHECK: npu.dma_wait %[[T]]
// CHECK-NEXT: linalg.copy
// CHECK: scf.yield %[[TN]]
// CHECK-NOT: npu.dma_wait
// CHECK: return
func.func @dynamic(%x: memref<4x64xf32, #npu.memory_space<hbm>>, %acc: memref<4x8xf32, #npu.memory_space<vmem>>, %lo: index, %hi: index) {
  %c8 = arith.constant 8 : index
  scf.for %k = %lo to %hi step %c8 {
    %tile = memref.subview %x[0, %k] [4, 8] [1, 1] : memref<4x64xf32, #npu.memory_space<hbm>> to memref<4x8xf32, strided<[64, 1], offset: ?>, #npu.memory_space<hbm>>
    %buf = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32, #npu.memory_space<vmem>>
    %t = npu.dma_start %tile, %buf : memref<4x8xf32, strided<[64, 1], offset: ?>, #npu.memory_space<hbm>>, memref<4x8xf32, #npu.memory_space<vmem>>
    npu.dma_wait %t
    linalg.copy ins(%buf : memref<4x8xf32, #npu.memory_space<vmem>>) outs(%acc : memref<4x8xf32, #npu.memory_space<vmem>>)
  }
  return
}

// -----

// A loop marked `npu.buffers = 1` (the head loop of attention with a
// resident K/V) keeps its load in place: one buffer, started and waited in
// the iteration that uses it.
// CHECK-LABEL: func.func @single
// CHECK: scf.for
// CHECK-NEXT: memref.subview
// CHECK-NEXT: memref.alloc() : memref<8x4xf32, #npu.memory_space<vmem>>
// CHECK-NEXT: %[[T:.*]] = npu.dma_start
// CHECK-NEXT: npu.dma_wait %[[T]]
// CHECK: } {npu.buffers = 1 : i64}
func.func @single(%x: memref<16x8x4xf32, #npu.memory_space<hbm>>, %y: memref<16x4xf32, #npu.memory_space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %h = %c0 to %c16 step %c1 {
    %src = memref.subview %x[%h, 0, 0] [1, 8, 4] [1, 1, 1] : memref<16x8x4xf32, #npu.memory_space<hbm>> to memref<8x4xf32, strided<[4, 1], offset: ?>, #npu.memory_space<hbm>>
    %buf = memref.alloc() : memref<8x4xf32, #npu.memory_space<vmem>>
    %t = npu.dma_start %src, %buf : memref<8x4xf32, strided<[4, 1], offset: ?>, #npu.memory_space<hbm>>, memref<8x4xf32, #npu.memory_space<vmem>>
    npu.dma_wait %t
    %dst = memref.subview %y[%h, 0] [1, 4] [1, 1] : memref<16x4xf32, #npu.memory_space<hbm>> to memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>>
    %row = memref.subview %buf[0, 0] [1, 4] [1, 1] : memref<8x4xf32, #npu.memory_space<vmem>> to memref<4xf32, strided<[1]>, #npu.memory_space<vmem>>
    memref.copy %row, %dst : memref<4xf32, strided<[1]>, #npu.memory_space<vmem>> to memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>>
  } {npu.buffers = 1 : i64}
  return
}

// -----

// Stores that must complete in their own iteration: the loop loads back
// from the buffer it stores to (a later iteration could read a row still in
// flight), and, in the second loop, the stored buffer is also the load's
// (its refill would start before the store's wait). Neither loop carries a
// store token; the second still prefetches its load.
// CHECK-LABEL: func.func @store_in_place
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: %[[S:.*]] = npu.dma_start {{.*}}#npu.memory_space<vmem>>, memref<4xf32, {{.*}}#npu.memory_space<hbm>>
// CHECK-NEXT: npu.dma_wait %[[S]]
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (!npu.dma_token,
// CHECK: %[[S2:.*]] = npu.dma_start {{.*}}#npu.memory_space<vmem>>, memref<4xf32, {{.*}}#npu.memory_space<hbm>>
// CHECK-NEXT: npu.dma_wait %[[S2]]
func.func @store_in_place(%x: memref<16x4xf32, #npu.memory_space<hbm>>, %y: memref<16x4xf32, #npu.memory_space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c1 to %c16 step %c1 {
    %im1 = arith.subi %i, %c1 : index
    %prev = memref.subview %y[%im1, 0] [1, 4] [1, 1] : memref<16x4xf32, #npu.memory_space<hbm>> to memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>>
    %buf = memref.alloc() : memref<4xf32, #npu.memory_space<vmem>>
    %t = npu.dma_start %prev, %buf : memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>>, memref<4xf32, #npu.memory_space<vmem>>
    npu.dma_wait %t
    %dst = memref.subview %y[%i, 0] [1, 4] [1, 1] : memref<16x4xf32, #npu.memory_space<hbm>> to memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>>
    %s = npu.dma_start %buf, %dst : memref<4xf32, #npu.memory_space<vmem>>, memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>>
    npu.dma_wait %s
  }
  scf.for %i = %c0 to %c16 step %c1 {
    %src = memref.subview %x[%i, 0] [1, 4] [1, 1] : memref<16x4xf32, #npu.memory_space<hbm>> to memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>>
    %buf = memref.alloc() : memref<4xf32, #npu.memory_space<vmem>>
    %t = npu.dma_start %src, %buf : memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>>, memref<4xf32, #npu.memory_space<vmem>>
    npu.dma_wait %t
    %dst = memref.subview %y[%i, 0] [1, 4] [1, 1] : memref<16x4xf32, #npu.memory_space<hbm>> to memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>>
    %s = npu.dma_start %buf, %dst : memref<4xf32, #npu.memory_space<vmem>>, memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>>
    npu.dma_wait %s
  }
  return
}

// -----

// Nests that stay nests: the inner loop's bound depends on the outer
// induction variable (a triangle), and loops with different buffer counts.
// CHECK-LABEL: func.func @not_coalesced
// CHECK: scf.for %[[I:[a-z0-9]+]] =
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[I]] step
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK: } {npu.buffers = 1 : i64}
// CHECK-NEXT: } {npu.buffers = 2 : i64}
func.func @not_coalesced(%x: memref<16x4xf32, #npu.memory_space<hbm>>, %y: memref<16x16x4xf32, #npu.memory_space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %j = %c0 to %i step %c1 {
      %src = memref.subview %x[%j, 0] [1, 4] [1, 1] : memref<16x4xf32, #npu.memory_space<hbm>> to memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>>
      %dst = memref.subview %y[%i, %j, 0] [1, 1, 4] [1, 1, 1] : memref<16x16x4xf32, #npu.memory_space<hbm>> to memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>>
      memref.copy %src, %dst : memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>> to memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>>
    }
  }
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %src = memref.subview %x[%j, 0] [1, 4] [1, 1] : memref<16x4xf32, #npu.memory_space<hbm>> to memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>>
      %dst = memref.subview %y[%i, %j, 0] [1, 1, 4] [1, 1, 1] : memref<16x16x4xf32, #npu.memory_space<hbm>> to memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>>
      memref.copy %src, %dst : memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>> to memref<4xf32, strided<[1], offset: ?>, #npu.memory_space<hbm>>
    } {npu.buffers = 1 : i64}
  } {npu.buffers = 2 : i64}
  return
}

// -----

// Nests that are not tile grids stay nests: i32 induction variables, and a
// zero step (no static trip count).
// CHECK-LABEL: func.func @not_tile_loops
// CHECK: scf.for {{.*}} : i32 {
// CHECK-NEXT: scf.for {{.*}} : i32 {
// CHECK: scf.for {{.*}} step %c0 {
// CHECK-NEXT: scf.for
func.func @not_tile_loops(%y: memref<16x16xf32>) {
  %c0_i32 = arith.constant 0 : i32
  %c1_i32 = arith.constant 1 : i32
  %c16_i32 = arith.constant 16 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %cst = arith.constant 1.0 : f32
  scf.for %i = %c0_i32 to %c16_i32 step %c1_i32 : i32 {
    scf.for %j = %c0_i32 to %c16_i32 step %c1_i32 : i32 {
      %ii = arith.index_cast %i : i32 to index
      %jj = arith.index_cast %j : i32 to index
      memref.store %cst, %y[%ii, %jj] : memref<16x16xf32>
    }
  }
  scf.for %i = %c0 to %c16 step %c0 {
    scf.for %j = %c0 to %c16 step %c1 {
      memref.store %cst, %y[%i, %j] : memref<16x16xf32>
    }
  }
  return
}

// -----

// Two iterations that load a tile, compute and store one: the loads are a
// stage ahead and the store waits a stage behind, so with as many
// iterations as the last stage's index the loop is all prologue and
// epilogue (its kernel loop runs no iteration; checked after canonicalization):
// tile 1 loads while tile 0 computes, and tile 0's store is waited for after
// tile 1 computes and starts its store.
// CANON-LABEL: func.func @two_blocks
// CANON: %[[L0:.*]] = npu.dma_start {{.*}}#npu.memory_space<hbm>>, memref<4x4xf32, {{.*}}#npu.memory_space<vmem>>
// CANON: %[[L1:.*]] = npu.dma_start {{.*}}#npu.memory_space<hbm>>, memref<4x4xf32, {{.*}}#npu.memory_space<vmem>>
// CANON: npu.dma_wait %[[L0]]
// CANON-NEXT: linalg.copy
// CANON: %[[S0:.*]] = npu.dma_start {{.*}}#npu.memory_space<vmem>>, memref<4x4xf32, {{.*}}#npu.memory_space<hbm>>
// CANON: npu.dma_wait %[[L1]]
// CANON-NEXT: linalg.copy
// CANON: %[[S1:.*]] = npu.dma_start {{.*}}#npu.memory_space<vmem>>, memref<4x4xf32, {{.*}}#npu.memory_space<hbm>>
// CANON-NEXT: npu.dma_wait %[[S0]]
// CANON-NEXT: npu.dma_wait %[[S1]]
// CANON-NOT: scf.for
func.func @two_blocks(%x: memref<8x4xf32, #npu.memory_space<hbm>>, %y: memref<8x4xf32, #npu.memory_space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c4 {
    %src = memref.subview %x[%i, 0] [4, 4] [1, 1] : memref<8x4xf32, #npu.memory_space<hbm>> to memref<4x4xf32, strided<[4, 1], offset: ?>, #npu.memory_space<hbm>>
    %buf = memref.alloc() : memref<4x4xf32, #npu.memory_space<vmem>>
    %t = npu.dma_start %src, %buf : memref<4x4xf32, strided<[4, 1], offset: ?>, #npu.memory_space<hbm>>, memref<4x4xf32, #npu.memory_space<vmem>>
    npu.dma_wait %t
    %out = memref.alloc() : memref<4x4xf32, #npu.memory_space<vmem>>
    linalg.copy ins(%buf : memref<4x4xf32, #npu.memory_space<vmem>>) outs(%out : memref<4x4xf32, #npu.memory_space<vmem>>)
    %dst = memref.subview %y[%i, 0] [4, 4] [1, 1] : memref<8x4xf32, #npu.memory_space<hbm>> to memref<4x4xf32, strided<[4, 1], offset: ?>, #npu.memory_space<hbm>>
    %s = npu.dma_start %out, %dst : memref<4x4xf32, #npu.memory_space<vmem>>, memref<4x4xf32, strided<[4, 1], offset: ?>, #npu.memory_space<hbm>>
    npu.dma_wait %s
  }
  return
}
