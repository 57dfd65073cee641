// RUN: npu-opt %s -split-input-file -verify-diagnostics
// Verifier errors of softmax, rms_norm, layer_norm and rope.

func.func @softmax_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{input must have rank >= 1, got 0}}
  %0 = npu.softmax %x : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @softmax_dim_high(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{dim 3 is out of range for rank 3 (expected -3 <= dim < 3)}}
  %0 = npu.softmax %x dim(3) : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return
}

// -----

func.func @softmax_dim_low(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{dim -4 is out of range for rank 3 (expected -3 <= dim < 3)}}
  %0 = npu.softmax %x dim(-4) : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return
}

// -----

func.func @softmax_result_dtype(%x: tensor<2x4xbf16>) {
  // expected-error @+1 {{result type 'tensor<2x4xf32>' must equal the input type 'tensor<2x4xbf16>'}}
  %0 = npu.softmax %x : tensor<2x4xbf16> -> tensor<2x4xf32>
  return
}

// -----

func.func @softmax_result_shape(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{result type 'tensor<4x2xf32>' must equal the input type 'tensor<2x4xf32>'}}
  %0 = npu.softmax %x : tensor<2x4xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @softmax_int(%x: tensor<2x4xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = npu.softmax %x : tensor<2x4xi32> -> tensor<2x4xi32>
  return
}

// -----

func.func @softmax_dynamic(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = npu.softmax %x : tensor<?x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @softmax_zero_dim(%x: tensor<0x4xf32>) {
  // expected-error @+1 {{operand #0 has dimension 0 of size 0; sizes must be in [1, 2^40)}}
  %0 = npu.softmax %x : tensor<0x4xf32> -> tensor<0x4xf32>
  return
}

// -----

func.func @rms_rank0(%x: tensor<f32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{input must have rank >= 1, got 0}}
  %0 = npu.rms_norm %x, %g : tensor<f32>, tensor<1xf32> -> tensor<f32>
  return
}

// -----

func.func @rms_gamma_size(%x: tensor<2x8xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{gamma must have shape [8] (the last dimension of the input), got 'tensor<4xf32>'}}
  %0 = npu.rms_norm %x, %g : tensor<2x8xf32>, tensor<4xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @rms_gamma_rank(%x: tensor<2x8xf32>, %g: tensor<2x8xf32>) {
  // expected-error @+1 {{gamma must have shape [8] (the last dimension of the input), got 'tensor<2x8xf32>'}}
  %0 = npu.rms_norm %x, %g : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @rms_gamma_dtype(%x: tensor<2x8xbf16>, %g: tensor<8xf32>) {
  // expected-error @+1 {{gamma element type 'f32' must equal the input element type 'bf16'}}
  %0 = npu.rms_norm %x, %g : tensor<2x8xbf16>, tensor<8xf32> -> tensor<2x8xbf16>
  return
}

// -----

func.func @rms_result(%x: tensor<2x8xbf16>, %g: tensor<8xbf16>) {
  // expected-error @+1 {{result type 'tensor<2x8xf32>' must equal the input type 'tensor<2x8xbf16>'}}
  %0 = npu.rms_norm %x, %g : tensor<2x8xbf16>, tensor<8xbf16> -> tensor<2x8xf32>
  return
}

// -----

func.func @rms_eps_zero(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{eps must be finite and > 0, got 0}}
  %0 = npu.rms_norm %x, %g eps(0.0) : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @rms_eps_negative(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{eps must be finite and > 0, got -1e-05}}
  %0 = npu.rms_norm %x, %g eps(-1.0e-5) : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @rms_eps_nan(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{eps must be finite and > 0, got nan}}
  %0 = npu.rms_norm %x, %g eps(0x7FF8000000000000) : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @rms_eps_inf(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{eps must be finite and > 0, got inf}}
  %0 = npu.rms_norm %x, %g eps(0x7FF0000000000000) : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @rms_eps_f32_underflow(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{eps 1e-50 is not a finite positive f32 value (the op computes in f32)}}
  %0 = npu.rms_norm %x, %g eps(1.0e-50) : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @rms_eps_f32_overflow(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{eps 1e+50 is not a finite positive f32 value (the op computes in f32)}}
  %0 = npu.rms_norm %x, %g eps(1.0e50) : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @ln_rank0(%x: tensor<f32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{input must have rank >= 1, got 0}}
  %0 = npu.layer_norm %x, %g : tensor<f32>, tensor<1xf32> -> tensor<f32>
  return
}

// -----

func.func @ln_gamma_size(%x: tensor<2x8xf32>, %g: tensor<2xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{gamma must have shape [8] (the last dimension of the input), got 'tensor<2xf32>'}}
  %0 = npu.layer_norm %x, %g, %b : tensor<2x8xf32>, tensor<2xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @ln_gamma_dtype(%x: tensor<2x8xf32>, %g: tensor<8xf16>) {
  // expected-error @+1 {{gamma element type 'f16' must equal the input element type 'f32'}}
  %0 = npu.layer_norm %x, %g : tensor<2x8xf32>, tensor<8xf16> -> tensor<2x8xf32>
  return
}

