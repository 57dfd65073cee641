// RUN: npu-opt %s --split-input-file --npu-set-target="target=tpu-v5e" --npu-decide-fusion | FileCheck %s

// A matmul with its epilogue (residual add, then SiLU): one gemm group.
// CHECK-LABEL: func.func @epilogue
// CHECK: npu.matmul {{.*}}npu.fusion = #npu.fusion<group = [[G:[0-9]+]], kind = gemm, saved_bytes = 4194304>
// CHECK: npu.add {{.*}}npu.fusion = #npu.fusion<group = [[G]], kind = gemm
// CHECK: npu.silu {{.*}}npu.fusion = #npu.fusion<group = [[G]], kind = gemm
func.func @epilogue(%x: tensor<512x1024xbf16>, %w: tensor<1024x1024xbf16>, %r: tensor<512x1024xbf16>) -> tensor<512x1024xbf16> {
  %0 = npu.matmul %x, %w transpose_rhs : tensor<512x1024xbf16>, tensor<1024x1024xbf16> -> tensor<512x1024xbf16>
  %1 = npu.add %0, %r : tensor<512x1024xbf16>, tensor<512x1024xbf16>
  %2 = npu.silu %1 : tensor<512x1024xbf16>
  return %2 : tensor<512x1024xbf16>
}

// -----

// The gated MLP with the norm feeding it and the residual add after it; the
// norm's weight is an input.
// CHECK-LABEL: func.func @gated
// CHECK-COUNT-6: kind = gated_mlp
func.func @gated(%x: tensor<256x1024xbf16>, %g: tensor<1024xbf16>, %wg: tensor<4096x1024xbf16>, %wu: tensor<4096x1024xbf16>, %wd: tensor<1024x4096xbf16>) -> tensor<256x1024xbf16> {
  %h = npu.rms_norm %x, %g eps(1.0e-06) : tensor<256x1024xbf16>, tensor<1024xbf16> -> tensor<256x1024xbf16>
  %a = npu.matmul %h, %wg transpose_rhs : tensor<256x1024xbf16>, tensor<4096x1024xbf16> -> tensor<256x4096xbf16>
  %b = npu.matmul %h, %wu transpose_rhs : tensor<256x1024xbf16>, tensor<4096x1024xbf16> -> tensor<256x4096xbf16>
  %s = npu.swiglu %a, %b : tensor<256x4096xbf16>
  %d = npu.matmul %s, %wd transpose_rhs : tensor<256x4096xbf16>, tensor<1024x4096xbf16> -> tensor<256x1024xbf16>
  %y = npu.add %x, %d : tensor<256x1024xbf16>, tensor<256x1024xbf16>
  return %y : tensor<256x1024xbf16>
}

// -----

// One normalized input feeding three projections: one GEMM (N = sum of N).
// CHECK-LABEL: func.func @qkv
// CHECK: npu.rms_norm {{.*}}group = [[G:[0-9]+]], kind = gemm
// CHECK-COUNT-3: npu.matmul {{.*}}group = [[G]], kind = gemm
func.func @qkv(%x: tensor<128x512xbf16>, %g: tensor<512xbf16>, %wq: tensor<512x512xbf16>, %wk: tensor<128x512xbf16>, %wv: tensor<128x512xbf16>) -> (tensor<128x512xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>) {
  %h = npu.rms_norm %x, %g eps(1.0e-06) : tensor<128x512xbf16>, tensor<512xbf16> -> tensor<128x512xbf16>
  %q = npu.matmul %h, %wq transpose_rhs : tensor<128x512xbf16>, tensor<512x512xbf16> -> tensor<128x512xbf16>
  %k = npu.matmul %h, %wk transpose_rhs : tensor<128x512xbf16>, tensor<128x512xbf16> -> tensor<128x128xbf16>
  %v = npu.matmul %h, %wv transpose_rhs : tensor<128x512xbf16>, tensor<128x512xbf16> -> tensor<128x128xbf16>
  return %q, %k, %v : tensor<128x512xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>
}

// -----

// Attention with the head transposes around it: one attention kernel; a
// hand-written decision (group 7) is kept.
// CHECK-LABEL: func.func @attn
// CHECK: npu.transpose {{.*}}kind = attention
// CHECK: npu.attention {{.*}}kind = attention
// CHECK: npu.transpose {{.*}}kind = attention
// CHECK: npu.softmax {{.*}}#npu.fusion<group = 7, kind = stream, saved_bytes = 0>
func.func @attn(%q: tensor<1x256x8x64xbf16>, %k: tensor<1x8x256x64xbf16>, %v: tensor<1x8x256x64xbf16>, %z: tensor<64x64xf32>) -> (tensor<1x256x8x64xbf16>, tensor<64x64xf32>) {
  %qt = npu.transpose %q perm [0, 2, 1, 3] : tensor<1x256x8x64xbf16> -> tensor<1x8x256x64xbf16>
  %o = npu.attention %qt, %k, %v causal : tensor<1x8x256x64xbf16>, tensor<1x8x256x64xbf16>, tensor<1x8x256x64xbf16> -> tensor<1x8x256x64xbf16>
  %ot = npu.transpose %o perm [0, 2, 1, 3] : tensor<1x8x256x64xbf16> -> tensor<1x256x8x64xbf16>
  %s = npu.softmax %z {npu.fusion = #npu.fusion<group = 7, kind = stream, saved_bytes = 0>} : tensor<64x64xf32> -> tensor<64x64xf32>
  return %ot, %s : tensor<1x256x8x64xbf16>, tensor<64x64xf32>
}
