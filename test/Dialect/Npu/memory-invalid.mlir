// RUN: npu-opt %s --split-input-file --verify-diagnostics

// The DMA verifier.
func.func @same_space(%a: memref<4xf32, #npu.memory_space<vmem>>, %b: memref<4xf32, #npu.memory_space<vmem>>) {
  // expected-error @below {{moves data between #npu.memory_space<hbm> and #npu.memory_space<vmem>}}
  %t = npu.dma_start %a, %b : memref<4xf32, #npu.memory_space<vmem>>, memref<4xf32, #npu.memory_space<vmem>>
  return
}

// -----

func.func @shape(%a: memref<4xf32, #npu.memory_space<hbm>>, %b: memref<8xf32, #npu.memory_space<vmem>>) {
  // expected-error @below {{source and target sizes differ in dimension 0: 4 vs 8}}
  %t = npu.dma_start %a, %b : memref<4xf32, #npu.memory_space<hbm>>, memref<8xf32, #npu.memory_space<vmem>>
  return
}

// -----

func.func @element(%a: memref<4xf32, #npu.memory_space<hbm>>, %b: memref<4xbf16, #npu.memory_space<vmem>>) {
  // expected-error @below {{source and target element types differ}}
  %t = npu.dma_start %a, %b : memref<4xf32, #npu.memory_space<hbm>>, memref<4xbf16, #npu.memory_space<vmem>>
  return
}
