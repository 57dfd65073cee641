// RUN: npu-opt %s --canonicalize | FileCheck %s

// A DMA predicated on the constant true is an unpredicated DMA; any other
// predicate is kept (false still yields a token its wait completes at once).
// CHECK-LABEL: func.func @predicates
// CHECK: %[[A:.*]] = npu.dma_start %{{.*}}, %{{.*}} : memref
// CHECK: %[[B:.*]] = npu.dma_start %{{.*}}, %{{.*}} if %{{.*}} : memref
// CHECK: %[[C:.*]] = npu.dma_start %{{.*}}, %{{.*}} if %false : memref
func.func @predicates(%x: memref<4x8xf32, #npu.memory_space<hbm>>, %b: memref<4x8xf32, #npu.memory_space<vmem>>, %p: i1) {
  %true = arith.constant true
  %false = arith.constant false
  %a = npu.dma_start %x, %b if %true : memref<4x8xf32, #npu.memory_space<hbm>>, memref<4x8xf32, #npu.memory_space<vmem>>
  npu.dma_wait %a
  %t = npu.dma_start %x, %b if %p : memref<4x8xf32, #npu.memory_space<hbm>>, memref<4x8xf32, #npu.memory_space<vmem>>
  npu.dma_wait %t
  %f = npu.dma_start %x, %b if %false : memref<4x8xf32, #npu.memory_space<hbm>>, memref<4x8xf32, #npu.memory_space<vmem>>
  npu.dma_wait %f
  return
}
