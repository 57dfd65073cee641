// DeepSeek-V3's MoE experts: 4096 tokens, top-8 of 256, F = 2048, D = 7168, one shared expert.
func.func @moe(%x: tensor<4096x7168xbf16>, %i: tensor<4096x8xi32>, %w: tensor<4096x8xf32>, %g: tensor<256x2048x7168xbf16>, %u: tensor<256x2048x7168xbf16>, %d: tensor<256x7168x2048xbf16>, %sg: tensor<2048x7168xbf16>, %su: tensor<2048x7168xbf16>, %sd: tensor<7168x2048xbf16>) -> tensor<4096x7168xbf16> {
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d shared(%sg, %su, %sd) load(#npu.expert_load<uniform>) : tensor<4096x7168xbf16>, tensor<4096x8xi32>, tensor<4096x8xf32>, tensor<256x2048x7168xbf16>, tensor<256x2048x7168xbf16>, tensor<256x7168x2048xbf16>, tensor<2048x7168xbf16>, tensor<2048x7168xbf16>, tensor<7168x2048xbf16> -> tensor<4096x7168xbf16>
  return %y : tensor<4096x7168xbf16>
}
