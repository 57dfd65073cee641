// A module without an npu.model description.
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = npu.add %x, %x : tensor<4x8xf32>, tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
