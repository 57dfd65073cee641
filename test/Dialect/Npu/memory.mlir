// RUN: npu-opt %s | npu-opt | FileCheck %s

// Round trip of the memory spaces and the DMA ops.
// CHECK-LABEL: func.func @dma
// CHECK: %[[T:.*]] = npu.dma_start %{{.*}}, %{{.*}} : memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>, memref<4x8xf32, #npu.memory_space<vmem>>
// CHECK: npu.dma_wait %[[T]]
// CHECK: %[[U:.*]] = npu.dma_start %{{.*}}, %{{.*}} if %{{.*}} : memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>, memref<4x8xf32, #npu.memory_space<vmem>>
// CHECK: npu.dma_wait %[[U]]
func.func @dma(%x: memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>, %b: memref<4x8xf32, #npu.memory_space<vmem>>) {
  %t = npu.dma_start %x, %b : memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>, memref<4x8xf32, #npu.memory_space<vmem>>
  npu.dma_wait %t
  %p = arith.constant true
  %u = npu.dma_start %x, %b if %p : memref<4x8xf32, strided<[16, 1], offset: ?>, #npu.memory_space<hbm>>, memref<4x8xf32, #npu.memory_space<vmem>>
  npu.dma_wait %u
  return
}
