// RUN: npu-opt %s --split-input-file --npu-tpu-plan-sram | FileCheck %s
// RUN: npu-opt %s --split-input-file --npu-set-target="target=mock-tpu" --npu-tpu-plan-sram --npu-tpu-verify-sram

// First fit in order of first use: %c (4096 B) goes where %a was, since %a
// is dead once %b is written; %d must avoid %b and %c, which are live.
#vmem = #npu.memory_space<vmem>
// CHECK-LABEL: func.func @reuse
// CHECK-SAME: npu.sram_peak = 9216 : i64
func.func @reuse() {
  // CHECK: memref.alloc() {npu.sram_offset = 0 : i64} : memref<32x32xf32
  %a = memref.alloc() : memref<32x32xf32, #vmem>
  // CHECK: memref.alloc() {npu.sram_offset = 4096 : i64} : memref<32x32xf32
  %b = memref.alloc() : memref<32x32xf32, #vmem>
  linalg.copy ins(%a : memref<32x32xf32, #vmem>) outs(%b : memref<32x32xf32, #vmem>)
  // CHECK: memref.alloc() {npu.sram_offset = 0 : i64} : memref<32x32xf32
  %c = memref.alloc() : memref<32x32xf32, #vmem>
  // CHECK: memref.alloc() {npu.sram_offset = 8192 : i64} : memref<16x16xf32
  %d = memref.alloc() : memref<16x16xf32, #vmem>
  linalg.copy ins(%b : memref<32x32xf32, #vmem>) outs(%c : memref<32x32xf32, #vmem>)
  %sub = memref.subview %c[0, 0] [16, 16] [1, 1] : memref<32x32xf32, #vmem> to memref<16x16xf32, strided<[32, 1]>, #vmem>
  linalg.copy ins(%sub : memref<16x16xf32, strided<[32, 1]>, #vmem>) outs(%d : memref<16x16xf32, #vmem>)
  return
}

// -----

// A buffer used in a loop is live for the whole loop; buffers of one loop
// body are live within an iteration, so the body's second buffer reuses the
// first one's bytes once it is dead. HBM buffers are not planned.
#vmem = #npu.memory_space<vmem>
#hbm = #npu.memory_space<hbm>
// CHECK-LABEL: func.func @loop
// CHECK-SAME: npu.sram_peak = 192 : i64
func.func @loop(%x: memref<16xf32, #hbm>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: memref.alloc() {npu.sram_offset = 0 : i64} : memref<16xf32
  %acc = memref.alloc() : memref<16xf32, #vmem>
  scf.for %i = %c0 to %n step %c1 {
    // CHECK: memref.alloc() {npu.sram_offset = 64 : i64}
    %t = memref.alloc() : memref<16xf32, #vmem>
    %tok = npu.dma_start %x, %t : memref<16xf32, #hbm>, memref<16xf32, #vmem>
    npu.dma_wait %tok
    // CHECK: memref.alloc() {npu.sram_offset = 128 : i64}
    %u = memref.alloc() : memref<16xf32, #vmem>
    linalg.copy ins(%t : memref<16xf32, #vmem>) outs(%u : memref<16xf32, #vmem>)
    // CHECK: memref.alloc() {npu.sram_offset = 64 : i64}
    %v = memref.alloc() : memref<16xf32, #vmem>
    linalg.copy ins(%u : memref<16xf32, #vmem>) outs(%v : memref<16xf32, #vmem>)
    linalg.copy ins(%v : memref<16xf32, #vmem>) outs(%acc : memref<16xf32, #vmem>)
  }
  // The DMA out keeps %acc live until its wait.
  %tok = npu.dma_start %acc, %x : memref<16xf32, #vmem>, memref<16xf32, #hbm>
  // CHECK: memref.alloc() {npu.sram_offset = 64 : i64}
  %w = memref.alloc() : memref<16xf32, #vmem>
  npu.dma_wait %tok
  linalg.copy ins(%w : memref<16xf32, #vmem>) outs(%w : memref<16xf32, #vmem>)
  return
}
