// RUN: npu-opt %s -split-input-file -verify-diagnostics

func.func @cache_rank(%c: tensor<2x8x4xf32>, %n: tensor<1x2x3x4xf32>, %p: index) {
  // expected-error @+1 {{cache must have rank 4 ([B, H, Smax, D]), got 3}}
  %r = npu.kv_cache_append %c, %n at %p : tensor<2x8x4xf32>, tensor<1x2x3x4xf32> -> tensor<2x8x4xf32>
  return
}

// -----

func.func @update_rank(%c: tensor<1x2x8x4xf32>, %n: tensor<2x3x4xf32>, %p: index) {
  // expected-error @+1 {{update must have rank 4 ([B, H, Snew, D]), got 3}}
  %r = npu.kv_cache_append %c, %n at %p : tensor<1x2x8x4xf32>, tensor<2x3x4xf32> -> tensor<1x2x8x4xf32>
  return
}

// -----

func.func @update_b(%c: tensor<1x2x8x4xf32>, %n: tensor<2x2x3x4xf32>, %p: index) {
  // expected-error @+1 {{update has B = 2, the cache has B = 1}}
  %r = npu.kv_cache_append %c, %n at %p : tensor<1x2x8x4xf32>, tensor<2x2x3x4xf32> -> tensor<1x2x8x4xf32>
  return
}

// -----

func.func @update_h(%c: tensor<1x2x8x4xf32>, %n: tensor<1x1x3x4xf32>, %p: index) {
  // expected-error @+1 {{update has H = 1, the cache has H = 2}}
  %r = npu.kv_cache_append %c, %n at %p : tensor<1x2x8x4xf32>, tensor<1x1x3x4xf32> -> tensor<1x2x8x4xf32>
  return
}

// -----

func.func @update_d(%c: tensor<1x2x8x4xf32>, %n: tensor<1x2x3x8xf32>, %p: index) {
  // expected-error @+1 {{update has D = 8, the cache has D = 4}}
  %r = npu.kv_cache_append %c, %n at %p : tensor<1x2x8x4xf32>, tensor<1x2x3x8xf32> -> tensor<1x2x8x4xf32>
  return
}

// -----

func.func @update_type(%c: tensor<1x2x8x4xf32>, %n: tensor<1x2x3x4xbf16>, %p: index) {
  // expected-error @+1 {{update element type 'bf16' differs from the cache's 'f32'}}
  %r = npu.kv_cache_append %c, %n at %p : tensor<1x2x8x4xf32>, tensor<1x2x3x4xbf16> -> tensor<1x2x8x4xf32>
  return
}

// -----

func.func @update_long(%c: tensor<1x2x8x4xf32>, %n: tensor<1x2x9x4xf32>, %p: index) {
  // expected-error @+1 {{update has 9 tokens, more than the cache holds (Smax = 8)}}
  %r = npu.kv_cache_append %c, %n at %p : tensor<1x2x8x4xf32>, tensor<1x2x9x4xf32> -> tensor<1x2x8x4xf32>
  return
}

// -----

func.func @append_result(%c: tensor<1x2x8x4xf32>, %n: tensor<1x2x3x4xf32>, %p: index) {
  // expected-error @+1 {{result must have the cache's type ('tensor<1x2x8x4xf32>'), got 'tensor<1x2x8x4xf16>'}}
  %r = npu.kv_cache_append %c, %n at %p : tensor<1x2x8x4xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x8x4xf16>
  return
}

// -----

func.func @append_int(%c: tensor<1x2x8x4xi32>, %n: tensor<1x2x3x4xf32>, %p: index) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %r = npu.kv_cache_append %c, %n at %p : tensor<1x2x8x4xi32>, tensor<1x2x3x4xf32> -> tensor<1x2x8x4xi32>
  return
}

// -----

func.func @read_rank(%c: tensor<8x4xf32>) {
  // expected-error @+1 {{cache must have rank 4 ([B, H, Smax, D]), got 2}}
  %r = npu.kv_cache_read %c length(4) : tensor<8x4xf32> -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @read_zero(%c: tensor<1x2x8x4xf32>) {
  // expected-error @+1 {{length (0) must be in [1, Smax = 8]}}
  %r = npu.kv_cache_read %c length(0) : tensor<1x2x8x4xf32> -> tensor<1x2x1x4xf32>
  return
}

// -----

func.func @read_long(%c: tensor<1x2x8x4xf32>) {
  // expected-error @+1 {{length (9) must be in [1, Smax = 8]}}
  %r = npu.kv_cache_read %c length(9) : tensor<1x2x8x4xf32> -> tensor<1x2x9x4xf32>
  return
}

// -----

func.func @read_result(%c: tensor<1x2x8x4xf32>) {
  // expected-error @+1 {{result must have type 'tensor<1x2x4x4xf32>', got 'tensor<1x2x5x4xf32>'}}
  %r = npu.kv_cache_read %c length(4) : tensor<1x2x8x4xf32> -> tensor<1x2x5x4xf32>
  return
}

// -----

func.func @read_result_type(%c: tensor<1x2x8x4xf32>) {
  // expected-error @+1 {{result must have type 'tensor<1x2x4x4xf32>', got 'tensor<1x2x4x4xbf16>'}}
  %r = npu.kv_cache_read %c length(4) : tensor<1x2x8x4xf32> -> tensor<1x2x4x4xbf16>
  return
}
