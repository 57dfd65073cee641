func.func @MHA_4K(%q: tensor<1x32x4096x128xbf16>, %k: tensor<1x32x4096x128xbf16>, %v: tensor<1x32x4096x128xbf16>) -> tensor<1x32x4096x128xbf16> {
  %qg = npu.reshape %q : tensor<1x32x4096x128xbf16> -> tensor<1x32x4096x128xbf16>
  %s = npu.matmul %qg, %k transpose_rhs : tensor<1x32x4096x128xbf16>, tensor<1x32x4096x128xbf16> -> tensor<1x32x4096x4096xbf16>
  %p = npu.softmax %s : tensor<1x32x4096x4096xbf16> -> tensor<1x32x4096x4096xbf16>
  %og = npu.matmul %p, %v : tensor<1x32x4096x4096xbf16>, tensor<1x32x4096x128xbf16> -> tensor<1x32x4096x128xbf16>
  %o = npu.reshape %og : tensor<1x32x4096x128xbf16> -> tensor<1x32x4096x128xbf16>
  return %o : tensor<1x32x4096x128xbf16>
}
func.func @MHA_32K(%q: tensor<1x32x32768x128xbf16>, %k: tensor<1x32x32768x128xbf16>, %v: tensor<1x32x32768x128xbf16>) -> tensor<1x32x32768x128xbf16> {
  %qg = npu.reshape %q : tensor<1x32x32768x128xbf16> -> tensor<1x32x32768x128xbf16>
  %s = npu.matmul %qg, %k transpose_rhs : tensor<1x32x32768x128xbf16>, tensor<1x32x32768x128xbf16> -> tensor<1x32x32768x32768xbf16>
  %p = npu.softmax %s : tensor<1x32x32768x32768xbf16> -> tensor<1x32x32768x32768xbf16>
  %og = npu.matmul %p, %v : tensor<1x32x32768x32768xbf16>, tensor<1x32x32768x128xbf16> -> tensor<1x32x32768x128xbf16>
  %o = npu.reshape %og : tensor<1x32x32768x128xbf16> -> tensor<1x32x32768x128xbf16>
  return %o : tensor<1x32x32768x128xbf16>
}
func.func @MHA_128K(%q: tensor<1x32x131072x128xbf16>, %k: tensor<1x32x131072x128xbf16>, %v: tensor<1x32x131072x128xbf16>) -> tensor<1x32x131072x128xbf16> {
  %qg = npu.reshape %q : tensor<1x32x131072x128xbf16> -> tensor<1x32x131072x128xbf16>
  %s = npu.matmul %qg, %k transpose_rhs : tensor<1x32x131072x128xbf16>, tensor<1x32x131072x128xbf16> -> tensor<1x32x131072x131072xbf16>
  %p = npu.softmax %s : tensor<1x32x131072x131072xbf16> -> tensor<1x32x131072x131072xbf16>
  %og = npu.matmul %p, %v : tensor<1x32x131072x131072xbf16>, tensor<1x32x131072x128xbf16> -> tensor<1x32x131072x128xbf16>
  %o = npu.reshape %og : tensor<1x32x131072x128xbf16> -> tensor<1x32x131072x128xbf16>
  return %o : tensor<1x32x131072x128xbf16>
}
func.func @GQA_4K(%q: tensor<1x32x4096x128xbf16>, %k: tensor<1x8x4096x128xbf16>, %v: tensor<1x8x4096x128xbf16>) -> tensor<1x32x4096x128xbf16> {
  %qg = npu.reshape %q : tensor<1x32x4096x128xbf16> -> tensor<1x8x16384x128xbf16>
  %s = npu.matmul %qg, %k transpose_rhs : tensor<1x8x16384x128xbf16>, tensor<1x8x4096x128xbf16> -> tensor<1x8x16384x4096xbf16>
  %p = npu.softmax %s : tensor<1x8x16384x4096xbf16> -> tensor<1x8x16384x4096xbf16>
  %og = npu.matmul %p, %v : tensor<1x8x16384x4096xbf16>, tensor<1x8x4096x128xbf16> -> tensor<1x8x16384x128xbf16>
  %o = npu.reshape %og : tensor<1x8x16384x128xbf16> -> tensor<1x32x4096x128xbf16>
  return %o : tensor<1x32x4096x128xbf16>
}
func.func @GQA_32K(%q: tensor<1x32x32768x128xbf16>, %k: tensor<1x8x32768x128xbf16>, %v: tensor<1x8x32768x128xbf16>) -> tensor<1x32x32768x128xbf16> {
  %qg = npu.reshape %q : tensor<1x32x32768x128xbf16> -> tensor<1x8x131072x128xbf16>
  %s = npu.matmul %qg, %k transpose_rhs : tensor<1x8x131072x128xbf16>, tensor<1x8x32768x128xbf16> -> tensor<1x8x131072x32768xbf16>
  %p = npu.softmax %s : tensor<1x8x131072x32768xbf16> -> tensor<1x8x131072x32768xbf16>
  %og = npu.matmul %p, %v : tensor<1x8x131072x32768xbf16>, tensor<1x8x32768x128xbf16> -> tensor<1x8x131072x128xbf16>
  %o = npu.reshape %og : tensor<1x8x131072x128xbf16> -> tensor<1x32x32768x128xbf16>
  return %o : tensor<1x32x32768x128xbf16>
}
func.func @GQA_128K(%q: tensor<1x32x131072x128xbf16>, %k: tensor<1x8x131072x128xbf16>, %v: tensor<1x8x131072x128xbf16>) -> tensor<1x32x131072x128xbf16> {
  %qg = npu.reshape %q : tensor<1x32x131072x128xbf16> -> tensor<1x8x524288x128xbf16>
  %s = npu.matmul %qg, %k transpose_rhs : tensor<1x8x524288x128xbf16>, tensor<1x8x131072x128xbf16> -> tensor<1x8x524288x131072xbf16>
  %p = npu.softmax %s : tensor<1x8x524288x131072xbf16> -> tensor<1x8x524288x131072xbf16>
  %og = npu.matmul %p, %v : tensor<1x8x524288x131072xbf16>, tensor<1x8x131072x128xbf16> -> tensor<1x8x524288x128xbf16>
  %o = npu.reshape %og : tensor<1x8x524288x128xbf16> -> tensor<1x32x131072x128xbf16>
  return %o : tensor<1x32x131072x128xbf16>
}
func.func @MQA_4K(%q: tensor<1x32x4096x128xbf16>, %k: tensor<1x1x4096x128xbf16>, %v: tensor<1x1x4096x128xbf16>) -> tensor<1x32x4096x128xbf16> {
  %qg = npu.reshape %q : tensor<1x32x4096x128xbf16> -> tensor<1x1x131072x128xbf16>
  %s = npu.matmul %qg, %k transpose_rhs : tensor<1x1x131072x128xbf16>, tensor<1x1x4096x128xbf16> -> tensor<1x1x131072x4096xbf16>
  %p = npu.softmax %s : tensor<1x1x131072x4096xbf16> -> tensor<1x1x131072x4096xbf16>
  %og = npu.matmul %p, %v : tensor<1x1x131072x4096xbf16>, tensor<1x1x4096x128xbf16> -> tensor<1x1x131072x128xbf16>
  %o = npu.reshape %og : tensor<1x1x131072x128xbf16> -> tensor<1x32x4096x128xbf16>
  return %o : tensor<1x32x4096x128xbf16>
}
func.func @MQA_32K(%q: tensor<1x32x32768x128xbf16>, %k: tensor<1x1x32768x128xbf16>, %v: tensor<1x1x32768x128xbf16>) -> tensor<1x32x32768x128xbf16> {
  %qg = npu.reshape %q : tensor<1x32x32768x128xbf16> -> tensor<1x1x1048576x128xbf16>
  %s = npu.matmul %qg, %k transpose_rhs : tensor<1x1x1048576x128xbf16>, tensor<1x1x32768x128xbf16> -> tensor<1x1x1048576x32768xbf16>
  %p = npu.softmax %s : tensor<1x1x1048576x32768xbf16> -> tensor<1x1x1048576x32768xbf16>
  %og = npu.matmul %p, %v : tensor<1x1x1048576x32768xbf16>, tensor<1x1x32768x128xbf16> -> tensor<1x1x1048576x128xbf16>
  %o = npu.reshape %og : tensor<1x1x1048576x128xbf16> -> tensor<1x32x32768x128xbf16>
  return %o : tensor<1x32x32768x128xbf16>
}
func.func @MQA_128K(%q: tensor<1x32x131072x128xbf16>, %k: tensor<1x1x131072x128xbf16>, %v: tensor<1x1x131072x128xbf16>) -> tensor<1x32x131072x128xbf16> {
  %qg = npu.reshape %q : tensor<1x32x131072x128xbf16> -> tensor<1x1x4194304x128xbf16>
  %s = npu.matmul %qg, %k transpose_rhs : tensor<1x1x4194304x128xbf16>, tensor<1x1x131072x128xbf16> -> tensor<1x1x4194304x131072xbf16>
  %p = npu.softmax %s : tensor<1x1x4194304x131072xbf16> -> tensor<1x1x4194304x131072xbf16>
  %og = npu.matmul %p, %v : tensor<1x1x4194304x131072xbf16>, tensor<1x1x131072x128xbf16> -> tensor<1x1x4194304x128xbf16>
  %o = npu.reshape %og : tensor<1x1x4194304x128xbf16> -> tensor<1x32x131072x128xbf16>
  return %o : tensor<1x32x131072x128xbf16>
}
func.func @MLA_4K(%q: tensor<1x128x4096x192xbf16>, %k: tensor<1x128x4096x192xbf16>, %v: tensor<1x128x4096x128xbf16>) -> tensor<1x128x4096x128xbf16> {
  %qg = npu.reshape %q : tensor<1x128x4096x192xbf16> -> tensor<1x128x4096x192xbf16>
  %s = npu.matmul %qg, %k transpose_rhs : tensor<1x128x4096x192xbf16>, tensor<1x128x4096x192xbf16> -> tensor<1x128x4096x4096xbf16>
  %p = npu.softmax %s : tensor<1x128x4096x4096xbf16> -> tensor<1x128x4096x4096xbf16>
  %og = npu.matmul %p, %v : tensor<1x128x4096x4096xbf16>, tensor<1x128x4096x128xbf16> -> tensor<1x128x4096x128xbf16>
  %o = npu.reshape %og : tensor<1x128x4096x128xbf16> -> tensor<1x128x4096x128xbf16>
  return %o : tensor<1x128x4096x128xbf16>
}
func.func @MLA_32K(%q: tensor<1x128x32768x192xbf16>, %k: tensor<1x128x32768x192xbf16>, %v: tensor<1x128x32768x128xbf16>) -> tensor<1x128x32768x128xbf16> {
  %qg = npu.reshape %q : tensor<1x128x32768x192xbf16> -> tensor<1x128x32768x192xbf16>
  %s = npu.matmul %qg, %k transpose_rhs : tensor<1x128x32768x192xbf16>, tensor<1x128x32768x192xbf16> -> tensor<1x128x32768x32768xbf16>
  %p = npu.softmax %s : tensor<1x128x32768x32768xbf16> -> tensor<1x128x32768x32768xbf16>
  %og = npu.matmul %p, %v : tensor<1x128x32768x32768xbf16>, tensor<1x128x32768x128xbf16> -> tensor<1x128x32768x128xbf16>
  %o = npu.reshape %og : tensor<1x128x32768x128xbf16> -> tensor<1x128x32768x128xbf16>
  return %o : tensor<1x128x32768x128xbf16>
}
func.func @MLA_128K(%q: tensor<1x128x131072x192xbf16>, %k: tensor<1x128x131072x192xbf16>, %v: tensor<1x128x131072x128xbf16>) -> tensor<1x128x131072x128xbf16> {
  %qg = npu.reshape %q : tensor<1x128x131072x192xbf16> -> tensor<1x128x131072x192xbf16>
  %s = npu.matmul %qg, %k transpose_rhs : tensor<1x128x131072x192xbf16>, tensor<1x128x131072x192xbf16> -> tensor<1x128x131072x131072xbf16>
  %p = npu.softmax %s : tensor<1x128x131072x131072xbf16> -> tensor<1x128x131072x131072xbf16>
  %og = npu.matmul %p, %v : tensor<1x128x131072x131072xbf16>, tensor<1x128x131072x128xbf16> -> tensor<1x128x131072x128xbf16>
  %o = npu.reshape %og : tensor<1x128x131072x128xbf16> -> tensor<1x128x131072x128xbf16>
  return %o : tensor<1x128x131072x128xbf16>
}
func.func @SWA_4K(%q: tensor<1x32x4096x128xbf16>, %k: tensor<1x8x4096x128xbf16>, %v: tensor<1x8x4096x128xbf16>) -> tensor<1x32x4096x128xbf16> {
  %qg = npu.reshape %q : tensor<1x32x4096x128xbf16> -> tensor<1x8x16384x128xbf16>
  %s = npu.matmul %qg, %k transpose_rhs : tensor<1x8x16384x128xbf16>, tensor<1x8x4096x128xbf16> -> tensor<1x8x16384x4096xbf16>
  %p = npu.softmax %s : tensor<1x8x16384x4096xbf16> -> tensor<1x8x16384x4096xbf16>
  %og = npu.matmul %p, %v : tensor<1x8x16384x4096xbf16>, tensor<1x8x4096x128xbf16> -> tensor<1x8x16384x128xbf16>
  %o = npu.reshape %og : tensor<1x8x16384x128xbf16> -> tensor<1x32x4096x128xbf16>
  return %o : tensor<1x32x4096x128xbf16>
}
func.func @SWA_32K(%q: tensor<1x32x32768x128xbf16>, %k: tensor<1x8x32768x128xbf16>, %v: tensor<1x8x32768x128xbf16>) -> tensor<1x32x32768x128xbf16> {
  %qg = npu.reshape %q : tensor<1x32x32768x128xbf16> -> tensor<1x8x131072x128xbf16>
  %s = npu.matmul %qg, %k transpose_rhs : tensor<1x8x131072x128xbf16>, tensor<1x8x32768x128xbf16> -> tensor<1x8x131072x32768xbf16>
  %p = npu.softmax %s : tensor<1x8x131072x32768xbf16> -> tensor<1x8x131072x32768xbf16>
  %og = npu.matmul %p, %v : tensor<1x8x131072x32768xbf16>, tensor<1x8x32768x128xbf16> -> tensor<1x8x131072x128xbf16>
  %o = npu.reshape %og : tensor<1x8x131072x128xbf16> -> tensor<1x32x32768x128xbf16>
  return %o : tensor<1x32x32768x128xbf16>
}
func.func @SWA_128K(%q: tensor<1x32x131072x128xbf16>, %k: tensor<1x8x131072x128xbf16>, %v: tensor<1x8x131072x128xbf16>) -> tensor<1x32x131072x128xbf16> {
  %qg = npu.reshape %q : tensor<1x32x131072x128xbf16> -> tensor<1x8x524288x128xbf16>
  %s = npu.matmul %qg, %k transpose_rhs : tensor<1x8x524288x128xbf16>, tensor<1x8x131072x128xbf16> -> tensor<1x8x524288x131072xbf16>
  %p = npu.softmax %s : tensor<1x8x524288x131072xbf16> -> tensor<1x8x524288x131072xbf16>
  %og = npu.matmul %p, %v : tensor<1x8x524288x131072xbf16>, tensor<1x8x131072x128xbf16> -> tensor<1x8x524288x128xbf16>
  %o = npu.reshape %og : tensor<1x8x524288x128xbf16> -> tensor<1x32x131072x128xbf16>
  return %o : tensor<1x32x131072x128xbf16>
}
