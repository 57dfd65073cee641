// RUN: npu-opt %s -split-input-file -verify-diagnostics

func.func @add_element_type(%a: tensor<4x8xf32>, %b: tensor<8xf16>) {
  // expected-error @+1 {{rhs element type 'f16' differs from lhs element type 'f32'}}
  %0 = npu.add %a, %b : tensor<4x8xf32>, tensor<8xf16>
  return
}

// -----

func.func @add_not_suffix(%a: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{rhs type 'tensor<4xf32>' does not broadcast to lhs 'tensor<4x8xf32>' (its dimensions, aligned from the last, must equal lhs's or be 1)}}
  %0 = npu.add %a, %b : tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @mul_rhs_rank(%a: tensor<8xbf16>, %b: tensor<2x8xbf16>) {
  // expected-error @+1 {{rhs type 'tensor<2x8xbf16>' does not broadcast to lhs 'tensor<8xbf16>'}}
  %0 = npu.mul %a, %b : tensor<8xbf16>, tensor<2x8xbf16>
  return
}

// -----

func.func @mul_suffix_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<3x8xf32>) {
  // expected-error @+1 {{rhs type 'tensor<3x8xf32>' does not broadcast to lhs 'tensor<2x4x8xf32>'}}
  %0 = npu.mul %a, %b : tensor<2x4x8xf32>, tensor<3x8xf32>
  return
}

// -----

func.func @mul_rhs_not_one(%a: tensor<4x8xbf16>, %b: tensor<2x1xf32>) {
  // expected-error @+1 {{rhs type 'tensor<2x1xf32>' does not broadcast to lhs 'tensor<4x8xbf16>'}}
  %0 = npu.mul %a, %b : tensor<4x8xbf16>, tensor<2x1xf32>
  return
}

// -----

func.func @mul_rhs_narrower(%a: tensor<4x8xf32>, %b: tensor<4x1xbf16>) {
  // expected-error @+1 {{rhs element type 'bf16' differs from lhs element type 'f32' (and is not f32)}}
  %0 = npu.mul %a, %b : tensor<4x8xf32>, tensor<4x1xbf16>
  return
}

// -----

func.func @add_result(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{failed to verify that all of {lhs, result} have same type}}
  %0 = "npu.add"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @add_int(%a: tensor<4xi32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = npu.add %a, %b : tensor<4xi32>, tensor<4xi32>
  return
}

// -----

func.func @mul_fp8(%a: tensor<4xf8E4M3FN>, %b: tensor<4xf8E4M3FN>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = npu.mul %a, %b : tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>
  return
}

// -----

func.func @silu_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{failed to verify that all of {input, result} have same type}}
  %0 = "npu.silu"(%x) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  return
}

// -----

func.func @silu_dynamic(%x: tensor<?x8xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = npu.silu %x : tensor<?x8xf32>
  return
}

// -----

func.func @gelu_result(%x: tensor<4x8xf16>) {
  // expected-error @+1 {{failed to verify that all of {input, result} have same type}}
  %0 = "npu.gelu"(%x) : (tensor<4x8xf16>) -> tensor<8x4xf16>
  return
}

// -----

func.func @gelu_bad_approximation(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'approximate' [none, tanh]}}
  %0 = npu.gelu %x approximate = sigmoid : tensor<4xf32>
  return
}

// -----

func.func @swiglu_mismatch(%g: tensor<4x8xbf16>, %u: tensor<4x8xf32>) {
  // expected-error @+1 {{failed to verify that all of {gate, up, result} have same type}}
  %0 = "npu.swiglu"(%g, %u) : (tensor<4x8xbf16>, tensor<4x8xf32>) -> tensor<4x8xbf16>
  return
}

// -----

func.func @swiglu_shape(%g: tensor<4x8xbf16>, %u: tensor<8xbf16>) {
  // expected-error @+1 {{failed to verify that all of {gate, up, result} have same type}}
  %0 = "npu.swiglu"(%g, %u) : (tensor<4x8xbf16>, tensor<8xbf16>) -> tensor<4x8xbf16>
  return
}

// -----

func.func @convert_shape(%x: tensor<2x4xbf16>) {
  // expected-error @+1 {{result shape must equal the input shape}}
  %0 = npu.convert %x : tensor<2x4xbf16> -> tensor<4x2xf32>
  return
}

// -----

func.func @convert_int(%x: tensor<2x4xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = npu.convert %x : tensor<2x4xi32> -> tensor<2x4xf32>
  return
}

// -----

func.func @softcap_zero(%x: tensor<4x8xbf16>) {
  // expected-error @+1 {{cap must be finite and > 0, got 0}}
  %0 = npu.softcap %x cap(0.0) : tensor<4x8xbf16>
  return
}

// -----

func.func @swiglu_activation(%g: tensor<4x8xbf16>, %u: tensor<4x8xbf16>) {
  // expected-error @+1 {{enum values for attribute 'activation' [silu, gelu, gelu_tanh]}}
  %0 = npu.swiglu %g, %u activation = relu : tensor<4x8xbf16>
  return
}
