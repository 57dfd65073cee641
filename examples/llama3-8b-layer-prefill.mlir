// Placeholder until every op family lands: the Llama-3-8B SwiGLU FFN
// projections for 2048 tokens.
func.func @ffn(%x: tensor<2048x4096xbf16>) -> tensor<2048x14336xbf16> {
  %w = npu.weight "model.layers.0.mlp.gate_proj.weight" : tensor<14336x4096xbf16>
  %y = npu.matmul %x, %w transpose_rhs : tensor<2048x4096xbf16>, tensor<14336x4096xbf16> -> tensor<2048x14336xbf16>
  return %y : tensor<2048x14336xbf16>
}
