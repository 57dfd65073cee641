// RUN: npu-opt %s | npu-opt | FileCheck %s
// RUN: npu-opt %s --mlir-print-op-generic | npu-opt | FileCheck %s

// CHECK-LABEL: func.func @mha
// CHECK: npu.attention %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32> -> tensor<2x4x16x64xf32>
func.func @mha(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x16x64xf32>, %v: tensor<2x4x16x64xf32>) -> tensor<2x4x16x64xf32> {
  %0 = npu.attention %q, %k, %v : tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32> -> tensor<2x4x16x64xf32>
  return %0 : tensor<2x4x16x64xf32>
}

// CHECK-LABEL: func.func @gqa_causal
// CHECK: npu.attention %{{.*}}, %{{.*}}, %{{.*}} causal : tensor<1x32x128x128xbf16>, tensor<1x8x128x128xbf16>, tensor<1x8x128x128xbf16> -> tensor<1x32x128x128xbf16>
func.func @gqa_causal(%q: tensor<1x32x128x128xbf16>, %k: tensor<1x8x128x128xbf16>, %v: tensor<1x8x128x128xbf16>) -> tensor<1x32x128x128xbf16> {
  %0 = npu.attention %q, %k, %v causal : tensor<1x32x128x128xbf16>, tensor<1x8x128x128xbf16>, tensor<1x8x128x128xbf16> -> tensor<1x32x128x128xbf16>
  return %0 : tensor<1x32x128x128xbf16>
}

// MQA decode step against an fp8 KV cache, with an offset (Sq < Skv).
// CHECK-LABEL: func.func @mqa_fp8_decode
// CHECK: npu.attention %{{.*}}, %{{.*}}, %{{.*}} scale(1.250000e-01) causal : tensor<4x16x1x64xf16>, tensor<4x1x512x64xf8E4M3FN>, tensor<4x1x512x64xf8E4M3FN> -> tensor<4x16x1x64xf16>
func.func @mqa_fp8_decode(%q: tensor<4x16x1x64xf16>, %k: tensor<4x1x512x64xf8E4M3FN>, %v: tensor<4x1x512x64xf8E4M3FN>) -> tensor<4x16x1x64xf16> {
  %0 = npu.attention %q, %k, %v scale(0.125) causal : tensor<4x16x1x64xf16>, tensor<4x1x512x64xf8E4M3FN>, tensor<4x1x512x64xf8E4M3FN> -> tensor<4x16x1x64xf16>
  return %0 : tensor<4x16x1x64xf16>
}

// CHECK-LABEL: func.func @sliding_window
// CHECK: npu.attention %{{.*}}, %{{.*}}, %{{.*}} scale(1.250000e-01) causal window(4096) : tensor<1x8x8192x64xf16>, tensor<1x8x8192x64xf16>, tensor<1x8x8192x64xf16> -> tensor<1x8x8192x64xf16>
func.func @sliding_window(%q: tensor<1x8x8192x64xf16>, %k: tensor<1x8x8192x64xf16>, %v: tensor<1x8x8192x64xf16>) -> tensor<1x8x8192x64xf16> {
  %0 = npu.attention %q, %k, %v scale(0.125) causal window(4096) : tensor<1x8x8192x64xf16>, tensor<1x8x8192x64xf16>, tensor<1x8x8192x64xf16> -> tensor<1x8x8192x64xf16>
  return %0 : tensor<1x8x8192x64xf16>
}

// Gemma-2: logits soft-capped at 50.
// CHECK-LABEL: func.func @chunked
// CHECK: npu.attention %{{.*}}, %{{.*}}, %{{.*}} causal chunk(8192) : tensor<1x40x16384x128xbf16>
func.func @chunked(%q: tensor<1x40x16384x128xbf16>, %k: tensor<1x8x16384x128xbf16>, %v: tensor<1x8x16384x128xbf16>) -> tensor<1x40x16384x128xbf16> {
  %0 = npu.attention %q, %k, %v causal chunk(8192) : tensor<1x40x16384x128xbf16>, tensor<1x8x16384x128xbf16>, tensor<1x8x16384x128xbf16> -> tensor<1x40x16384x128xbf16>
  return %0 : tensor<1x40x16384x128xbf16>
}

