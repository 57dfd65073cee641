// A routed MoE layer: 64 tokens, top-2 of 16 experts, F = 64, D = 128.
func.func @moe(%x: tensor<64x128xbf16>, %i: tensor<64x2xi32>, %w: tensor<64x2xf32>, %g: tensor<16x64x128xbf16>, %u: tensor<16x64x128xbf16>, %d: tensor<16x128x64xbf16>) -> tensor<64x128xbf16> {
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<uniform>) : tensor<64x128xbf16>, tensor<64x2xi32>, tensor<64x2xf32>, tensor<16x64x128xbf16>, tensor<16x64x128xbf16>, tensor<16x128x64xbf16> -> tensor<64x128xbf16>
  return %y : tensor<64x128xbf16>
}
