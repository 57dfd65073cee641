// RUN: npu-opt %s --split-input-file --verify-diagnostics --npu-set-target="target=mock-tpu" --npu-tpu-verify-sram

// Hand-written VMEM plans, checked against mock-tpu (524288 bytes of VMEM per
// core). A valid plan: %c reuses the bytes of %a, which is dead by then.
#vmem = #npu.memory_space<vmem>
func.func @valid() {
  %a = memref.alloc() {npu.sram_offset = 0 : i64} : memref<32x32xf32, #vmem>
  %b = memref.alloc() {npu.sram_offset = 4096 : i64} : memref<32x32xf32, #vmem>
  linalg.copy ins(%a : memref<32x32xf32, #vmem>) outs(%b : memref<32x32xf32, #vmem>)
  %c = memref.alloc() {npu.sram_offset = 0 : i64} : memref<32x32xf32, #vmem>
  linalg.copy ins(%b : memref<32x32xf32, #vmem>) outs(%c : memref<32x32xf32, #vmem>)
  return
}

// -----

// Two buffers live at the same time share bytes [2048, 4096).
#vmem = #npu.memory_space<vmem>
func.func @overlap() {
  // expected-note @below {{overlapped buffer allocated here}}
  %a = memref.alloc() {npu.sram_offset = 0 : i64} : memref<32x32xf32, #vmem>
  // expected-error @below {{npu-tpu-verify-sram: VMEM buffer [2048, 6144) overlaps the live buffer [0, 4096)}}
  %b = memref.alloc() {npu.sram_offset = 2048 : i64} : memref<32x32xf32, #vmem>
  linalg.copy ins(%a : memref<32x32xf32, #vmem>) outs(%b : memref<32x32xf32, #vmem>)
  return
}

// -----

// Liveness follows uses into loops: %a is read in the loop, after %b is
// allocated in its body, so the two are live together.
#vmem = #npu.memory_space<vmem>
func.func @overlap_in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note @below {{overlapped buffer allocated here}}
  %a = memref.alloc() {npu.sram_offset = 0 : i64} : memref<16xf32, #vmem>
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @below {{VMEM buffer [32, 96) overlaps the live buffer [0, 64)}}
    %b = memref.alloc() {npu.sram_offset = 32 : i64} : memref<16xf32, #vmem>
    linalg.copy ins(%a : memref<16xf32, #vmem>) outs(%b : memref<16xf32, #vmem>)
  }
  return
}

// -----

// 128 x 1024 f32 is 524288 bytes: at offset 64 it ends past the capacity.
#vmem = #npu.memory_space<vmem>
func.func @exceeds() {
  // expected-error @below {{npu-tpu-verify-sram: VMEM buffer [64, 524352) of 524288 bytes exceeds the 524288 bytes of VMEM per core of 'mock-tpu'}}
  %a = memref.alloc() {npu.sram_offset = 64 : i64} : memref<128x1024xf32, #vmem>
  return
}

// -----

#vmem = #npu.memory_space<vmem>
func.func @unplanned() {
  // expected-error @below {{VMEM buffer has no 'npu.sram_offset' (run npu-tpu-plan-sram)}}
  %a = memref.alloc() : memref<8xf32, #vmem>
  return
}

// -----

#vmem = #npu.memory_space<vmem>
func.func @misaligned() {
  // expected-error @below {{offset 2 is not a non-negative multiple of the buffer's alignment (4 bytes)}}
  %a = memref.alloc() {npu.sram_offset = 2 : i64} : memref<8xf32, #vmem>
  return
}

// -----

#vmem = #npu.memory_space<vmem>
func.func @dynamic(%n: index) {
  // expected-error @below {{VMEM buffer must have a static shape}}
  %a = memref.alloc(%n) {npu.sram_offset = 0 : i64} : memref<?xf32, #vmem>
  return
}

// -----

// An element type without a byte size (a memref) is refused, not sized 0
// or by its elements.
#vmem = #npu.memory_space<vmem>
func.func @no_byte_size() {
  // expected-error @below {{VMEM buffer must have a static shape and an element type with a byte size}}
  %a = memref.alloc() {npu.sram_offset = 0 : i64} : memref<8xmemref<4xf32>, #vmem>
  return
}

// -----

// A vector element is sized whole: 8 x vector<4xf32> = 128 bytes, aligned
// to 16, so an offset of 8 is refused.
#vmem = #npu.memory_space<vmem>
func.func @vector_elements() {
  // expected-error @below {{offset 8 is not a non-negative multiple of the buffer's alignment (16 bytes)}}
  %a = memref.alloc() {npu.sram_offset = 8 : i64} : memref<8xvector<4xf32>, #vmem>
  return
}

// -----

#vmem = #npu.memory_space<vmem>
func.func private @callee()
func.func @call_while_live() {
  %cst = arith.constant 0.0 : f32
  // expected-note @below {{live buffer allocated here}}
  %a = memref.alloc() {npu.sram_offset = 0 : i64} : memref<8xf32, #vmem>
  // expected-error @below {{call while a VMEM buffer is live}}
  func.call @callee() : () -> ()
  linalg.fill ins(%cst : f32) outs(%a : memref<8xf32, #vmem>)
  return
}
