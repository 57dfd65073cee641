// RUN: npu-opt %s --split-input-file --verify-diagnostics --npu-set-target="target=%S/Inputs/mock-gpu-cluster.json" --npu-verify-tiles --npu-estimate-cost | FileCheck %s

// The 128^3 GEMM of gpu-estimate-cost.mlir on mock-gpu-cluster (mock-gpu
// with clusters of up to 2 blocks and a 500 ns DRAM latency), arranged by
// hand as 1 x 2 clusters: TMA multicast reads each A tile once for the two
// blocks of its cluster row.
//   L2 requests per block: 128*(64*2/2 + 64*2) + 64*64*2 = 32768 B, 131072
//   in all (163840 without the cluster); HBM still reads A and B once:
//   65536 B; hit rate 1 - 65536 / 131072 = 0.5.
//   Two blocks per SM: the launch exposes the 500 ns latency once (fill).
//   A tail of 4 blocks: compute 1024 ns, memory max(98304 / 102.4,
//   131072 / 409.6) = 960 ns: T = 1000 + 500 + 1024 = 2524 ns.
// CHECK-LABEL: func.func @cluster
// CHECK: npu.cost = #npu.cost<time_ns = 2.524000e+03, compute_ns = 1.024000e+03, memory_ns = 9.600000e+02, overhead_ns = 1.500000e+03, hbm_read_bytes = 65536, hbm_write_bytes = 32768, onchip_bytes = 131072,
// CHECK-SAME: l2_hit_rate = 5.000000e-01
// CHECK-SAME: npu.grid = [#npu.grid<blocks = 4, threads = 128, blocks_per_sm = 2, full_waves = 0, wave_ns = 0.000000e+00, tail_blocks = 4, tail_ns = 1.024000e+03, fill_ns = 5.000000e+02>]
// CHECK-SAME: npu.launch = [#npu.launch<cluster_m = 1, cluster_n = 2, raster_group = 1>]
func.func @cluster(%x: tensor<128x128xbf16>, %w: tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  %0 = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 128, 128, 128], tile = [1, 64, 64, 32], buffers = 1, sram_bytes = 24576>, npu.launch = [#npu.launch<cluster_m = 1, cluster_n = 2, raster_group = 1>]} : (tensor<128x128xbf16>, tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  ^bb0(%a: tensor<128x128xbf16>, %b: tensor<128x128xbf16>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xbf16>
    npu.yield %m : tensor<128x128xbf16>
  }
  return %0 : tensor<128x128xbf16>
}

// -----

func.func @too_big(%x: tensor<128x128xbf16>, %w: tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  // expected-error @below {{npu-estimate-cost: 'npu.launch' element 0: a cluster of 2 x 2 blocks exceeds the target's gpu.max_cluster_blocks (2)}}
  %0 = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 128, 128, 128], tile = [1, 64, 64, 32], buffers = 1, sram_bytes = 24576>, npu.launch = [#npu.launch<cluster_m = 2, cluster_n = 2, raster_group = 1>]} : (tensor<128x128xbf16>, tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  ^bb0(%a: tensor<128x128xbf16>, %b: tensor<128x128xbf16>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xbf16>
    npu.yield %m : tensor<128x128xbf16>
  }
  return %0 : tensor<128x128xbf16>
}

// -----

