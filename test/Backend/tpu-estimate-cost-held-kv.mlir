// RUN: npu-opt %s --npu-set-target="target=mock-tpu" --npu-verify-tiles --npu-estimate-cost | FileCheck %s

// Causal attention with a held K/V prefix on mock-tpu (one core, 16x16
// matrix unit, 4.096 TFLOP/s bf16, 256 vector FLOP/ns, 102.4 GB/s, 2 DMA
// engines with 100 ns setup, 50 ns per grid step), priced by hand with the
// equations of docs/cost-model-tpu.md ("attention"):
//   one head, Sq = Skv = 64, d = 16, bf16; query blocks of 16 (one sub-tile
//   each), K/V tiles of 16, the first 32 keys held (tile #5 = 32).
//   visited pairs 1 + 2 + 3 + 4 = 10; streamed (K/V tile 2 on): blocks 2
//   and 3 visit tiles 2 and 2..3: S = 3; grid steps N = 4 blocks + 3 = 7.
//   reads: Q 64*16*2 = 2048 B in 4 DMAs; K/V (32 held + 3 * 16) rows * 32
//   * 2 = 5120 B in 2 + 3 * 2 = 8 DMAs: R = 7168 B, 12 DMAs.
//   writes: O 2048 B in 4 DMAs.
//   compute per pair: vector 16 * (4*16 + 16 + 3) = 1328 FLOP (the
//   bound: matrix 16384 / 4096 = 4 ns, exp 16 * 17 / 64 = 4.25 ns), and
//   the normalization 64 * 16: (10 * 1328 + 1024) / 256 / 7 = 7.982 ns.
//   stage s = 7.982 + 50 = 57.982 ns
//   in  i = 7168 / 7 / 102.4 + 100 * 12 / 7 / 2 = 10 + 85.714 = 95.714 ns
//   out o = 2048 / 7 / 102.4 + 100 * 4 / 7 / 2 = 2.857 + 28.571 = 31.429 ns
//   fill: block 0's Q and the 32 held keys, (16*16 + 32*32) * 2 = 2560 B:
//         25 + 85.714 = 110.714 ns; drain: the last block's O, 512 B:
//         5 + 28.571 = 33.571 ns
// One buffer: p = s + i + o = 185.125 ns; T = 110.714 + 57.982 + 33.571 +
//   6 * 185.125 = 1313.018 ns. SRAM: Q 512 + K/V (32 + 16) * 32 * 2 = 3072
//   + f32 output 1024 + max/sum 128 + scores 16 * (16 + 3) * 4 = 1216
//   = 5952 B; the bf16 output is staged where the block's Q was (512 B,
//   dead by then).
// CHECK-LABEL: func.func @held_one_buffer
// CHECK: npu.cost = #npu.cost<time_ns = 1313.0178571428571, compute_ns = 5.587500e+01, memory_ns = 9.000000e+01, overhead_ns = 1223.0178571428571, hbm_read_bytes = 7168, hbm_write_bytes = 2048, onchip_bytes = 5952, flops = {{[0-9]+}}, padded_flops = 163840,
func.func @held_one_buffer(%q: tensor<1x1x64x16xbf16>, %k: tensor<1x1x64x16xbf16>, %v: tensor<1x1x64x16xbf16>) -> tensor<1x1x64x16xbf16> {
  %0 = npu.kernel attention (%q, %k, %v) {npu.tiling = #npu.tiling<loops = [1, 64, 64, 16, 64, 64], tile = [1, 16, 16, 16, 16, 32], buffers = 1, sram_bytes = 5952>} : (tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>) -> tensor<1x1x64x16xbf16> {
  ^bb0(%a: tensor<1x1x64x16xbf16>, %b: tensor<1x1x64x16xbf16>, %c: tensor<1x1x64x16xbf16>):
    %o = npu.attention %a, %b, %c causal : tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16> -> tensor<1x1x64x16xbf16>
    npu.yield %o : tensor<1x1x64x16xbf16>
  }
  return %0 : tensor<1x1x64x16xbf16>
}

// Two buffers: p = max(s, i + o) = 127.143 ns. The two blocks that stream
// (2 and 3) each wait for their first streamed K/V tile (the fill held the
// prefix, and a causal KV range is a run-time trip count: no hand-off):
// 2 refills of 16 * 32 * 2 = 1024 B + 2 DMAs, 10 + 100 = 110 ns each; the
// step before each refill prefetches nothing and takes max(s, o) = 57.982
// instead of p (69.161 ns less each).
// T = 110.714 + 57.982 + 33.571 + 6 * 127.143 + 2 * (110 - 69.161)
//   = 1046.804 ns.
// SRAM: Q, K/V and output staging twice: 5952 + 512 + 512 + 3072 + 512 =
// 10560 B.
// CHECK-LABEL: func.func @held_two_buffers
// CHECK: npu.cost = #npu.cost<time_ns = 1046.8035714285716, compute_ns = 5.587500e+01, memory_ns = 9.000000e+01, overhead_ns = 956.80357142857156, hbm_read_bytes = 7168, hbm_write_bytes = 2048, onchip_bytes = 10560,
func.func @held_two_buffers(%q: tensor<1x1x64x16xbf16>, %k: tensor<1x1x64x16xbf16>, %v: tensor<1x1x64x16xbf16>) -> tensor<1x1x64x16xbf16> {
  %0 = npu.kernel attention (%q, %k, %v) {npu.tiling = #npu.tiling<loops = [1, 64, 64, 16, 64, 64], tile = [1, 16, 16, 16, 16, 32], buffers = 2, sram_bytes = 10560>} : (tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>) -> tensor<1x1x64x16xbf16> {
  ^bb0(%a: tensor<1x1x64x16xbf16>, %b: tensor<1x1x64x16xbf16>, %c: tensor<1x1x64x16xbf16>):
    %o = npu.attention %a, %b, %c causal : tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16> -> tensor<1x1x64x16xbf16>
    npu.yield %o : tensor<1x1x64x16xbf16>
  }
  return %0 : tensor<1x1x64x16xbf16>
}
