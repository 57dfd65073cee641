// RUN: npu-opt %s | npu-opt | FileCheck %s
// RUN: npu-opt %s --mlir-print-op-generic | npu-opt | FileCheck %s

// CHECK-LABEL: func.func @layer_norm_gpt2
// CHECK: npu.layer_norm %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x768xf32>, tensor<768xf32>, tensor<768xf32> -> tensor<1024x768xf32>
func.func @layer_norm_gpt2(%x: tensor<1024x768xf32>, %g: tensor<768xf32> {npu.param}, %b: tensor<768xf32> {npu.param}) -> tensor<1024x768xf32> {
  %0 = npu.layer_norm %x, %g, %b : tensor<1024x768xf32>, tensor<768xf32>, tensor<768xf32> -> tensor<1024x768xf32>
  return %0 : tensor<1024x768xf32>
}

// CHECK-LABEL: func.func @layer_norm_no_beta
// CHECK: npu.layer_norm %{{.*}}, %{{.*}} eps(9.9999999999999995E-7) : tensor<2x3x64xbf16>, tensor<64xbf16> -> tensor<2x3x64xbf16>
func.func @layer_norm_no_beta(%x: tensor<2x3x64xbf16>, %g: tensor<64xbf16>) -> tensor<2x3x64xbf16> {
  %0 = npu.layer_norm %x, %g eps(1.0e-6) : tensor<2x3x64xbf16>, tensor<64xbf16> -> tensor<2x3x64xbf16>
  return %0 : tensor<2x3x64xbf16>
}

// CHECK-LABEL: func.func @layer_norm_beta_eps
// CHECK: npu.layer_norm %{{.*}}, %{{.*}}, %{{.*}} eps(1.250000e-01) : tensor<4xf16>, tensor<4xf16>, tensor<4xf16> -> tensor<4xf16>
func.func @layer_norm_beta_eps(%x: tensor<4xf16>, %g: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xf16> {
  %0 = npu.layer_norm %x, %g, %b eps(0.125) : tensor<4xf16>, tensor<4xf16>, tensor<4xf16> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}