// -----

func.func @ln_beta_size(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<1x8xf32>) {
  // expected-error @+1 {{beta must have shape [8] (the last dimension of the input), got 'tensor<1x8xf32>'}}
  %0 = npu.layer_norm %x, %g, %b : tensor<2x8xf32>, tensor<8xf32>, tensor<1x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @ln_beta_dtype(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<8xbf16>) {
  // expected-error @+1 {{beta element type 'bf16' must equal the input element type 'f32'}}
  %0 = npu.layer_norm %x, %g, %b : tensor<2x8xf32>, tensor<8xf32>, tensor<8xbf16> -> tensor<2x8xf32>
  return
}

// -----

func.func @ln_result(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{result type 'tensor<2x9xf32>' must equal the input type 'tensor<2x8xf32>'}}
  %0 = npu.layer_norm %x, %g : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x9xf32>
  return
}

// -----

func.func @ln_eps(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{eps must be finite and > 0, got -0}}
  %0 = npu.layer_norm %x, %g eps(-0.0) : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @ln_eps_underflow(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{eps 1e-60 is not a finite positive f32 value (the op computes in f32)}}
  %0 = npu.layer_norm %x, %g eps(1.0e-60) : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @rope_rank1(%x: tensor<8xf32>) {
  // expected-error @+1 {{input must have rank >= 2 ([..., seq, head_dim]), got 1}}
  %0 = npu.rope %x : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @rope_result(%x: tensor<2x4x8xbf16>) {
  // expected-error @+1 {{result type 'tensor<2x4x8xf16>' must equal the input type 'tensor<2x4x8xbf16>'}}
  %0 = npu.rope %x : tensor<2x4x8xbf16> -> tensor<2x4x8xf16>
  return
}

// -----

func.func @rope_odd_head(%x: tensor<2x4x7xf32>) {
  // expected-error @+1 {{the last dimension (7) is rotated when rotary_dim is not given and must be even}}
  %0 = npu.rope %x : tensor<2x4x7xf32> -> tensor<2x4x7xf32>
  return
}

// -----

func.func @rope_rotary_odd(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{rotary_dim must be even, got 3}}
  %0 = npu.rope %x rotary_dim(3) : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return
}

// -----

func.func @rope_rotary_large(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{rotary_dim must be in [2, 8] (the last dimension), got 10}}
  %0 = npu.rope %x rotary_dim(10) : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return
}

// -----

func.func @rope_rotary_zero(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{rotary_dim must be in [2, 8] (the last dimension), got 0}}
  %0 = npu.rope %x rotary_dim(0) : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return
}

// -----

func.func @rope_rotary_negative(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{rotary_dim must be in [2, 8] (the last dimension), got -2}}
  %0 = npu.rope %x rotary_dim(-2) : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return
}

// -----

func.func @rope_head_dim_1(%x: tensor<2x4x1xf32>) {
  // expected-error @+1 {{the last dimension (1) is rotated when rotary_dim is not given and must be even}}
  %0 = npu.rope %x : tensor<2x4x1xf32> -> tensor<2x4x1xf32>
  return
}

// -----

func.func @rope_theta_one(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{theta must be finite and > 1, got 1}}
  %0 = npu.rope %x theta(1.0) : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return
}

// -----

func.func @rope_theta_negative(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{theta must be finite and > 1, got -1e+04}}
  %0 = npu.rope %x theta(-10000.0) : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return
}

// -----

func.func @rope_theta_nan(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{theta must be finite and > 1, got nan}}
  %0 = npu.rope %x theta(0x7FF8000000000000) : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return
}

// -----

func.func @rope_theta_inf(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{theta must be finite and > 1, got inf}}
  %0 = npu.rope %x theta(0x7FF0000000000000) : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return
}

// -----

func.func @rope_offset_negative(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{offset must be >= 0, got -1}}
  %0 = npu.rope %x offset(-1) : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return
}

// -----

func.func @rope_offset_overflow(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{offset 9223372036854775805 plus the sequence length 4 does not fit in int64}}
  %0 = npu.rope %x offset(9223372036854775805) : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return
}

// -----

func.func @rope_theta_f32_overflow(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{theta 1e+40 is not a finite f32 value > 1 (the op computes in f32)}}
  %0 = npu.rope %x theta(1.0e40) : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return
}

// -----

func.func @rope_theta_f32_rounds_to_one(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{theta 1.00000000001 is not a finite f32 value > 1 (the op computes in f32)}}
  %0 = npu.rope %x theta(1.00000000001) : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return
}
