func.func @model(%x: tensor<64x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<64x64xbf16> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<64x64xbf16>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %e) -> tensor<64x64xbf16> {
    %0 = npu.matmul %x, %w transpose_rhs : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xbf16>
    scf.yield %0 : tensor<64x64xbf16>
  }
  return %r : tensor<64x64xbf16>
}
