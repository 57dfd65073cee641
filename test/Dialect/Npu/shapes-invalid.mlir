// RUN: npu-opt %s -split-input-file -verify-diagnostics
// Dialect-wide size limits (ShapesInRange), shown on npu.matmul.

func.func @zero_dim(%a: tensor<0x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{operand #0 has dimension 0 of size 0; sizes must be in [1, 2^40)}}
  %0 = npu.matmul %a, %b : tensor<0x8xf32>, tensor<8x16xf32> -> tensor<0x16xf32>
  return
}

// -----

func.func @huge_dim(%a: tensor<1099511627776x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{operand #0 has dimension 0 of size 1099511627776; sizes must be in [1, 2^40)}}
  %0 = npu.matmul %a, %b : tensor<1099511627776x8xf32>, tensor<8x16xf32> -> tensor<1099511627776x16xf32>
  return
}

// -----

func.func @bytes_overflow(%a: tensor<1048576x1048576x4194304xf32>, %b: tensor<4194304x16xf32>) {
  // expected-error @+1 {{operand #0 of type 'tensor<1048576x1048576x4194304xf32>' has a byte size that does not fit in 64 bits}}
  %0 = npu.matmul %a, %b : tensor<1048576x1048576x4194304xf32>, tensor<4194304x16xf32> -> tensor<1048576x1048576x16xf32>
  return
}
