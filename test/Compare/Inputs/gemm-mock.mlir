// Two hand-tiled GEMMs for npu-compare on the mock pair (mock-tpu,
// mock-gpu). Each kernel carries the tile of the backend test that priced it
// by hand, for that side only (a tile's working set is target-specific):
//   @tpu_case: test/Backend/tpu-estimate-cost.mlir, 828 ns on mock-tpu;
//   @gpu_case: test/Backend/gpu-estimate-cost.mlir, 2024 ns on mock-gpu.
// The other side of each decides its own tile (npu-decide-tiles).

func.func @tpu_case(%x: tensor<64x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<64x64xbf16> {
  %0 = npu.kernel gemm (%x, %w) {npu_compare.tpu_tiling = #npu.tiling<loops = [1, 64, 64, 128], tile = [1, 32, 64, 128], buffers = 2, sram_bytes = 65536>} : (tensor<64x128xbf16>, tensor<64x128xbf16>) -> tensor<64x64xbf16> {
  ^bb0(%a: tensor<64x128xbf16>, %b: tensor<64x128xbf16>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xbf16>
    npu.yield %m : tensor<64x64xbf16>
  }
  return %0 : tensor<64x64xbf16>
}

func.func @gpu_case(%x: tensor<128x128xbf16>, %w: tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  %0 = npu.kernel gemm (%x, %w) {npu_compare.gpu_tiling = #npu.tiling<loops = [1, 128, 128, 128], tile = [1, 64, 64, 32], buffers = 1, sram_bytes = 24576>} : (tensor<128x128xbf16>, tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  ^bb0(%a: tensor<128x128xbf16>, %b: tensor<128x128xbf16>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xbf16>
    npu.yield %m : tensor<128x128xbf16>
  }
  return %0 : tensor<128x128xbf16>
}
