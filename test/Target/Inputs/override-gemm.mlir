func.func @mm(%a: tensor<512x1024xbf16>, %b: tensor<1024x512xbf16>) -> tensor<512x512xbf16> {
  %c = npu.matmul %a, %b : tensor<512x1024xbf16>, tensor<1024x512xbf16> -> tensor<512x512xbf16>
  return %c : tensor<512x512xbf16>
}
