// RUN: npu-opt %s --split-input-file --verify-diagnostics --npu-set-target="target=mock-tpu" --npu-form-kernels --npu-decide-tiles --npu-verify-tiles | FileCheck %s

// On mock-tpu (16x16 matrix unit, 512 KiB SRAM, 102.4 B/ns) a 256^3 GEMM:
// 2 x 2 output tiles of 128^3 in one K step each (4 steps of 2048 ns of
// compute), each step loading its A and B tiles (128 KiB) in 4 K chunks:
// compute starts when the first chunks (32 KiB: 320 ns) are in, and each
// later chunk arrives before the previous one's compute ends (512 ns).
// The output tile leaves in 4 row bands as the last chunk computes them.
// 9.25 us: fill 320 + 100 (DMA setup) + a step of 2048 + 50, 3 periods of
// 2200 (a step's loads, 1280 + 400 of setup, and its 4 band stores, 320 +
// 200, outlast its 2098 of compute), drain 80 + 50 (the last band). The
// unchunked first step would wait for all 128 KiB (1.28 us).
// CHECK-LABEL: func.func @gemm
// CHECK: npu.tiling = #npu.tiling<loops = [1, 256, 256, 256], tile = [1, 128, 128, 256], buffers = 2, sram_bytes = 393216, chunks = 4>
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
