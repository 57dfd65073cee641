// RUN: npu-opt %s --npu-set-target="target=mock-tpu" --npu-verify-tiles --npu-tpu-estimate-cost | FileCheck %s

// A hand-tiled GEMM on mock-tpu (16x16 matrix unit, 4.096 TFLOP/s bf16,
// 102.4 GB/s, 2 DMA engines with 100 ns setup, 50 ns per grid step), priced
// by hand in docs/cost-model-tpu.md ("worked example"):
//   M = 64, N = 64, K = 128, tile 32 x 64 x 128: 2 grid steps on one core.
//   per step: matrix 2*32*64*128 / 4096 = 128 ns, + 50 ns step overhead;
//             in  (16384 A + 16384 B) / 2 / 102.4 = 160 ns + 100 * (3/2) / 2 = 235 ns
//             out 8192 / 2 / 102.4 = 40 ns + 100 * (2/2) / 2 = 50 ns
//   fill: the first A and B tiles, (32*128 + 128*64) * 2 = 24576 / 102.4
//             = 240 ns + 75 ns setup = 315 ns; drain: the last C tile, 90 ns
//   period max(178, 235 + 90) = 325; T = 315 + 178 + 90 + (2 - 1) * 325 = 908 ns
//   compute 2 * 128 = 256 ns, memory 40960 / 102.4 = 400 ns, overhead 508 ns
//   SRAM 2*(32*128*2 + 128*64*2) + 32*64*4 + 2*32*64*2 = 65536 bytes
//   utilization 2*64*64*128 / (908 ns * 4096 FLOP/ns) = 0.282

// CHECK-LABEL: func.func @gemm
// CHECK: npu.kernel
// CHECK-SAME: npu.cost = #npu.cost<time_ns = 9.080000e+02, compute_ns = 2.560000e+02, memory_ns = 4.000000e+02, overhead_ns = 5.080000e+02, hbm_read_bytes = 32768, hbm_write_bytes = 8192, onchip_bytes = 65536, flops = 1048576, padded_flops = 1048576, bound = overhead, matrix_utilization = 0.28193832599118945>
func.func @gemm(%x: tensor<64x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<64x64xbf16> {
  %0 = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 64, 64, 128], tile = [1, 32, 64, 128], buffers = 2, sram_bytes = 65536>} : (tensor<64x128xbf16>, tensor<64x128xbf16>) -> tensor<64x64xbf16> {
  ^bb0(%a: tensor<64x128xbf16>, %b: tensor<64x128xbf16>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xbf16>
    npu.yield %m : tensor<64x64xbf16>
  }
  return %0 : tensor<64x64xbf16>
}
