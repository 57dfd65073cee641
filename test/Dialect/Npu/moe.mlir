// RUN: npu-opt %s | npu-opt | FileCheck %s
// RUN: npu-opt %s --mlir-print-op-generic | npu-opt | FileCheck %s

// CHECK-LABEL: func.func @router_deepseek_v2
// CHECK: npu.moe_router %{{.*}} top_k(6) scoring(softmax) groups(8, 3) group_top(1) scale(1.600000e+01) : tensor<4x160xf32> -> tensor<4x6xi32>, tensor<4x6xf32>
func.func @router_deepseek_v2(%logits: tensor<4x160xf32>) -> tensor<4x6xi32> {
  %idx, %w = npu.moe_router %logits top_k(6) scoring(softmax) groups(8, 3) group_top(1) scale(16.0)
      : tensor<4x160xf32> -> tensor<4x6xi32>, tensor<4x6xf32>
  return %idx : tensor<4x6xi32>
}

// CHECK-LABEL: func.func @router_deepseek
// CHECK: npu.moe_router %{{.*}}, %{{.*}} top_k(8) scoring(sigmoid) groups(8, 4) norm_topk scale(2.500000e+00) : tensor<4x256xf32>, tensor<256xf32> -> tensor<4x8xi32>, tensor<4x8xf32>
func.func @router_deepseek(%logits: tensor<4x256xf32>) -> (tensor<4x8xi32>, tensor<4x8xf32>) {
  %bias = npu.weight "model.layers.3.mlp.gate.e_score_correction_bias" : tensor<256xf32>
  %idx, %w = npu.moe_router %logits, %bias top_k(8) scoring(sigmoid) groups(8, 4) norm_topk scale(2.5)
      : tensor<4x256xf32>, tensor<256xf32> -> tensor<4x8xi32>, tensor<4x8xf32>
  return %idx, %w : tensor<4x8xi32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @router_softmax
// CHECK: npu.moe_router %{{.*}} top_k(2) scoring(softmax) norm_topk : tensor<3x8xbf16> -> tensor<3x2xi64>, tensor<3x2xf32>
func.func @router_softmax(%logits: tensor<3x8xbf16>) -> (tensor<3x2xi64>, tensor<3x2xf32>) {
  %idx, %w = npu.moe_router %logits top_k(2) scoring(softmax) norm_topk
      : tensor<3x8xbf16> -> tensor<3x2xi64>, tensor<3x2xf32>
  return %idx, %w : tensor<3x2xi64>, tensor<3x2xf32>
}

// The default scale (1.0) is not printed.
// CHECK-LABEL: func.func @router_plain
// CHECK: npu.moe_router %{{.*}} top_k(1) scoring(sigmoid) : tensor<1x4xf32> -> tensor<1x1xi32>, tensor<1x1xf32>
func.func @router_plain(%logits: tensor<1x4xf32>) -> (tensor<1x1xi32>, tensor<1x1xf32>) {
  %idx, %w = npu.moe_router %logits top_k(1) scoring(sigmoid) scale(1.0)
      : tensor<1x4xf32> -> tensor<1x1xi32>, tensor<1x1xf32>
  return %idx, %w : tensor<1x1xi32>, tensor<1x1xf32>
}

// CHECK-LABEL: func.func @experts_shared
// CHECK: npu.moe_experts %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} shared(%{{.*}}, %{{.*}}, %{{.*}}) load(#npu.expert_load<uniform>) : tensor<2x16xbf16>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf8E4M3FN>, tensor<4x8x16xf8E4M3FN>, tensor<4x16x8xf8E4M3FN>, tensor<6x16xbf16>, tensor<6x16xbf16>, tensor<16x6xbf16> -> tensor<2x16xbf16>
func.func @experts_shared(%x: tensor<2x16xbf16>, %idx: tensor<2x2xi32>, %w: tensor<2x2xf32>) -> tensor<2x16xbf16> {
  %wg = npu.weight "wg" : tensor<4x8x16xf8E4M3FN>
  %wu = npu.weight "wu" : tensor<4x8x16xf8E4M3FN>
  %wd = npu.weight "wd" : tensor<4x16x8xf8E4M3FN>
  %sg = npu.weight "sg" : tensor<6x16xbf16>
  %su = npu.weight "su" : tensor<6x16xbf16>
  %sd = npu.weight "sd" : tensor<16x6xbf16>
  %y = npu.moe_experts %x, %idx, %w, %wg, %wu, %wd shared(%sg, %su, %sd) load(#npu.expert_load<uniform>)
      : tensor<2x16xbf16>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf8E4M3FN>, tensor<4x8x16xf8E4M3FN>,
        tensor<4x16x8xf8E4M3FN>, tensor<6x16xbf16>, tensor<6x16xbf16>, tensor<16x6xbf16> -> tensor<2x16xbf16>
  return %y : tensor<2x16xbf16>
}

// CHECK-LABEL: func.func @experts_histogram
// CHECK: npu.moe_experts %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} load(#npu.expert_load<histogram [4.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00]>) : tensor<3x8xf32>, tensor<3x1xi64>, tensor<3x1xf32>, tensor<4x5x8xf32>, tensor<4x5x8xf32>, tensor<4x8x5xf32> -> tensor<3x8xf32>
func.func @experts_histogram(%x: tensor<3x8xf32>, %idx: tensor<3x1xi64>, %w: tensor<3x1xf32>,
                             %wg: tensor<4x5x8xf32>, %wu: tensor<4x5x8xf32>, %wd: tensor<4x8x5xf32>) -> tensor<3x8xf32> {
  %y = npu.moe_experts %x, %idx, %w, %wg, %wu, %wd load(#npu.expert_load<histogram [4.0, 1.0, 1.0, 0.0]>)
      : tensor<3x8xf32>, tensor<3x1xi64>, tensor<3x1xf32>, tensor<4x5x8xf32>, tensor<4x5x8xf32>, tensor<4x8x5xf32> -> tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}

// GPT-OSS experts: per-expert biases and the clamped SwiGLU.
// CHECK-LABEL: func.func @experts_gpt_oss
// CHECK: npu.moe_experts %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} biases(%{{.*}}, %{{.*}}, %{{.*}}) swiglu_limit(7.000000e+00) load(#npu.expert_load<uniform>) : tensor<4x2880xbf16>, tensor<4x4xi32>, tensor<4x4xf32>, tensor<32x2880x2880xbf16>, tensor<32x2880x2880xbf16>, tensor<32x2880x2880xbf16> biases tensor<32x2880xbf16>, tensor<32x2880xbf16>, tensor<32x2880xbf16> -> tensor<4x2880xbf16>
func.func @experts_gpt_oss(%x: tensor<4x2880xbf16>, %i: tensor<4x4xi32>, %w: tensor<4x4xf32>, %g: tensor<32x2880x2880xbf16>, %u: tensor<32x2880x2880xbf16>, %d: tensor<32x2880x2880xbf16>, %bg: tensor<32x2880xbf16>, %bu: tensor<32x2880xbf16>, %bd: tensor<32x2880xbf16>) -> tensor<4x2880xbf16> {
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d biases(%bg, %bu, %bd) swiglu_limit(7.0) load(#npu.expert_load<uniform>) : tensor<4x2880xbf16>, tensor<4x4xi32>, tensor<4x4xf32>, tensor<32x2880x2880xbf16>, tensor<32x2880x2880xbf16>, tensor<32x2880x2880xbf16> biases tensor<32x2880xbf16>, tensor<32x2880xbf16>, tensor<32x2880xbf16> -> tensor<4x2880xbf16>
  return %y : tensor<4x2880xbf16>
}
