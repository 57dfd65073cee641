// RUN: npu-opt %s --npu-set-target="target=mock-gpu" --npu-verify-tiles --npu-estimate-cost | FileCheck %s

// A hand-tiled 128^3 GEMM on mock-gpu (4 SMs, 4.096 TFLOP/s bf16, 102.4 GB/s
// HBM, 409.6 GB/s L2 of 256 KiB, 1 us launch), priced by hand in
// docs/cost-model-gpu.md ("worked example"):
//   block 64x64, k-step 32, 3 stages: shared memory 3*(64*32*2 + 32*64*2)
//   = 24576 B, 128 threads x 64 registers: 2 blocks per SM (registers and
//   shared memory), 8 slots; grid 2x2 = 4 blocks: half a wave.
//   L2 requests per block 128*(64*2 + 64*2) + 64*64*2 = 40960 B; all of A,
//   B and C fit in L2: HBM reads 65536 B (cold misses), writes 32768 B;
//   hit rate 1 - 65536 / 163840 = 0.6.
//   A tail of 4 blocks, one per SM: compute 2*64*64*128 / 1024 = 1024 ns,
//   memory max(98304 / 102.4, 163840 / 409.6) = 960 ns: T = 1000 + 1024.

// CHECK-LABEL: func.func @gemm
// CHECK: npu.cost = #npu.cost<time_ns = 2.024000e+03, compute_ns = 1.024000e+03, memory_ns = 9.600000e+02, overhead_ns = 1.000000e+03, hbm_read_bytes = 65536, hbm_write_bytes = 32768, onchip_bytes = 163840, flops = 4194304, padded_flops = 4194304, bound = compute, matrix_utilization = 0.50592885375494068, l2_hit_rate = 6.000000e-01, waves = 5.000000e-01>
// CHECK-SAME: npu.grid = [#npu.grid<blocks = 4, threads = 128, blocks_per_sm = 2, full_waves = 0, wave_ns = 0.000000e+00, tail_blocks = 4, tail_ns = 1.024000e+03, fill_ns = 0.000000e+00>]
func.func @gemm(%x: tensor<128x128xbf16>, %w: tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  %0 = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 128, 128, 128], tile = [1, 64, 64, 32], buffers = 1, sram_bytes = 24576>} : (tensor<128x128xbf16>, tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  ^bb0(%a: tensor<128x128xbf16>, %b: tensor<128x128xbf16>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xbf16>
    npu.yield %m : tensor<128x128xbf16>
  }
  return %0 : tensor<128x128xbf16>
}
