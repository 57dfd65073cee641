// RUN: npu-opt %s --split-input-file --verify-diagnostics --npu-set-target="target=mock-tpu" --npu-form-kernels --npu-decide-tiles --npu-verify-tiles | FileCheck %s

// On mock-tpu (16x16 matrix unit, 512 KiB SRAM, 102.4 B/ns) a 256^3 GEMM:
// 4 steps of 64 rows with the whole of B resident (read once), each step's
// A and B loads in 16 K chunks of one matrix-unit pass (16): compute starts
// when the first chunks (1/16 of 160 KiB: 100 ns) are in, and each later
// chunk arrives before the previous one's compute ends (128 ns). 8.92 us:
// fill 100 + 62.5 (DMA setup) + 4 steps of 2048 + 50 + drain 370 ns.
// Without chunks the first step waits for all of B (128 KiB, 1.28 us) and
// the search took tiles of 128^3 (9.68 us).
// CHECK-LABEL: func.func @gemm
// CHECK: npu.tiling = #npu.tiling<loops = [1, 256, 256, 256], tile = [1, 64, 256, 256], buffers = 2, sram_bytes = 458752, chunks = 16>
func.func @gemm(%x: tensor<256x256xbf16>, %w: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = npu.matmul %x, %w : tensor<256x256xbf16>, tensor<256x256xbf16> -> tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}

// -----

// A hand-written tile is kept.
// CHECK-LABEL: func.func @kept
// CHECK: tile = [1, 64, 64, 128]
func.func @kept(%x: tensor<64x128xbf16>, %w: tensor<128x64xbf16>) -> tensor<64x64xbf16> {
  %0 = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 64, 64, 128], tile = [1, 64, 64, 128], buffers = 2, sram_bytes = 98304>} : (tensor<64x128xbf16>, tensor<128x64xbf16>) -> tensor<64x64xbf16> {
  ^bb0(%a: tensor<64x128xbf16>, %b: tensor<128x64xbf16>):
    %m = npu.matmul %a, %b : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xbf16>
    npu.yield %m : tensor<64x64xbf16>
  }
  return %0 : tensor<64x64xbf16>
}

// -----

// Rows of 2^20 elements: even 8 rows do not fit in 512 KiB, with one buffer
// or two.
func.func @no_fit(%x: tensor<8x1048576xbf16>) -> tensor<8x1048576xbf16> {
  // expected-error @below {{no tile of this stream kernel fits in the 524288 bytes of SRAM per core of 'mock-tpu' (loops [8, 1048576])}}
  %0 = npu.softmax %x : tensor<8x1048576xbf16> -> tensor<8x1048576xbf16>
  return %0 : tensor<8x1048576xbf16>
}
