func.func @f(%x: tensor<8x8xbf16>) -> tensor<8x8xbf16> {
  %0 = npu.silu %x : tensor<8x8xbf16>
  return %0 : tensor<8x8xbf16>
}
