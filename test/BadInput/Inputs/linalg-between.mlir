func.func @model(%x: tensor<64x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<64x64xbf16> {
  %m = npu.matmul %x, %w transpose_rhs : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xbf16>
  %e = tensor.empty() : tensor<64x64xbf16>
  %s = linalg.add ins(%m, %m : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%e : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  %t = arith.addf %s, %s : tensor<64x64xbf16>
  return %t : tensor<64x64xbf16>
}
