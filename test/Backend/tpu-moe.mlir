// RUN: npu-opt %s --npu-set-target="target=mock-tpu" --npu-form-kernels --npu-decide-tiles --npu-verify-tiles --npu-estimate-cost | FileCheck %s

// An MoE layer on mock-tpu: 64 tokens, 2 of 8 experts each (F = 128), and a
// shared expert (F = 256), D = 256, bf16. The uniform load expects all 8
// experts active with 64 x 2 / 8 = 16 rows each (the routed loops [16, 128,
// 256]); the shared expert runs over all 64 tokens and gets its own tile,
// recorded as shared_tile; sram_bytes is the larger working set of the two.
//
// HBM traffic as npu-tile-kernels lowers it (TileMoe.cpp):
//   routed, per expert (x 8): 16 gathered rows of x (16 x 256 x 2 = 8192),
//     its three weights once (3 x 128 x 256 x 2 = 196608), its 16 output
//     rows, rounded to bf16, stored one copy each at their assignments'
//     rows (16 x 256 x 2 = 8192)
//   per tile of tokens: the shared expert on x (64 x 256 x 2 = 32768 in
//     all, its weights 3 x 256 x 256 x 2 = 393216 once per tile: one tile),
//     the 64 x 2 routed rows of each token read back as blocks (128 x 256
//     x 2 = 65536), the result tile written in bf16 (64 x 256 x 2 = 32768)
//   the dispatch's arrays (A = 64 x 2 = 128 assignments) as the lowering
//     moves them in bulk: the i64 indices loaded on chip for the count
//     pass (128 x 8 = 1024) and the bf16 routing weights for the combine
//     (128 x 2 = 256); `order` stays
//     on chip: its 128 keys, padded to 128, need 128 x 32 = 4096 bytes, far
//     under the kernel's working set, so a bitonic sort puts them in order
//     (moeDispatchSorts; the scalar unit's scatter would have ranked the
//     indices loaded again, 1024 more read, and stored the order to HBM
//     first, 128 x 8 = 1024 more written)
// read  = 8 x (8192 + 196608) + 32768 + 393216 + 65536 + 1024 + 256
//       = 2131200
// write = 8 x 8192 + 32768 = 98304
// CHECK-LABEL: func.func @moe_shared
// CHECK: npu.kernel moe_ffn
// CHECK-SAME: hbm_read_bytes = 2131200, hbm_write_bytes = 98304
// (D whole or in chunks: the traffic is the same, and the less SRAM wins a
// tie.)
// CHECK-SAME: npu.tiling = #npu.tiling<loops = [16, 128, 256], tile = [16, {{[0-9]+}}, {{128|256}}], buffers = 2, sram_bytes = {{[0-9]+}}, shared_tile = [{{[0-9]+}}, {{[0-9]+}}, {{128|256}}]>
func.func @moe_shared(%x: tensor<64x256xbf16>, %idx: tensor<64x2xi64>, %w: tensor<64x2xbf16>, %wg: tensor<8x128x256xbf16>, %wu: tensor<8x128x256xbf16>, %wd: tensor<8x256x128xbf16>, %sg: tensor<256x256xbf16>, %su: tensor<256x256xbf16>, %sd: tensor<256x256xbf16>) -> tensor<64x256xbf16> {
  %y = npu.moe_experts %x, %idx, %w, %wg, %wu, %wd shared(%sg, %su, %sd) load(#npu.expert_load<uniform>) : tensor<64x256xbf16>, tensor<64x2xi64>, tensor<64x2xbf16>, tensor<8x128x256xbf16>, tensor<8x128x256xbf16>, tensor<8x256x128xbf16>, tensor<256x256xbf16>, tensor<256x256xbf16>, tensor<256x256xbf16> -> tensor<64x256xbf16>
  return %y : tensor<64x256xbf16>
}
