// RUN: npu-opt %s --npu-set-target="target=%S/Inputs/mock-gpu-cluster.json gpu-epilogue=serial" --npu-verify-tiles --npu-estimate-cost | FileCheck %s
// RUN: npu-opt %s --npu-set-target="target=%S/Inputs/mock-gpu-cluster.json" --npu-verify-tiles --npu-estimate-cost | FileCheck %s --check-prefix=OVERLAPPED
// RUN: not npu-opt %s --npu-set-target="target=%S/Inputs/mock-gpu-cluster.json gpu-epilogue=late" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: sed 's/^module {/module attributes {npu.gpu_epilogue = "late"} {/' %s | not npu-opt 2>&1 | FileCheck %s --check-prefix=BAD-ATTR

// The GEMM of gpu-launch.mlir's @cluster (mock-gpu-cluster, 1 x 2 clusters)
// with a serial epilogue (docs/cost-model-gpu.md, "Epilogue"): each block's
// output store runs after its main loop, at the HBM rate.
//   Per block: HBM reads 65536 / 4 = 16384 B; store 32768 / 4 = 8192 B;
//   L2 requests without the store 32768 - 8192 = 24576 B.
//   The tail of 4 blocks: compute 1024 ns; main-loop memory
//   max(4 x 16384 / 102.4, 4 x 24576 / 409.6) = max(640, 240) = 640 ns;
//   then the stores, 4 x 8192 / 102.4 = 320 ns: 1024 + 320 = 1344 ns.
//   T = 1000 (launch) + 500 (fill) + 1344 = 2844 ns; the roofline terms are
//   unchanged (compute 1024, memory 960), so overhead = 2844 - 1024 = 1820.
// CHECK: module attributes {npu.gpu_epilogue = "serial"
// CHECK: npu.cost = #npu.cost<time_ns = 2.844000e+03, compute_ns = 1.024000e+03, memory_ns = 9.600000e+02, overhead_ns = 1.820000e+03,
// CHECK-SAME: tail_blocks = 4, tail_ns = 1.344000e+03
// Overlapped (the default): the stores run beside the main loops, 2524 ns
// (gpu-launch.mlir).
// OVERLAPPED-NOT: npu.gpu_epilogue
// OVERLAPPED: npu.cost = #npu.cost<time_ns = 2.524000e+03
// BAD: npu-set-target: gpu-epilogue must be 'overlapped' or 'serial', got 'late'
// BAD-ATTR: error: 'npu.gpu_epilogue' must be "serial" on a module, got "late"
module {
func.func @cluster(%x: tensor<128x128xbf16>, %w: tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  %0 = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 128, 128, 128], tile = [1, 64, 64, 32], buffers = 1, sram_bytes = 24576>, npu.launch = [#npu.launch<cluster_m = 1, cluster_n = 2, raster_group = 1>]} : (tensor<128x128xbf16>, tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  ^bb0(%a: tensor<128x128xbf16>, %b: tensor<128x128xbf16>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xbf16>
    npu.yield %m : tensor<128x128xbf16>
  }
  return %0 : tensor<128x128xbf16>
}
}
