func.func @gemm_512x512x512(%a: tensor<512x512xbf16>, %b: tensor<512x512xbf16>) -> tensor<512x512xbf16> {
  %0 = npu.matmul %a, %b : tensor<512x512xbf16>, tensor<512x512xbf16> -> tensor<512x512xbf16>
  return %0 : tensor<512x512xbf16>
}
func.func @gemm_1024x1024x1024(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16> {
  %0 = npu.matmul %a, %b : tensor<1024x1024xbf16>, tensor<1024x1024xbf16> -> tensor<1024x1024xbf16>
  return %0 : tensor<1024x1024xbf16>
}
func.func @gemm_2048x2048x2048(%a: tensor<2048x2048xbf16>, %b: tensor<2048x2048xbf16>) -> tensor<2048x2048xbf16> {
  %0 = npu.matmul %a, %b : tensor<2048x2048xbf16>, tensor<2048x2048xbf16> -> tensor<2048x2048xbf16>
  return %0 : tensor<2048x2048xbf16>
}
func.func @gemm_4096x4096x4096(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %0 = npu.matmul %a, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
  return %0 : tensor<4096x4096xbf16>
}
func.func @gemm_8192x8192x8192(%a: tensor<8192x8192xbf16>, %b: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  %0 = npu.matmul %a, %b : tensor<8192x8192xbf16>, tensor<8192x8192xbf16> -> tensor<8192x8192xbf16>
  return %0 : tensor<8192x8192xbf16>
}
func.func @gemm_16384x16384x16384(%a: tensor<16384x16384xbf16>, %b: tensor<16384x16384xbf16>) -> tensor<16384x16384xbf16> {
  %0 = npu.matmul %a, %b : tensor<16384x16384xbf16>, tensor<16384x16384xbf16> -> tensor<16384x16384xbf16>
  return %0 : tensor<16384x16384xbf16>
}
func.func @gemm_4097x4097x4097(%a: tensor<4097x4097xbf16>, %b: tensor<4097x4097xbf16>) -> tensor<4097x4097xbf16> {
  %0 = npu.matmul %a, %b : tensor<4097x4097xbf16>, tensor<4097x4097xbf16> -> tensor<4097x4097xbf16>
  return %0 : tensor<4097x4097xbf16>
}
func.func @gemm_4096x4096x4160(%a: tensor<4096x4160xbf16>, %b: tensor<4160x4096xbf16>) -> tensor<4096x4096xbf16> {
  %0 = npu.matmul %a, %b : tensor<4096x4160xbf16>, tensor<4160x4096xbf16> -> tensor<4096x4096xbf16>
  return %0 : tensor<4096x4096xbf16>
}
func.func @gemm_4096x4096x4100(%a: tensor<4096x4100xbf16>, %b: tensor<4100x4096xbf16>) -> tensor<4096x4096xbf16> {
  %0 = npu.matmul %a, %b : tensor<4096x4100xbf16>, tensor<4100x4096xbf16> -> tensor<4096x4096xbf16>
  return %0 : tensor<4096x4096xbf16>
}
func.func @gemm_1x7168x7168(%a: tensor<1x7168xbf16>, %b: tensor<7168x7168xbf16>) -> tensor<1x7168xbf16> {
  %0 = npu.matmul %a, %b : tensor<1x7168xbf16>, tensor<7168x7168xbf16> -> tensor<1x7168xbf16>
  return %0 : tensor<1x7168xbf16>
}
func.func @gemm_8x7168x7168(%a: tensor<8x7168xbf16>, %b: tensor<7168x7168xbf16>) -> tensor<8x7168xbf16> {
  %0 = npu.matmul %a, %b : tensor<8x7168xbf16>, tensor<7168x7168xbf16> -> tensor<8x7168xbf16>
  return %0 : tensor<8x7168xbf16>
}
func.func @gemm_64x7168x7168(%a: tensor<64x7168xbf16>, %b: tensor<7168x7168xbf16>) -> tensor<64x7168xbf16> {
  %0 = npu.matmul %a, %b : tensor<64x7168xbf16>, tensor<7168x7168xbf16> -> tensor<64x7168xbf16>
  return %0 : tensor<64x7168xbf16>
}
func.func @gemm_200x7168x7168(%a: tensor<200x7168xbf16>, %b: tensor<7168x7168xbf16>) -> tensor<200x7168xbf16> {
  %0 = npu.matmul %a, %b : tensor<200x7168xbf16>, tensor<7168x7168xbf16> -> tensor<200x7168xbf16>
  return %0 : tensor<200x7168xbf16>
}
