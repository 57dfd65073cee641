// An MLA decode attention in latent form as wide as DeepSeek-V3's (B = 64,
// Hq = 128, one latent KV head of 576, V its first 512 columns), compiled
// for only 16 KV tokens: lengths near 2^40 overflow its 64-bit counts.
func.func @decode(%q: tensor<64x128x1x576xbf16>, %kv: tensor<64x1x16x576xbf16>) -> tensor<64x128x1x512xbf16> {
  %o = npu.attention %q, %kv latent(512) causal : tensor<64x128x1x576xbf16>, tensor<64x1x16x576xbf16> -> tensor<64x128x1x512xbf16>
  return %o : tensor<64x128x1x512xbf16>
}
