// A GQA decode attention: B = 4 sequences, Hq = 4 query heads over Hkv = 2
// KV heads, D = 64, compiled for 256 KV tokens (the new token included).
func.func @decode(%q: tensor<4x4x1x64xbf16>, %k: tensor<4x2x256x64xbf16>, %v: tensor<4x2x256x64xbf16>) -> tensor<4x4x1x64xbf16> {
  %o = npu.attention %q, %k, %v causal : tensor<4x4x1x64xbf16>, tensor<4x2x256x64xbf16>, tensor<4x2x256x64xbf16> -> tensor<4x4x1x64xbf16>
  return %o : tensor<4x4x1x64xbf16>
}
