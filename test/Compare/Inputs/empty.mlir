// A module without work for npu-compare's error test.
func.func @nothing(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
