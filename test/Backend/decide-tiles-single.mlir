// RUN: npu-opt %s --npu-set-target="target=tpu-v7" --npu-form-kernels --npu-decide-tiles --npu-verify-tiles --npu-estimate-cost | FileCheck %s

// DeepSeek-V3's embedding gather of 4096 rows of 7168 bf16 on tpu-v7 (2
// cores of 64 MiB, 4 DMA engines each, 500 ns per DMA): each row of the
// table is its own DMA (GatherRows.cpp), so the gather is overhead-bound:
// 4096 x 500 / 4 = 512 us of DMA setup over 2 cores, 256 us, against 16 us
// of HBM time. A tile needs 28676 B per row with one buffer (7168 bf16 in
// and out and its id) and 2048 rows do not fit with two. One buffer,
// 2048 rows (one step per core: 272.5 us) and 1024 rows (two: 273.1 us,
// one more step's id and tile DMAs) are within 0.5% of each other, and the
// search then takes the smaller working set: 1024 x 28676 = 29364224 B.
// CHECK-LABEL: func.func @embedding
// CHECK: npu.tiling = #npu.tiling<loops = [4096, 7168], tile = [1024, 7168], buffers = 1, sram_bytes = 29364224>
func.func @embedding(%t: tensor<129280x7168xbf16>, %ids: tensor<4096xi32>) -> tensor<4096x7168xbf16> {
  %0 = npu.embedding %t, %ids : tensor<129280x7168xbf16>, tensor<4096xi32> -> tensor<4096x7168xbf16>
  return %0 : tensor<4096x7168xbf16>
}
