// RUN: npu-opt %s --npu-set-target="target=tpu-v7" --npu-form-kernels --npu-decide-tiles --npu-verify-tiles --npu-estimate-cost | FileCheck %s

// DeepSeek-V3's embedding gather of 4096 rows of 7168 bf16 on tpu-v7 (2
// cores of 64 MiB, 500 ns per DMA, 32 row copies in flight per core): each
// row of the table is its own DMA (GatherRows.cpp), a chain of 2048 x 500 /
// 32 = 32 us per core against 16 us of HBM time, so the gather is
// overhead-bound. A step of t rows costs max(350 ns grid step, t x 500 / 32
// ns of rows), so every tile of at least 23 rows takes the same 32.6 us, and
// the search then takes the smallest working set: 32 rows, two buffers of
// 28676 B per row (7168 bf16 in and out and its id): 2 x 32 x 28676.
// CHECK-LABEL: func.func @embedding
// CHECK: npu.tiling = #npu.tiling<loops = [4096, 7168], tile = [32, 7168], buffers = 2, sram_bytes = 1835264>
func.func @embedding(%t: tensor<129280x7168xbf16>, %ids: tensor<4096xi32>) -> tensor<4096x7168xbf16> {
  %0 = npu.embedding %t, %ids : tensor<129280x7168xbf16>, tensor<4096xi32> -> tensor<4096x7168xbf16>
  return %0 : tensor<4096x7168xbf16>
}
