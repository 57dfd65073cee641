// RUN: npu-opt %s -split-input-file -verify-diagnostics

func.func @rank1(%a: tensor<8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{lhs must have rank >= 2, got 1}}
  %0 = npu.matmul %a, %b : tensor<8xf32>, tensor<8x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @rhs_rank(%a: tensor<2x4x8xf32>, %b: tensor<1x2x8x4xf32>) {
  // expected-error @+1 {{rhs must have rank 2 or the rank of lhs (3), got 4}}
  %0 = npu.matmul %a, %b : tensor<2x4x8xf32>, tensor<1x2x8x4xf32> -> tensor<2x4x4xf32>
  return
}

// -----

func.func @result_rank(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{result must have the rank of lhs (2), got 3}}
  %0 = npu.matmul %a, %b : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<1x4x4xf32>
  return
}

// -----

func.func @batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) {
  // expected-error @+1 {{batch dimension 0 differs: lhs 2 vs rhs 3}}
  %0 = npu.matmul %a, %b : tensor<2x4x8xf32>, tensor<3x8x4xf32> -> tensor<2x4x4xf32>
  return
}

// -----

func.func @result_batch(%a: tensor<2x4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{result batch dimension 0 is 3, expected 2}}
  %0 = npu.matmul %a, %b : tensor<2x4x8xf32>, tensor<8x4xf32> -> tensor<3x4x4xf32>
  return
}

// -----

func.func @contraction(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) {
  // expected-error @+1 {{contraction sizes differ: lhs K = 8, rhs K = 4}}
  %0 = npu.matmul %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @result_shape(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{result matrix must be 4x16, got 4x8}}
  %0 = npu.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @acc_int(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{accumulator type must be f32, f16 or bf16, got 'i32'}}
  %0 = npu.matmul %a, %b acc(i32) : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @acc_narrow(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{accumulator type 'bf16' is narrower than the result element type 'f32'}}
  %0 = npu.matmul %a, %b acc(bf16) : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @fp8_result(%a: tensor<4x8xf8E4M3FN>, %b: tensor<8x16xf8E4M3FN>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of}}
  %0 = npu.matmul %a, %b : tensor<4x8xf8E4M3FN>, tensor<8x16xf8E4M3FN> -> tensor<4x16xf8E4M3FN>
  return
}

// -----

func.func @dynamic(%a: tensor<?x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = npu.matmul %a, %b : tensor<?x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return
}
