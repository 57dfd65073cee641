// RUN: npu-opt %s | npu-opt | FileCheck %s
// RUN: npu-opt %s --mlir-print-op-generic | npu-opt | FileCheck %s

// CHECK-LABEL: func.func @rms_norm_llama
// CHECK: %[[G:.*]] = npu.weight "model.layers.0.input_layernorm.weight" : tensor<4096xbf16>
// CHECK: npu.rms_norm %{{.*}}, %[[G]] eps(1.000000e-05) : tensor<2x16x4096xbf16>, tensor<4096xbf16> -> tensor<2x16x4096xbf16>
func.func @rms_norm_llama(%x: tensor<2x16x4096xbf16>) -> tensor<2x16x4096xbf16> {
  %g = npu.weight "model.layers.0.input_layernorm.weight" : tensor<4096xbf16>
  %0 = npu.rms_norm %x, %g eps(1.0e-5) : tensor<2x16x4096xbf16>, tensor<4096xbf16> -> tensor<2x16x4096xbf16>
  return %0 : tensor<2x16x4096xbf16>
}

// The default eps (1e-6) is not printed.
// CHECK-LABEL: func.func @rms_norm_default_eps
// CHECK: npu.rms_norm %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
// CHECK: npu.rms_norm %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
func.func @rms_norm_default_eps(%x: tensor<8xf32>, %g: tensor<8xf32>) -> tensor<8xf32> {
  %0 = npu.rms_norm %x, %g : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %1 = npu.rms_norm %0, %g eps(1.0e-6) : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// Llama-4's QK norm: no gamma (3 vector FLOPs per element, checked in the
// work tests).
// CHECK-LABEL: func.func @rms_norm_no_gamma
// CHECK: npu.rms_norm %{{.*}} eps(1.000000e-05) : tensor<1x40x16x128xbf16> -> tensor<1x40x16x128xbf16>
func.func @rms_norm_no_gamma(%x: tensor<1x40x16x128xbf16>) -> tensor<1x40x16x128xbf16> {
  %0 = npu.rms_norm %x eps(1.0e-5) : tensor<1x40x16x128xbf16> -> tensor<1x40x16x128xbf16>
  return %0 : tensor<1x40x16x128xbf16>
}
