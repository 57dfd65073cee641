// RUN: npu-opt %s --split-input-file --verify-diagnostics --npu-tpu-chunk-loads | FileCheck %s

// A K step of a GEMM (the IR of npu-tpu-insert-dma, K tile 8) marked with
// 2 load chunks: each 4x8 tile load becomes two DMAs of 4x4 (K columns 0..3
// and 4..7, into the same VMEM buffer), and the matmul two matmuls over
// those K halves, the first after the first halves' waits only.
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[XH:[^:]+]]: memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>, %[[WH:[^:]+]]: memref<4x8xf32
// CHECK: %[[XB:.*]] = memref.alloc() : memref<4x8xf32, #npu.memory_space<vmem>>
// CHECK: %[[X0:.*]] = memref.subview %[[XB]][0, 0] [4, 4] [1, 1]
// CHECK: %[[TX0:.*]] = npu.dma_start %{{.*}}, %[[X0]] : memref<4x4xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>, memref<4x4xf32, strided<[8, 1]>, #npu.memory_space<vmem>>
// CHECK: %[[X1:.*]] = memref.subview %[[XB]][0, 4] [4, 4] [1, 1]
// CHECK: %[[TX1:.*]] = npu.dma_start %{{.*}}, %[[X1]]
// CHECK: %[[WB:.*]] = memref.alloc() : memref<4x8xf32, #npu.memory_space<vmem>>
// CHECK: %[[W0:.*]] = memref.subview %[[WB]][0, 0] [4, 4] [1, 1]
// CHECK: %[[TW0:.*]] = npu.dma_start %{{.*}}, %[[W0]]
// CHECK: %[[W1:.*]] = memref.subview %[[WB]][0, 4] [4, 4] [1, 1]
// CHECK: %[[TW1:.*]] = npu.dma_start %{{.*}}, %[[W1]]
// CHECK-NEXT: npu.dma_wait %[[TX0]]
// CHECK-NEXT: npu.dma_wait %[[TW0]]
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[X0]], %[[W0]] : {{.*}}) outs(%[[ACC:[^ ]+]] :
// CHECK: npu.dma_wait %[[TX1]]
// CHECK-NEXT: npu.dma_wait %[[TW1]]
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[X1]], %[[W1]] : {{.*}}) outs(%[[ACC]] :
// CHECK-NOT: npu.load_chunks
// CHECK-NOT: npu.dma_wait
// CHECK: return
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @step(%x: memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>, %w: memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>, %acc: memref<4x4xf32, #npu.memory_space<vmem>>) {
  %xb = memref.alloc() : memref<4x8xf32, #npu.memory_space<vmem>>
  %t0 = npu.dma_start %x, %xb : memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>, memref<4x8xf32, #npu.memory_space<vmem>>
  %wb = memref.alloc() : memref<4x8xf32, #npu.memory_space<vmem>>
  %t1 = npu.dma_start %w, %wb : memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>, memref<4x8xf32, #npu.memory_space<vmem>>
  npu.dma_wait %t0
  npu.dma_wait %t1
  linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xb, %wb : memref<4x8xf32, #npu.memory_space<vmem>>, memref<4x8xf32, #npu.memory_space<vmem>>) outs(%acc : memref<4x4xf32, #npu.memory_space<vmem>>) attrs = {npu.load_chunks = 2 : i64} {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An input computed on chip (here: passed in VMEM, no DMA) is only viewed
// in chunks; w's load is chunked; the x chunk views need no wait.
// CHECK-LABEL: func.func @on_chip_lhs
// CHECK: %[[TW0:.*]] = npu.dma_start
// CHECK: %[[TW1:.*]] = npu.dma_start
// CHECK: memref.subview %arg0[0, 0] [4, 4] [1, 1]
// CHECK: memref.subview %arg0[0, 4] [4, 4] [1, 1]
// CHECK-NEXT: npu.dma_wait %[[TW0]]
// CHECK-NEXT: linalg.generic
// CHECK: npu.dma_wait %[[TW1]]
// CHECK-NEXT: linalg.generic
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @on_chip_lhs(%xb: memref<4x8xf32, #npu.memory_space<vmem>>, %w: memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>, %acc: memref<4x4xf32, #npu.memory_space<vmem>>) {
  %wb = memref.alloc() : memref<4x8xf32, #npu.memory_space<vmem>>
  %t1 = npu.dma_start %w, %wb : memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>, memref<4x8xf32, #npu.memory_space<vmem>>
  npu.dma_wait %t1
  linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xb, %wb : memref<4x8xf32, #npu.memory_space<vmem>>, memref<4x8xf32, #npu.memory_space<vmem>>) outs(%acc : memref<4x4xf32, #npu.memory_space<vmem>>) attrs = {npu.load_chunks = 2 : i64} {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// One K step whose output tile is complete after it (npu.store_bands): the
// last K chunk's matmul runs in 2 row bands of the 4-row accumulator, each
// followed by its band of the epilogue (the bf16 cast) and its own store;
// the one store's wait waits for both.
// CHECK-LABEL: func.func @banded
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<4x4xf32, #npu.memory_space<vmem>>
// CHECK: linalg.generic {{.*}} ins({{.*}} : memref<4x4xbf16, strided<[8, 1]>, #npu.memory_space<vmem>>, memref<4x4xbf16, strided<[4, 1]>, #npu.memory_space<vmem>>) outs(%[[ACC]] :
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<4x4xbf16, #npu.memory_space<vmem>>
// CHECK: %[[A0:.*]] = memref.subview %[[ACC]][0, 0] [2, 4] [1, 1]
// CHECK: linalg.generic {{.*}} ins({{.*}} : memref<2x4xbf16, {{.*}}) outs(%[[A0]] :
// CHECK: memref.subview %[[OUT]][0, 0] [2, 4] [1, 1]
// CHECK: arith.truncf
// CHECK: %[[T0:.*]] = npu.dma_start %{{.*}}, %{{.*}} : memref<2x4xbf16, strided<[4, 1]>, #npu.memory_space<vmem>>, memref<2x4xbf16, strided<[12, 1], offset: ?>, #npu.memory_space<hbm>>
// CHECK: %[[A1:.*]] = memref.subview %[[ACC]][2, 0] [2, 4] [1, 1]
// CHECK: linalg.generic {{.*}} ins({{.*}} : memref<2x4xbf16, {{.*}}) outs(%[[A1]] :
// CHECK: memref.subview %[[OUT]][2, 0] [2, 4] [1, 1]
// CHECK: arith.truncf
// CHECK: %[[T1:.*]] = npu.dma_start
// CHECK-NEXT: npu.dma_wait %[[T0]]
// CHECK-NEXT: npu.dma_wait %[[T1]]
// CHECK-NEXT: return
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @banded(%xb: memref<4x8xbf16, #npu.memory_space<vmem>>, %wb: memref<8x4xbf16, #npu.memory_space<vmem>>, %y: memref<4x4xbf16, strided<[12, 1], offset: ?>, #npu.memory_space<hbm>>) {
  %acc = memref.alloc() : memref<4x4xf32, #npu.memory_space<vmem>>
  linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xb, %wb : memref<4x8xbf16, #npu.memory_space<vmem>>, memref<8x4xbf16, #npu.memory_space<vmem>>) outs(%acc : memref<4x4xf32, #npu.memory_space<vmem>>) attrs = {npu.load_chunks = 2 : i64, npu.store_bands = 2 : i64} {
  ^bb0(%a: bf16, %b: bf16, %o: f32):
    %ea = arith.extf %a : bf16 to f32
    %eb = arith.extf %b : bf16 to f32
    %m = arith.mulf %ea, %eb : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  %out = memref.alloc() : memref<4x4xbf16, #npu.memory_space<vmem>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<4x4xf32, #npu.memory_space<vmem>>) outs(%out : memref<4x4xbf16, #npu.memory_space<vmem>>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  }
  %tok = npu.dma_start %out, %y : memref<4x4xbf16, #npu.memory_space<vmem>>, memref<4x4xbf16, strided<[12, 1], offset: ?>, #npu.memory_space<hbm>>
  npu.dma_wait %tok
  return
}

// -----

// Row bands need the tile's store after the matmul, in its block.
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @no_store(%xb: memref<4x8xf32, #npu.memory_space<vmem>>, %wb: memref<8x4xf32, #npu.memory_space<vmem>>, %acc: memref<4x4xf32, #npu.memory_space<vmem>>) {
  // expected-error @below {{npu-tpu-chunk-loads: cannot store this matmul's output in 2 row bands: no store of the whole tile follows it in its block}}
  linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xb, %wb : memref<4x8xf32, #npu.memory_space<vmem>>, memref<8x4xf32, #npu.memory_space<vmem>>) outs(%acc : memref<4x4xf32, #npu.memory_space<vmem>>) attrs = {npu.load_chunks = 2 : i64, npu.store_bands = 2 : i64} {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A K that the chunks do not divide is an error at the matmul.
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @indivisible(%xb: memref<4x6xf32, #npu.memory_space<vmem>>, %wb: memref<4x6xf32, #npu.memory_space<vmem>>, %acc: memref<4x4xf32, #npu.memory_space<vmem>>) {
  // expected-error @below {{npu-tpu-chunk-loads: input #0 of type 'memref<4x6xf32, #npu.memory_space<vmem>>' cannot be split into 4 K chunks}}
  linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xb, %wb : memref<4x6xf32, #npu.memory_space<vmem>>, memref<4x6xf32, #npu.memory_space<vmem>>) outs(%acc : memref<4x4xf32, #npu.memory_space<vmem>>) attrs = {npu.load_chunks = 4 : i64} {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An element-wise op (no reduction loop) cannot be chunked along K.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @no_reduction(%a: memref<4x4xf32, #npu.memory_space<vmem>>, %o: memref<4x4xf32, #npu.memory_space<vmem>>) {
  // expected-error @below {{npu-tpu-chunk-loads: npu.load_chunks needs a matmul on buffers whose last loop is its reduction}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x4xf32, #npu.memory_space<vmem>>) outs(%o : memref<4x4xf32, #npu.memory_space<vmem>>) attrs = {npu.load_chunks = 2 : i64} {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

func.func @zero(%a: memref<4x4xf32>) {
  // expected-error @below {{'npu.load_chunks' must be an integer >= 1, got 0 : i64}}
  memref.copy %a, %a {npu.load_chunks = 0 : i64} : memref<4x4xf32> to memref<4x4xf32>
  return
}
