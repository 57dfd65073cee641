// RUN: npu-opt %s -split-input-file -verify-diagnostics

func.func @query_rank(%q: tensor<4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{query must have rank 4 [B, Hq, Sq, Dqk], got rank 3}}
  %0 = npu.attention %q, %k, %v : tensor<4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @key_rank(%q: tensor<1x4x16x64xf32>, %k: tensor<4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{key must have rank 4 [B, Hkv, Skv, Dqk], got rank 3}}
  %0 = npu.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @value_rank(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x1x4x16x64xf32>) {
  // expected-error @+1 {{value must have rank 4 [B, Hkv, Skv, Dv], got rank 5}}
  %0 = npu.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @result_rank(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{result must have rank 4 [B, Hq, Sq, Dv], got rank 3}}
  %0 = npu.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<4x16x64xf32>
  return
}

// -----

func.func @batch_key(%q: tensor<2x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{batch sizes differ: query 2 vs key 1}}
  %0 = npu.attention %q, %k, %v : tensor<2x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<2x4x16x64xf32>
  return
}

// -----

func.func @batch_value(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{batch sizes differ: query 2 vs value 1}}
  %0 = npu.attention %q, %k, %v : tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<2x4x16x64xf32>
  return
}

// -----

func.func @heads(%q: tensor<1x6x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{query heads (Hq = 6) must be a multiple of key/value heads (Hkv = 4)}}
  %0 = npu.attention %q, %k, %v : tensor<1x6x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x6x16x64xf32>
  return
}

// -----

