// RUN: npu-opt %s --npu-tpu-lower-pipeline="target=mock-tpu" | FileCheck %s
// RUN: npu-opt %s --npu-tpu-lower-pipeline="target=mock-tpu buffers=1" | FileCheck %s --check-prefix=SINGLE
// RUN: sed -e 's/buffers = 2/buffers = 1/' %s | npu-opt --npu-tpu-lower-pipeline="target=mock-tpu" | FileCheck %s --check-prefix=SINGLE

// A GEMM 8x32 x 12x32^T with tiles M 4, N 4, K 8: the M and N tile loops
// become one loop over the 2 x 3 output tiles; the K loop (4 steps) streams
// the x and w tiles (4x8 f32, 128 bytes) double-buffered; the 4x4
// accumulator is filled in VMEM and written back by one DMA per output tile,
// into two accumulators used in turn, so that a tile's store completes while
// the next tile computes. The K loop is pipelined for its loads, the tile
// loop for its stores and for the next tile's first K tiles, which start
// into slot 0 of the K buffers after the K loop, while the last K step
// computes on slot 1: the K buffers serve every tile.
// CHECK-LABEL: func.func @gemm
// CHECK-SAME: memref<8x32xf32, #npu.memory_space<hbm>>
// CHECK-SAME: npu.sram_peak = 640 : i64
// CHECK-DAG: memref.alloc() {alignment = 64 : i64, npu.sram_offset = {{[0-9]+}} : i64} : memref<2x4x8xf32, #npu.memory_space<vmem>>
// CHECK-DAG: memref.alloc() {alignment = 64 : i64, npu.sram_offset = {{[0-9]+}} : i64} : memref<2x4x8xf32, #npu.memory_space<vmem>>
// CHECK: %[[ACC:.*]] = memref.alloc() {alignment = 64 : i64, npu.sram_offset = {{[0-9]+}} : i64} : memref<2x4x4xf32, #npu.memory_space<vmem>>
// CHECK: %[[T0:[^ ]+]] = npu.dma_start
// CHECK: %[[T1:[^ ]+]] = npu.dma_start
// CHECK: %[[FIRST:.*]] = memref.subview %[[ACC]][0, 0, 0]
// CHECK: linalg.fill {{.*}}outs(%[[FIRST]]
// CHECK: scf.for {{.*}} iter_args(%[[A:[^ ]+]] = %[[T0]], %[[B:[^ ]+]] = %[[T1]], {{.*}}) -> (!npu.dma_token, !npu.dma_token,
// CHECK: %[[N0:[^ ]+]] = npu.dma_start
// CHECK-NEXT: %[[N1:[^ ]+]] = npu.dma_start
// CHECK-NEXT: npu.dma_wait %[[A]]
// CHECK-NEXT: npu.dma_wait %[[B]]
// CHECK-NEXT: linalg.generic
// CHECK: scf.yield %[[N0]], %[[N1]],
// CHECK: %[[H0:[^ ]+]] = npu.dma_start
// CHECK: %[[H1:[^ ]+]] = npu.dma_start
// CHECK: npu.dma_wait
// CHECK-NEXT: npu.dma_wait
// CHECK-NEXT: linalg.generic
// CHECK: %[[OUT0:[^ ]+]] = npu.dma_start %{{.*}}, %{{.*}} : memref<4x4xf32, {{.*}}#npu.memory_space<vmem>>, memref<4x4xf32, {{.*}}#npu.memory_space<hbm>>
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args({{.*}} = %[[H0]], {{.*}} = %[[H1]], {{.*}}, %[[PREV:[^ ]+]] = %[[OUT0]]) ->
// CHECK: %[[TILE:.*]] = memref.subview %[[ACC]][%
// CHECK: linalg.fill {{.*}}outs(%[[TILE]]
// CHECK: scf.for {{.*}} iter_args(
// CHECK: scf.yield
// CHECK: npu.dma_start
// CHECK: npu.dma_start
// CHECK: %[[OUT:[^ ]+]] = npu.dma_start %[[TILE]]
// CHECK-NEXT: npu.dma_wait %[[PREV]]
// CHECK-NEXT: scf.yield {{.*}}, %[[OUT]] :
// CHECK: npu.dma_wait

// With `buffers=1` (the pipeline's switch: no multi-buffering anywhere) or a
// tiling of one buffer (written on the kernel's loops as `npu.buffers = 1`),
// each tile is loaded and waited for in place and each output tile stored
// and waited for in its iteration.
// SINGLE-LABEL: func.func @gemm
// SINGLE-NOT: memref<2x4x8xf32
// SINGLE: npu.dma_start
// SINGLE: npu.dma_wait
func.func @gemm(%x: tensor<8x32xf32>, %w: tensor<12x32xf32>) -> tensor<8x12xf32> {
  %out = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 8, 12, 32], tile = [1, 4, 4, 8], buffers = 2, sram_bytes = 0>} : (tensor<8x32xf32>, tensor<12x32xf32>) -> tensor<8x12xf32> {
  ^bb0(%a: tensor<8x32xf32>, %b: tensor<12x32xf32>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<8x32xf32>, tensor<12x32xf32> -> tensor<8x12xf32>
    npu.yield %m : tensor<8x12xf32>
  }
  return %out : tensor<8x12xf32>
}

// A bf16 GEMM accumulates in f32: the accumulator is one tile in VMEM,
// filled, accumulated over K and truncated into the bf16 output tile that is
// stored; no whole-size f32 buffer in HBM (the fused matmul's destination is
// a tile-size empty tensor, not a slice of a whole one), so nothing f32 is
// staged in or stored out.
// CHECK-LABEL: func.func @gemm_bf16
// CHECK-NOT: xf32, #npu.memory_space<hbm>>
// CHECK: memref.alloc() {{.*}} : memref<4x4xf32, #npu.memory_space<vmem>>
// CHECK-NOT: xf32, #npu.memory_space<hbm>>
// CHECK: return
func.func @gemm_bf16(%x: tensor<8x32xbf16>, %w: tensor<32x12xbf16>) -> tensor<8x12xbf16> {
  %out = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 8, 12, 32], tile = [1, 4, 4, 8], buffers = 2, sram_bytes = 0>} : (tensor<8x32xbf16>, tensor<32x12xbf16>) -> tensor<8x12xbf16> {
  ^bb0(%a: tensor<8x32xbf16>, %b: tensor<32x12xbf16>):
    %m = npu.matmul %a, %b : tensor<8x32xbf16>, tensor<32x12xbf16> -> tensor<8x12xbf16>
    npu.yield %m : tensor<8x12xbf16>
  }
  return %out : tensor<8x12xbf16>
}
