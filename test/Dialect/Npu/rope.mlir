// RUN: npu-opt %s | npu-opt | FileCheck %s
// RUN: npu-opt %s --mlir-print-op-generic | npu-opt | FileCheck %s

// Defaults (theta 10000, offset 0, rotate_half, rotary_dim = D) are not printed.
// CHECK-LABEL: func.func @rope_defaults
// CHECK: npu.rope %{{.*}} : tensor<1x32x128x128xbf16> -> tensor<1x32x128x128xbf16>
// CHECK: npu.rope %{{.*}} : tensor<1x32x128x128xbf16> -> tensor<1x32x128x128xbf16>
func.func @rope_defaults(%q: tensor<1x32x128x128xbf16>) -> tensor<1x32x128x128xbf16> {
  %0 = npu.rope %q : tensor<1x32x128x128xbf16> -> tensor<1x32x128x128xbf16>
  %1 = npu.rope %0 theta(10000.0) offset(0) : tensor<1x32x128x128xbf16> -> tensor<1x32x128x128xbf16>
  return %1 : tensor<1x32x128x128xbf16>
}

// CHECK-LABEL: func.func @rope_llama3
// CHECK: npu.rope %{{.*}} theta(5.000000e+05) : tensor<1x8x16x128xbf16> -> tensor<1x8x16x128xbf16>
func.func @rope_llama3(%k: tensor<1x8x16x128xbf16>) -> tensor<1x8x16x128xbf16> {
  %0 = npu.rope %k theta(500000.0) : tensor<1x8x16x128xbf16> -> tensor<1x8x16x128xbf16>
  return %0 : tensor<1x8x16x128xbf16>
}

// CHECK-LABEL: func.func @rope_deepseek_decode
// CHECK: npu.rope %{{.*}} offset(4096) interleaved : tensor<1x128x1x64xbf16> -> tensor<1x128x1x64xbf16>
func.func @rope_deepseek_decode(%p: tensor<1x128x1x64xbf16>) -> tensor<1x128x1x64xbf16> {
  %0 = npu.rope %p offset(4096) interleaved : tensor<1x128x1x64xbf16> -> tensor<1x128x1x64xbf16>
  return %0 : tensor<1x128x1x64xbf16>
}

// CHECK-LABEL: func.func @rope_partial
// CHECK: npu.rope %{{.*}} theta(1.000000e+06) offset(7) interleaved rotary_dim(4) : tensor<3x5x8xf32> -> tensor<3x5x8xf32>
// CHECK: npu.rope %{{.*}} rotary_dim(8) : tensor<3x5x8xf32> -> tensor<3x5x8xf32>
func.func @rope_partial(%x: tensor<3x5x8xf32>) -> tensor<3x5x8xf32> {
  %0 = npu.rope %x theta(1000000.0) offset(7) interleaved rotary_dim(4) : tensor<3x5x8xf32> -> tensor<3x5x8xf32>
  %1 = npu.rope %0 rotary_dim(8) : tensor<3x5x8xf32> -> tensor<3x5x8xf32>
  return %1 : tensor<3x5x8xf32>
}
