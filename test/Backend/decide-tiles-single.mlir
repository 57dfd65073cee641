// RUN: npu-opt %s --npu-set-target="target=tpu-v7" --npu-form-kernels --npu-decide-tiles --npu-verify-tiles --npu-estimate-cost | FileCheck %s

// DeepSeek-V3's embedding gather of 4096 rows of 7168 bf16 on tpu-v7 (2
// cores, 500 ns per DMA, 32 row copies in flight per core, 3.31 TB/s of
// sustained HBM bandwidth per core): each row of the table is its own DMA
// (GatherRows.cpp), a chain of 2048 x 500 / 32 = 32 us per core against 18 us
// of HBM time, so the gather is overhead-bound. A step of t rows moves 28676
// B per row plus two tile DMAs (250 ns of setup) beside its row chain (t x
// 500 / 32 ns): from 64 rows on the chain bounds the step and every tile
// takes about 32.8 us (32 rows: 33.7 us), and the search then takes the
// smallest working set: 64 rows, two buffers: 2 x 64 x 28676.
// CHECK-LABEL: func.func @embedding
// CHECK: npu.tiling = #npu.tiling<loops = [4096, 7168], tile = [64, 7168], buffers = 2, sram_bytes = 3670528>
func.func @embedding(%t: tensor<129280x7168xbf16>, %ids: tensor<4096xi32>) -> tensor<4096x7168xbf16> {
  %0 = npu.embedding %t, %ids : tensor<129280x7168xbf16>, tensor<4096xi32> -> tensor<4096x7168xbf16>
  return %0 : tensor<4096x7168xbf16>
}
