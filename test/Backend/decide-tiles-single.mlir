// RUN: npu-opt %s --npu-set-target="target=tpu-v7" --npu-form-kernels --npu-decide-tiles --npu-verify-tiles --npu-tpu-estimate-cost | FileCheck %s

// DeepSeek-V3's embedding gather of 4096 rows of 7168 bf16 on tpu-v7 (2
// cores of 64 MiB): a tile of 2048 rows, one per core, needs 56 MiB with one
// buffer (28676 B per row: 7168 bf16 in and out, and its id) and does not
// fit with two. One
// step per core has no next tile to overlap, so one buffer is the fastest
// tile (fill, one step, drain), ahead of 1024-row tiles double-buffered
// (two steps per core: one more step overhead).
// CHECK-LABEL: func.func @embedding
// CHECK: npu.tiling = #npu.tiling<loops = [4096, 7168], tile = [2048, 7168], buffers = 1, sram_bytes = 58730496>
func.func @embedding(%t: tensor<129280x7168xbf16>, %ids: tensor<4096xi32>) -> tensor<4096x7168xbf16> {
  %0 = npu.embedding %t, %ids : tensor<129280x7168xbf16>, tensor<4096xi32> -> tensor<4096x7168xbf16>
  return %0 : tensor<4096x7168xbf16>
}