// CHECK-LABEL: func.func @softcap
// CHECK: npu.attention %{{.*}}, %{{.*}}, %{{.*}} scale(6.250000e-02) softcap(5.000000e+01) causal window(4096) : tensor<1x8x16x256xbf16>, tensor<1x4x16x256xbf16>, tensor<1x4x16x256xbf16> -> tensor<1x8x16x256xbf16>
func.func @softcap(%q: tensor<1x8x16x256xbf16>, %k: tensor<1x4x16x256xbf16>, %v: tensor<1x4x16x256xbf16>) -> tensor<1x8x16x256xbf16> {
  %0 = npu.attention %q, %k, %v scale(0.0625) softcap(50.0) causal window(4096) : tensor<1x8x16x256xbf16>, tensor<1x4x16x256xbf16>, tensor<1x4x16x256xbf16> -> tensor<1x8x16x256xbf16>
  return %0 : tensor<1x8x16x256xbf16>
}

// GPT-OSS: a sink logit per query head.
// CHECK-LABEL: func.func @sinks
// CHECK: npu.attention %{{.*}}, %{{.*}}, %{{.*}} sinks(%{{.*}}) causal window(128) : tensor<1x64x16x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>, sinks tensor<64xbf16> -> tensor<1x64x16x64xbf16>
func.func @sinks(%q: tensor<1x64x16x64xbf16>, %k: tensor<1x8x16x64xbf16>, %v: tensor<1x8x16x64xbf16>, %s: tensor<64xbf16>) -> tensor<1x64x16x64xbf16> {
  %0 = npu.attention %q, %k, %v sinks(%s) causal window(128) : tensor<1x64x16x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>, sinks tensor<64xbf16> -> tensor<1x64x16x64xbf16>
  return %0 : tensor<1x64x16x64xbf16>
}

// MLA prefill: Dqk = 192 (128 nope + 64 rope), Dv = 128.
// CHECK-LABEL: func.func @mla_prefill
// CHECK: npu.attention %{{.*}}, %{{.*}}, %{{.*}} causal : tensor<1x128x64x192xbf16>, tensor<1x128x64x192xbf16>, tensor<1x128x64x128xbf16> -> tensor<1x128x64x128xbf16>
func.func @mla_prefill(%q: tensor<1x128x64x192xbf16>, %k: tensor<1x128x64x192xbf16>, %v: tensor<1x128x64x128xbf16>) -> tensor<1x128x64x128xbf16> {
  %0 = npu.attention %q, %k, %v causal : tensor<1x128x64x192xbf16>, tensor<1x128x64x192xbf16>, tensor<1x128x64x128xbf16> -> tensor<1x128x64x128xbf16>
  return %0 : tensor<1x128x64x128xbf16>
}

// MLA decode in the latent (absorbed) form: V = kv[..., 0:512].
// CHECK-LABEL: func.func @mla_latent_decode
// CHECK: npu.attention %{{.*}}, %{{.*}} latent(512) scale(7.230000e-02) causal : tensor<1x128x1x576xbf16>, tensor<1x1x4096x576xbf16> -> tensor<1x128x1x512xbf16>
func.func @mla_latent_decode(%q: tensor<1x128x1x576xbf16>, %kv: tensor<1x1x4096x576xbf16>) -> tensor<1x128x1x512xbf16> {
  %0 = npu.attention %q, %kv latent(512) scale(0.0723) causal : tensor<1x128x1x576xbf16>, tensor<1x1x4096x576xbf16> -> tensor<1x128x1x512xbf16>
  return %0 : tensor<1x128x1x512xbf16>
}
