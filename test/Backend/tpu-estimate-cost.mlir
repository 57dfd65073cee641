// RUN: npu-opt %s --npu-set-target="target=mock-tpu" --npu-verify-tiles --npu-estimate-cost | FileCheck %s

// A hand-tiled GEMM on mock-tpu (16x16 matrix unit, 4.096 TFLOP/s bf16,
// 102.4 GB/s, 2 DMA engines with 100 ns setup, 50 ns per grid step), priced
// by hand in docs/cost-model-tpu.md ("worked example"):
//   M = 64, N = 64, K = 128, tile 32 x 64 x 128: 2 grid steps on one core,
//   each loading its A tile; B is one block whole, loaded once before the
//   loops and held: A 16384 B (2 DMAs), B 16384 B (1 DMA).
//   per step: matrix 2*32*64*128 / 4096 = 128 ns, + 50 ns step overhead;
//             in  16384 A / 2 / 102.4 = 80 ns + 100 * (2/2) / 2 = 130 ns
//             out 8192 / 2 / 102.4 = 40 ns + 100 * (2/2) / 2 = 50 ns
//   fill: the first A tile and B, (32*128 + 128*64) * 2 = 24576 / 102.4
//             = 240 ns + 100 * 2 / 2 setup = 340 ns; drain: the last C tile, 90 ns
//   period max(178, 130 + 90) = 220; T = 340 + 178 + 90 + (2 - 1) * 220 = 828 ns
//   compute 2 * 128 = 256 ns, memory 40960 / 102.4 = 400 ns, overhead 428 ns
//   SRAM 2*(32*128*2 + 128*64*2) + 32*64*4 + 2*32*64*2 = 65536 bytes (the
//   model double-buffers B; the lowering holds one copy: 49152)
//   utilization 2*64*64*128 / (828 ns * 4096 FLOP/ns) = 0.309

// CHECK-LABEL: func.func @gemm
// CHECK: npu.kernel
// CHECK-SAME: npu.cost = #npu.cost<time_ns = 8.280000e+02, compute_ns = 2.560000e+02, memory_ns = 4.000000e+02, overhead_ns = 4.280000e+02, hbm_read_bytes = 32768, hbm_write_bytes = 8192, onchip_bytes = 65536, flops = 1048576, padded_flops = 1048576, bound = overhead, matrix_utilization = 0.30917874396135264>
func.func @gemm(%x: tensor<64x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<64x64xbf16> {
  %0 = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 64, 64, 128], tile = [1, 32, 64, 128], buffers = 2, sram_bytes = 65536>} : (tensor<64x128xbf16>, tensor<64x128xbf16>) -> tensor<64x64xbf16> {
  ^bb0(%a: tensor<64x128xbf16>, %b: tensor<64x128xbf16>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xbf16>
    npu.yield %m : tensor<64x64xbf16>
  }
  return %0 : tensor<64x64xbf16>
}
