// RUN: npu-opt %s -split-input-file -verify-diagnostics

func.func @scales_shape(%v: tensor<256x384xf8E4M3FN>, %s: tensor<2x2xf32>, %x: tensor<1x256xbf16>) {
  // expected-error @+1 {{scales dimension 1 is 2, expected ceil(384 / 128) = 3}}
  %w = npu.dequantize %v, %s block [128, 128] : tensor<256x384xf8E4M3FN>, tensor<2x2xf32> -> tensor<256x384xbf16>
  %y = npu.matmul %x, %w : tensor<1x256xbf16>, tensor<256x384xbf16> -> tensor<1x384xbf16>
  return
}

// -----

func.func @block_rank(%v: tensor<64x32xi8>, %s: tensor<64x1xf32>) {
  // expected-error @+1 {{scales and block must have the values' rank (2), got rank 2 and 1 block sizes}}
  %w = npu.dequantize %v, %s block [32] : tensor<64x32xi8>, tensor<64x1xf32> -> tensor<64x32xbf16>
  return
}

// -----

func.func @block_zero(%v: tensor<64x32xi8>, %s: tensor<64x1xf32>) {
  // expected-error @+1 {{block size 0 is 0, must be positive}}
  %w = npu.dequantize %v, %s block [0, 32] : tensor<64x32xi8>, tensor<64x1xf32> -> tensor<64x32xbf16>
  return
}

// -----

func.func @result_shape(%v: tensor<64x32xi8>, %s: tensor<64x1xf32>) {
  // expected-error @+1 {{result shape must be the values' shape}}
  %w = npu.dequantize %v, %s block [1, 32] : tensor<64x32xi8>, tensor<64x1xf32> -> tensor<32x64xbf16>
  return
}

// -----

// The dequantized tensor is never stored: only a matrix op's weight may
// read it (here an add would need all of it in memory).
func.func @not_a_weight(%v: tensor<4x32xi8>, %s: tensor<4x1xf32>, %x: tensor<4x32xbf16>) {
  // expected-error @+1 {{result must be used only as a matrix op's weight (the rhs of npu.matmul, an expert weight of npu.moe_experts); used by npu.add operand 1}}
  %w = npu.dequantize %v, %s block [1, 32] : tensor<4x32xi8>, tensor<4x1xf32> -> tensor<4x32xbf16>
  %y = npu.add %x, %w : tensor<4x32xbf16>, tensor<4x32xbf16>
  return
}

// -----

func.func @lhs(%v: tensor<4x32xi8>, %s: tensor<4x1xf32>, %x: tensor<32x8xbf16>) {
  // expected-error @+1 {{used by npu.matmul operand 0}}
  %w = npu.dequantize %v, %s block [1, 32] : tensor<4x32xi8>, tensor<4x1xf32> -> tensor<4x32xbf16>
  %y = npu.matmul %w, %x : tensor<4x32xbf16>, tensor<32x8xbf16> -> tensor<4x8xbf16>
  return
}

// -----

func.func @value_type(%v: tensor<4x32xbf16>, %s: tensor<4x1xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 8-bit signless integer or 4-bit signless integer}}
  %w = npu.dequantize %v, %s block [1, 32] : tensor<4x32xbf16>, tensor<4x1xf32> -> tensor<4x32xbf16>
  return
}

// -----

func.func @scale_type(%v: tensor<4x32xi8>, %s: tensor<4x1xi8>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit float or bfloat16 type}}
  %w = npu.dequantize %v, %s block [1, 32] : tensor<4x32xi8>, tensor<4x1xi8> -> tensor<4x32xbf16>
  return
}