func.func @more_kv_heads(%q: tensor<1x4x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) {
  // expected-error @+1 {{query heads (Hq = 4) must be a multiple of key/value heads (Hkv = 8)}}
  %0 = npu.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @qk_dim(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x128xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{query and key head dims differ: query Dqk = 64, key 128}}
  %0 = npu.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x4x16x128xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @value_heads(%q: tensor<1x4x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{value must have the heads and length of key (Hkv = 2, Skv = 16), got Hkv = 4, Skv = 16}}
  %0 = npu.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @value_len(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x8x64xf32>) {
  // expected-error @+1 {{value must have the heads and length of key (Hkv = 4, Skv = 16), got Hkv = 4, Skv = 8}}
  %0 = npu.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x8x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @dv_mismatch(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x32xf32>) {
  // expected-error @+1 {{result must be [B, Hq, Sq, Dv] = [1, 4, 16, 32], got [1, 4, 16, 64]}}
  %0 = npu.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x32xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @result_heads(%q: tensor<1x4x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>) {
  // expected-error @+1 {{result must be [B, Hq, Sq, Dv] = [1, 4, 16, 64], got [1, 2, 16, 64]}}
  %0 = npu.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32> -> tensor<1x2x16x64xf32>
  return
}

// -----

func.func @result_len(%q: tensor<1x4x1x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{result must be [B, Hq, Sq, Dv] = [1, 4, 1, 64], got [1, 4, 16, 64]}}
  %0 = npu.attention %q, %k, %v : tensor<1x4x1x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @no_value(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{needs a value operand or latent(Dv) (V = key[..., 0:Dv])}}
  %0 = npu.attention %q, %k : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @value_and_latent(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x32xf32>) {
  // expected-error @+1 {{takes either a value operand or latent(Dv), not both}}
  %0 = npu.attention %q, %k, %v latent(32) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x32xf32> -> tensor<1x4x16x32xf32>
  return
}

// -----

func.func @latent_too_wide(%q: tensor<1x4x1x576xf32>, %k: tensor<1x1x16x576xf32>) {
  // expected-error @+1 {{latent(600) must be in [1, Dqk = 576]: V is a slice of key}}
  %0 = npu.attention %q, %k latent(600) : tensor<1x4x1x576xf32>, tensor<1x1x16x576xf32> -> tensor<1x4x1x600xf32>
  return
}

// -----

func.func @latent_zero(%q: tensor<1x4x1x576xf32>, %k: tensor<1x1x16x576xf32>) {
  // expected-error @+1 {{latent(0) must be in [1, Dqk = 576]: V is a slice of key}}
  %0 = npu.attention %q, %k latent(0) : tensor<1x4x1x576xf32>, tensor<1x1x16x576xf32> -> tensor<1x4x1x512xf32>
  return
}

// -----

func.func @latent_result(%q: tensor<1x4x1x576xf32>, %k: tensor<1x1x16x576xf32>) {
  // expected-error @+1 {{result must be [B, Hq, Sq, Dv] = [1, 4, 1, 512], got [1, 4, 1, 576]}}
  %0 = npu.attention %q, %k latent(512) : tensor<1x4x1x576xf32>, tensor<1x1x16x576xf32> -> tensor<1x4x1x576xf32>
  return
}

// -----

func.func @scale_zero(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{scale must be finite and > 0, got 0}}
  %0 = npu.attention %q, %k, %v scale(0.0) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @scale_negative(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{scale must be finite and > 0, got -0.125}}
  %0 = npu.attention %q, %k, %v scale(-0.125) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @scale_inf(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{scale must be finite and > 0, got inf}}
  %0 = npu.attention %q, %k, %v scale(0x7FF0000000000000) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @scale_nan(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{scale must be finite and > 0, got nan}}
  %0 = npu.attention %q, %k, %v scale(0x7FF8000000000000) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @window_no_causal(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{window requires causal}}
  %0 = npu.attention %q, %k, %v window(4) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @window_zero(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{window must be >= 1, got 0}}
  %0 = npu.attention %q, %k, %v causal window(0) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @window_negative(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{window must be >= 1, got -3}}
  %0 = npu.attention %q, %k, %v causal window(-3) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @causal_sq_gt_skv(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x8x64xf32>, %v: tensor<1x4x8x64xf32>) {
  // expected-error @+1 {{causal needs Sq <= Skv (queries are the last Sq positions), got Sq = 16, Skv = 8}}
  %0 = npu.attention %q, %k, %v causal : tensor<1x4x16x64xf32>, tensor<1x4x8x64xf32>, tensor<1x4x8x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

// An fp8 query is FlashAttention-3's fp8 forward; the output is not fp8.
func.func @fp8_result(%q: tensor<1x4x16x64xf8E4M3FN>, %k: tensor<1x4x16x64xf8E4M3FN>, %v: tensor<1x4x16x64xf8E4M3FN>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of}}
  %0 = npu.attention %q, %k, %v : tensor<1x4x16x64xf8E4M3FN>, tensor<1x4x16x64xf8E4M3FN>, tensor<1x4x16x64xf8E4M3FN> -> tensor<1x4x16x64xf8E4M3FN>
  return
}

// -----

func.func @fp8_result(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of}}
  %0 = npu.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf8E5M2>
  return
}

// -----

func.func @int_value(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xi32>) {
  // expected-error @+1 {{operand #2 must be statically shaped tensor of}}
  %0 = npu.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xi32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @dynamic_key(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x?x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of}}
  %0 = npu.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x4x?x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @softcap_zero(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{softcap must be finite and > 0, got 0}}
  %0 = npu.attention %q, %k, %v softcap(0.0) causal : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @softcap_inf(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{softcap must be finite and > 0, got inf}}
  %0 = "npu.attention"(%q, %k, %v) <{softcap = 0x7FF0000000000000 : f64, causal, operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @sinks_shape(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{sinks must be [Hq] = [4] (one logit per query head), got [2]}}
  %0 = npu.attention %q, %k, %v sinks(%s) causal : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, sinks tensor<2xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @chunk_no_causal(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{chunk requires causal}}
  %0 = npu.attention %q, %k, %v chunk(4) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @chunk_and_window(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{chunk and window are exclusive}}
  %0 = npu.attention %q, %k, %v causal window(4) chunk(8) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @chunk_zero(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{chunk must be >= 1, got 0}}
  %0 = npu.attention %q, %k, %v causal chunk(0) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}
