func.func @MHA_4K(%q: tensor<1x32x4096x128xbf16>, %k: tensor<1x32x4096x128xbf16>, %v: tensor<1x32x4096x128xbf16>) -> tensor<1x32x4096x128xbf16> {
  %o = npu.attention %q, %k, %v causal : tensor<1x32x4096x128xbf16>, tensor<1x32x4096x128xbf16>, tensor<1x32x4096x128xbf16> -> tensor<1x32x4096x128xbf16>
  return %o : tensor<1x32x4096x128xbf16>
}
func.func @MHA_32K(%q: tensor<1x32x32768x128xbf16>, %k: tensor<1x32x32768x128xbf16>, %v: tensor<1x32x32768x128xbf16>) -> tensor<1x32x32768x128xbf16> {
  %o = npu.attention %q, %k, %v causal : tensor<1x32x32768x128xbf16>, tensor<1x32x32768x128xbf16>, tensor<1x32x32768x128xbf16> -> tensor<1x32x32768x128xbf16>
  return %o : tensor<1x32x32768x128xbf16>
}
func.func @MHA_128K(%q: tensor<1x32x131072x128xbf16>, %k: tensor<1x32x131072x128xbf16>, %v: tensor<1x32x131072x128xbf16>) -> tensor<1x32x131072x128xbf16> {
  %o = npu.attention %q, %k, %v causal : tensor<1x32x131072x128xbf16>, tensor<1x32x131072x128xbf16>, tensor<1x32x131072x128xbf16> -> tensor<1x32x131072x128xbf16>
  return %o : tensor<1x32x131072x128xbf16>
}
func.func @GQA_4K(%q: tensor<1x32x4096x128xbf16>, %k: tensor<1x8x4096x128xbf16>, %v: tensor<1x8x4096x128xbf16>) -> tensor<1x32x4096x128xbf16> {
  %o = npu.attention %q, %k, %v causal : tensor<1x32x4096x128xbf16>, tensor<1x8x4096x128xbf16>, tensor<1x8x4096x128xbf16> -> tensor<1x32x4096x128xbf16>
  return %o : tensor<1x32x4096x128xbf16>
}
func.func @GQA_32K(%q: tensor<1x32x32768x128xbf16>, %k: tensor<1x8x32768x128xbf16>, %v: tensor<1x8x32768x128xbf16>) -> tensor<1x32x32768x128xbf16> {
  %o = npu.attention %q, %k, %v causal : tensor<1x32x32768x128xbf16>, tensor<1x8x32768x128xbf16>, tensor<1x8x32768x128xbf16> -> tensor<1x32x32768x128xbf16>
  return %o : tensor<1x32x32768x128xbf16>
}
func.func @GQA_128K(%q: tensor<1x32x131072x128xbf16>, %k: tensor<1x8x131072x128xbf16>, %v: tensor<1x8x131072x128xbf16>) -> tensor<1x32x131072x128xbf16> {
  %o = npu.attention %q, %k, %v causal : tensor<1x32x131072x128xbf16>, tensor<1x8x131072x128xbf16>, tensor<1x8x131072x128xbf16> -> tensor<1x32x131072x128xbf16>
  return %o : tensor<1x32x131072x128xbf16>
}
func.func @MQA_4K(%q: tensor<1x32x4096x128xbf16>, %k: tensor<1x1x4096x128xbf16>, %v: tensor<1x1x4096x128xbf16>) -> tensor<1x32x4096x128xbf16> {
  %o = npu.attention %q, %k, %v causal : tensor<1x32x4096x128xbf16>, tensor<1x1x4096x128xbf16>, tensor<1x1x4096x128xbf16> -> tensor<1x32x4096x128xbf16>
  return %o : tensor<1x32x4096x128xbf16>
}
func.func @MQA_32K(%q: tensor<1x32x32768x128xbf16>, %k: tensor<1x1x32768x128xbf16>, %v: tensor<1x1x32768x128xbf16>) -> tensor<1x32x32768x128xbf16> {
  %o = npu.attention %q, %k, %v causal : tensor<1x32x32768x128xbf16>, tensor<1x1x32768x128xbf16>, tensor<1x1x32768x128xbf16> -> tensor<1x32x32768x128xbf16>
  return %o : tensor<1x32x32768x128xbf16>
}
func.func @MQA_128K(%q: tensor<1x32x131072x128xbf16>, %k: tensor<1x1x131072x128xbf16>, %v: tensor<1x1x131072x128xbf16>) -> tensor<1x32x131072x128xbf16> {
  %o = npu.attention %q, %k, %v causal : tensor<1x32x131072x128xbf16>, tensor<1x1x131072x128xbf16>, tensor<1x1x131072x128xbf16> -> tensor<1x32x131072x128xbf16>
  return %o : tensor<1x32x131072x128xbf16>
}
func.func @MLA_4K(%q: tensor<1x128x4096x192xbf16>, %k: tensor<1x128x4096x192xbf16>, %v: tensor<1x128x4096x128xbf16>) -> tensor<1x128x4096x128xbf16> {
  %o = npu.attention %q, %k, %v causal : tensor<1x128x4096x192xbf16>, tensor<1x128x4096x192xbf16>, tensor<1x128x4096x128xbf16> -> tensor<1x128x4096x128xbf16>
  return %o : tensor<1x128x4096x128xbf16>
}
func.func @MLA_32K(%q: tensor<1x128x32768x192xbf16>, %k: tensor<1x128x32768x192xbf16>, %v: tensor<1x128x32768x128xbf16>) -> tensor<1x128x32768x128xbf16> {
  %o = npu.attention %q, %k, %v causal : tensor<1x128x32768x192xbf16>, tensor<1x128x32768x192xbf16>, tensor<1x128x32768x128xbf16> -> tensor<1x128x32768x128xbf16>
  return %o : tensor<1x128x32768x128xbf16>
}
func.func @MLA_128K(%q: tensor<1x128x131072x192xbf16>, %k: tensor<1x128x131072x192xbf16>, %v: tensor<1x128x131072x128xbf16>) -> tensor<1x128x131072x128xbf16> {
  %o = npu.attention %q, %k, %v causal : tensor<1x128x131072x192xbf16>, tensor<1x128x131072x192xbf16>, tensor<1x128x131072x128xbf16> -> tensor<1x128x131072x128xbf16>
  return %o : tensor<1x128x131072x128xbf16>
}
func.func @SWA_4K(%q: tensor<1x32x4096x128xbf16>, %k: tensor<1x8x4096x128xbf16>, %v: tensor<1x8x4096x128xbf16>) -> tensor<1x32x4096x128xbf16> {
  %o = npu.attention %q, %k, %v causal window(4096) : tensor<1x32x4096x128xbf16>, tensor<1x8x4096x128xbf16>, tensor<1x8x4096x128xbf16> -> tensor<1x32x4096x128xbf16>
  return %o : tensor<1x32x4096x128xbf16>
}
func.func @SWA_32K(%q: tensor<1x32x32768x128xbf16>, %k: tensor<1x8x32768x128xbf16>, %v: tensor<1x8x32768x128xbf16>) -> tensor<1x32x32768x128xbf16> {
  %o = npu.attention %q, %k, %v causal window(4096) : tensor<1x32x32768x128xbf16>, tensor<1x8x32768x128xbf16>, tensor<1x8x32768x128xbf16> -> tensor<1x32x32768x128xbf16>
  return %o : tensor<1x32x32768x128xbf16>
}
func.func @SWA_128K(%q: tensor<1x32x131072x128xbf16>, %k: tensor<1x8x131072x128xbf16>, %v: tensor<1x8x131072x128xbf16>) -> tensor<1x32x131072x128xbf16> {
  %o = npu.attention %q, %k, %v causal window(4096) : tensor<1x32x131072x128xbf16>, tensor<1x8x131072x128xbf16>, tensor<1x8x131072x128xbf16> -> tensor<1x32x131072x128xbf16>
  return %o : tensor<1x32x131072x128xbf16>
}
