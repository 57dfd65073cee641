// RUN: npu-opt %s --split-input-file --npu-set-target="target=h100" --npu-decide-fusion --npu-form-kernels --npu-decide-tiles | FileCheck %s

// npu-decide-tiles arranges each GEMM and attention launch on a GPU-like target
// (docs/cost-model-gpu.md, "Clusters, multicast and raster order").
// A 4096^3 bf16 GEMM on h100 (989.4 TFLOP/s quoted at 1.83 GHz, 732 TFLOP/s
// at its calibrated matrix clock of 1.354 GHz: 5546 FLOP/ns per SM; L2 9.9
// TB/s; shared memory 128 B per clock, 173 B/ns per SM; clusters of up to 8
// blocks). In 64 x 64 blocks, per k a block computes 2*64*64 = 8192 FLOP and
// its MMAs read 64*2 + 64*2 = 256 B of A and B from shared memory (32 FLOP/B:
// 173 B/ns, just the SM's rate). From L2 it would read the same 256 B (23
// TB/s at the sustained rate: L2-bound); in clusters of 2 x 4 it reads
// 128/4 + 128/2 = 96 B (85 FLOP/B: 8.6 TB/s, under 9.9): compute-bound, in
// 4096 blocks for a fine last wave. Raster groups of 16 cluster rows give
// the first wave the least A and B.
// CHECK-LABEL: func.func @gemm
// CHECK: npu.launch = [#npu.launch<cluster_m = 2, cluster_n = 4, raster_group = 16>]
// CHECK-SAME: tile = [1, 64, 64, 32]
func.func @gemm(%x: tensor<4096x4096xbf16>, %w: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %0 = npu.matmul %x, %w transpose_rhs : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
  return %0 : tensor<4096x4096xbf16>
}

// -----

// A gated MLP runs as two GEMM launches: two arrangements.
// CHECK-LABEL: func.func @mlp
// CHECK: npu.kernel gated_mlp
// CHECK-SAME: npu.launch = [#npu.launch<{{[^>]*}}>, #npu.launch<{{[^>]*}}>]
func.func @mlp(%x: tensor<256x1024xbf16>, %wg: tensor<4096x1024xbf16>, %wu: tensor<4096x1024xbf16>, %wd: tensor<1024x4096xbf16>) -> tensor<256x1024xbf16> {
  %g = npu.matmul %x, %wg transpose_rhs : tensor<256x1024xbf16>, tensor<4096x1024xbf16> -> tensor<256x4096xbf16>
  %u = npu.matmul %x, %wu transpose_rhs : tensor<256x1024xbf16>, tensor<4096x1024xbf16> -> tensor<256x4096xbf16>
  %s = npu.swiglu %g, %u : tensor<256x4096xbf16>
  %d = npu.matmul %s, %wd transpose_rhs : tensor<256x4096xbf16>, tensor<1024x4096xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// Decode attention on h100: 2 KV heads give 2 blocks for 132 SMs, each
// streaming 1 MiB of K and V. Even with 128-token tiles (2 stages x 128 x
// 128 x 2 B = 64 KiB in flight) Little's law holds a block to 1 MiB x
// 374 ns / 64 KiB = 6 us, ten times HBM's 2 MiB / 3.35 TB/s. Split 64 ways
// (128 blocks of 2 KV tiles of 32 tokens), HBM, the latency and the launch
// bound it (3.4 us in all).
// CHECK-LABEL: func.func @decode
// CHECK: npu.launch = [#npu.launch<cluster_m = 1, cluster_n = 1, raster_group = 1, kv_splits = 64>]
func.func @decode(%q: tensor<1x8x1x64xbf16>, %k: tensor<1x2x4096x64xbf16>, %v: tensor<1x2x4096x64xbf16>) -> tensor<1x8x1x64xbf16> {
  %o = npu.attention %q, %k, %v : tensor<1x8x1x64xbf16>, tensor<1x2x4096x64xbf16>, tensor<1x2x4096x64xbf16> -> tensor<1x8x1x64xbf16>
  return %o : tensor<1x8x1x64xbf16>
}

// -----

// Streams have no launch to arrange.
// CHECK-LABEL: func.func @stream
// CHECK-NOT: npu.launch
func.func @stream(%x: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %0 = npu.silu %x : tensor<4096x4096xbf16>
  return %0 : tensor<4096x4096xbf16>
}

// -----

// A hand-written arrangement is kept.
// CHECK-LABEL: func.func @kept
// CHECK: npu.launch = [#npu.launch<cluster_m = 1, cluster_n = 1, raster_group = 1>]
func.func @kept(%x: tensor<4096x4096xbf16>, %w: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %0 = npu.kernel gemm (%x, %w) {npu.launch = [#npu.launch<cluster_m = 1, cluster_n = 1, raster_group = 1>]} : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  ^bb0(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
    npu.yield %m : tensor<4096x4096xbf16>
  }
  return %0 : tensor<4096x4096xbf16>
}