// 192 columns in tiles of 64: 3 tile columns, which 2-wide clusters do not
// divide. CUDA launches whole clusters, so the grid is padded to 2 x 4 = 8
// blocks; the 2 extra ones are empty.
//   L2 requests: A once per cluster: 2 rows x 2 clusters x 128*64*2 = 65536;
//   B once per block: 6 x 16384 = 98304; C 6 x 8192 = 49152: 212992 B.
//   HBM: A 32768 + B 49152 = 81920 B read, C 49152 B written; hit rate
//   1 - 81920 / 212992 = 0.615.
//   One full wave of 8 slots: 2 blocks per SM, compute 2 x 1024 = 2048 ns;
//   memory max(131072 / 102.4, 212992 / 409.6) = 1280 ns; fill 500:
//   T = 1000 + 500 + 2048 = 3548 ns; compute_ns = 6 x 1048576 / 4096 = 1536.
// CHECK-LABEL: func.func @padded_grid
// CHECK: npu.cost = #npu.cost<time_ns = 3.548000e+03, compute_ns = 1.536000e+03, memory_ns = 1.280000e+03, overhead_ns = 2.012000e+03, hbm_read_bytes = 81920, hbm_write_bytes = 49152, onchip_bytes = 212992,
// CHECK-SAME: l2_hit_rate = 0.61538461538461542, waves = 1.000000e+00
// CHECK-SAME: npu.grid = [#npu.grid<blocks = 8, threads = 128, blocks_per_sm = 2, full_waves = 1, wave_ns = 2.048000e+03, tail_blocks = 0, tail_ns = 0.000000e+00, fill_ns = 5.000000e+02>]
func.func @padded_grid(%x: tensor<128x128xbf16>, %w: tensor<192x128xbf16>) -> tensor<128x192xbf16> {
  %0 = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 128, 192, 128], tile = [1, 64, 64, 32], buffers = 1, sram_bytes = 24576>, npu.launch = [#npu.launch<cluster_m = 1, cluster_n = 2, raster_group = 1>]} : (tensor<128x128xbf16>, tensor<192x128xbf16>) -> tensor<128x192xbf16> {
  ^bb0(%a: tensor<128x128xbf16>, %b: tensor<192x128xbf16>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<128x128xbf16>, tensor<192x128xbf16> -> tensor<128x192xbf16>
    npu.yield %m : tensor<128x192xbf16>
  }
  return %0 : tensor<128x192xbf16>
}

// -----

func.func @two_for_one(%x: tensor<128x128xbf16>, %w: tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  // expected-error @below {{npu-estimate-cost: 'npu.launch' has 2 elements, one per arranged launch, but this gemm kernel has 1}}
  %0 = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 128, 128, 128], tile = [1, 64, 64, 32], buffers = 1, sram_bytes = 24576>, npu.launch = [#npu.launch<cluster_m = 1, cluster_n = 1, raster_group = 1>, #npu.launch<cluster_m = 1, cluster_n = 1, raster_group = 1>]} : (tensor<128x128xbf16>, tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  ^bb0(%a: tensor<128x128xbf16>, %b: tensor<128x128xbf16>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xbf16>
    npu.yield %m : tensor<128x128xbf16>
  }
  return %0 : tensor<128x128xbf16>
}

// -----

