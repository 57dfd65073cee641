// RUN: npu-opt %s --verify-diagnostics --npu-set-target="target=mock-tpu" --npu-verify-tiles --npu-estimate-cost

// A GPU launch arrangement means nothing to the TPU-like cost model.
func.func @gemm(%x: tensor<128x128xbf16>, %w: tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  // expected-error @below {{npu-estimate-cost: 'npu.launch' arranges GPU launches, but target 'mock-tpu' is not GPU-like}}
  %0 = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 128, 128, 128], tile = [1, 64, 64, 32], buffers = 2, sram_bytes = 49152>, npu.launch = [#npu.launch<cluster_m = 1, cluster_n = 1, raster_group = 1>]} : (tensor<128x128xbf16>, tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  ^bb0(%a: tensor<128x128xbf16>, %b: tensor<128x128xbf16>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xbf16>
    npu.yield %m : tensor<128x128xbf16>
  }
  return %0 : tensor<128x128xbf16>
}
