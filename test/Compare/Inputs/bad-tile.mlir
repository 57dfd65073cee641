// A hand-written TPU tile whose sram_bytes is wrong (the working set is
// 65536 bytes): the TPU-like pipeline's npu-verify-tiles rejects it.
func.func @gemm(%x: tensor<64x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<64x64xbf16> {
  %0 = npu.kernel gemm (%x, %w) {npu_compare.tpu_tiling = #npu.tiling<loops = [1, 64, 64, 128], tile = [1, 32, 64, 128], buffers = 2, sram_bytes = 1000>} : (tensor<64x128xbf16>, tensor<64x128xbf16>) -> tensor<64x64xbf16> {
  ^bb0(%a: tensor<64x128xbf16>, %b: tensor<64x128xbf16>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xbf16>
    npu.yield %m : tensor<64x64xbf16>
  }
  return %0 : tensor<64x64xbf16>
}
