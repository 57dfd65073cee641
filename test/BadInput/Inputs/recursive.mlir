func.func @a(%x: tensor<64x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<64x64xbf16> {
  %0 = func.call @b(%x, %w) : (tensor<64x128xbf16>, tensor<64x128xbf16>) -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}
func.func @b(%x: tensor<64x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<64x64xbf16> {
  %m = npu.matmul %x, %w transpose_rhs : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xbf16>
  %0 = func.call @a(%x, %w) : (tensor<64x128xbf16>, tensor<64x128xbf16>) -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}