// Decode attention (8 query heads on 2 KV heads, 4096 KV tokens, head dim
// 64) split by hand in two: each of the 2 blocks (4 query rows of one KV
// head) becomes 2 blocks of 32 KV tiles of 64 tokens.
//   L2 requests: Q 4 x 512 = 2048 B (each split reads its rows), K and V
//   2 x 4096 x 128 x 2 = 2097152 B, O 1024 B, f32 partials written and
//   read back: 4 blocks x 2 x 4 rows x (64 + 2) x 4 = 8448 B: 2108672 B.
//   One wave of 4 blocks, one per SM: HBM (2098176 + 1024) / 102.4 =
//   20500 ns bounds it (Little's law: 524800 B x 500 / 32768 B in flight =
//   8007 ns; compute 8192 ns), plus the first tiles' 500 ns; the combine
//   reads the partials back: fill 500 ns. T = 1000 + 500 + 21000 = 22500,
//   500 ns more than unsplit: split KV does not pay when HBM is the bound.
// CHECK-LABEL: func.func @split_decode
// CHECK: npu.cost = #npu.cost<time_ns = 2.250000e+04,
// CHECK-SAME: hbm_read_bytes = 2098176, hbm_write_bytes = 1024, onchip_bytes = 2108672,
// CHECK-SAME: npu.grid = [#npu.grid<blocks = 4, threads = 128, blocks_per_sm = 1, full_waves = 1, wave_ns = 2.100000e+04, tail_blocks = 0, tail_ns = 0.000000e+00, fill_ns = 5.000000e+02>]
// CHECK-SAME: npu.launch = [#npu.launch<cluster_m = 1, cluster_n = 1, raster_group = 1, kv_splits = 2>]
func.func @split_decode(%q: tensor<1x8x1x64xbf16>, %k: tensor<1x2x4096x64xbf16>, %v: tensor<1x2x4096x64xbf16>) -> tensor<1x8x1x64xbf16> {
  %0 = npu.kernel attention (%q, %k, %v) {npu.tiling = #npu.tiling<loops = [2, 1, 4096, 64, 1, 4096], tile = [1, 1, 64, 64, 1, 64], buffers = 1, sram_bytes = 33280>, npu.launch = [#npu.launch<cluster_m = 1, cluster_n = 1, raster_group = 1, kv_splits = 2>]} : (tensor<1x8x1x64xbf16>, tensor<1x2x4096x64xbf16>, tensor<1x2x4096x64xbf16>) -> tensor<1x8x1x64xbf16> {
  ^bb0(%a: tensor<1x8x1x64xbf16>, %b: tensor<1x2x4096x64xbf16>, %c: tensor<1x2x4096x64xbf16>):
    %o = npu.attention %a, %b, %c : tensor<1x8x1x64xbf16>, tensor<1x2x4096x64xbf16>, tensor<1x2x4096x64xbf16> -> tensor<1x8x1x64xbf16>
    npu.yield %o : tensor<1x8x1x64xbf16>
  }
  return %0 : tensor<1x8x1x64xbf16>
}

// -----

func.func @too_many_splits(%q: tensor<1x8x1x64xbf16>, %k: tensor<1x2x4096x64xbf16>, %v: tensor<1x2x4096x64xbf16>) -> tensor<1x8x1x64xbf16> {
  // expected-error @below {{npu-estimate-cost: 'npu.launch' element 0: kv_splits 128 exceeds the 64 KV tiles of the block that visits the fewest}}
  %0 = npu.kernel attention (%q, %k, %v) {npu.tiling = #npu.tiling<loops = [2, 1, 4096, 64, 1, 4096], tile = [1, 1, 64, 64, 1, 64], buffers = 1, sram_bytes = 33280>, npu.launch = [#npu.launch<cluster_m = 1, cluster_n = 1, raster_group = 1, kv_splits = 128>]} : (tensor<1x8x1x64xbf16>, tensor<1x2x4096x64xbf16>, tensor<1x2x4096x64xbf16>) -> tensor<1x8x1x64xbf16> {
  ^bb0(%a: tensor<1x8x1x64xbf16>, %b: tensor<1x2x4096x64xbf16>, %c: tensor<1x2x4096x64xbf16>):
    %o = npu.attention %a, %b, %c : tensor<1x8x1x64xbf16>, tensor<1x2x4096x64xbf16>, tensor<1x2x4096x64xbf16> -> tensor<1x8x1x64xbf16>
    npu.yield %o : tensor<1x8x1x64xbf16>
  }
  return %0 : tensor<1x8x1x64xbf16>
}

// -----

func.func @split_gemm(%x: tensor<128x128xbf16>, %w: tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  // expected-error @below {{npu-estimate-cost: 'npu.launch' element 0: kv_splits splits attention launches, not gemm}}
  %0 = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 128, 128, 128], tile = [1, 64, 64, 32], buffers = 1, sram_bytes = 24576>, npu.launch = [#npu.launch<cluster_m = 1, cluster_n = 1, raster_group = 1, kv_splits = 2>]} : (tensor<128x128xbf16>, tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  ^bb0(%a: tensor<128x128xbf16>, %b: tensor<128x128xbf16>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xbf16>
    npu.yield %m : tensor<128x128xbf16>
  }
  return %0 : tensor<128x128xbf16>
}
