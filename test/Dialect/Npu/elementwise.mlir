// RUN: npu-opt %s | npu-opt | FileCheck %s
// RUN: npu-opt %s --mlir-print-op-generic | npu-opt | FileCheck %s

// CHECK-LABEL: func.func @add_same_shape
// CHECK: npu.add %{{.*}}, %{{.*}} : tensor<4x4096xbf16>, tensor<4x4096xbf16>
func.func @add_same_shape(%a: tensor<4x4096xbf16>, %b: tensor<4x4096xbf16>) -> tensor<4x4096xbf16> {
  %0 = npu.add %a, %b : tensor<4x4096xbf16>, tensor<4x4096xbf16>
  return %0 : tensor<4x4096xbf16>
}

// CHECK-LABEL: func.func @add_bias
// CHECK: npu.add %{{.*}}, %{{.*}} : tensor<2x16x3072xf32>, tensor<3072xf32>
func.func @add_bias(%a: tensor<2x16x3072xf32>, %b: tensor<3072xf32>) -> tensor<2x16x3072xf32> {
  %0 = npu.add %a, %b : tensor<2x16x3072xf32>, tensor<3072xf32>
  return %0 : tensor<2x16x3072xf32>
}

// CHECK-LABEL: func.func @add_scalar
// CHECK: npu.add %{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<f16>
func.func @add_scalar(%a: tensor<4x8xf16>, %b: tensor<f16>) -> tensor<4x8xf16> {
  %0 = npu.add %a, %b : tensor<4x8xf16>, tensor<f16>
  return %0 : tensor<4x8xf16>
}

// CHECK-LABEL: func.func @mul_suffix
// CHECK: npu.mul %{{.*}}, %{{.*}} : tensor<2x4x8xbf16>, tensor<4x8xbf16>
func.func @mul_suffix(%a: tensor<2x4x8xbf16>, %b: tensor<4x8xbf16>) -> tensor<2x4x8xbf16> {
  %0 = npu.mul %a, %b : tensor<2x4x8xbf16>, tensor<4x8xbf16>
  return %0 : tensor<2x4x8xbf16>
}

// CHECK-LABEL: func.func @activations
// CHECK: npu.silu %{{.*}} : tensor<8x14336xbf16>
// CHECK: npu.gelu %{{.*}} : tensor<8x14336xbf16>
// CHECK-NOT: approximate
// CHECK: npu.gelu %{{.*}} approximate = tanh : tensor<8x14336xbf16>
// CHECK: npu.swiglu %{{.*}}, %{{.*}} : tensor<8x14336xbf16>
// CHECK: npu.swiglu %{{.*}}, %{{.*}} activation = gelu_tanh : tensor<8x14336xbf16>
// CHECK: npu.softcap %{{.*}} cap(3.000000e+01) : tensor<8x14336xbf16>
func.func @activations(%g: tensor<8x14336xbf16>, %u: tensor<8x14336xbf16>) -> tensor<8x14336xbf16> {
  %0 = npu.silu %g : tensor<8x14336xbf16>
  %1 = npu.gelu %0 : tensor<8x14336xbf16>
  %2 = npu.gelu %1 approximate = tanh : tensor<8x14336xbf16>
  %3 = npu.swiglu %2, %u : tensor<8x14336xbf16>
  %4 = npu.swiglu %3, %u activation = gelu_tanh : tensor<8x14336xbf16>
  %5 = npu.softcap %4 cap(30.0) : tensor<8x14336xbf16>
  return %5 : tensor<8x14336xbf16>
}

// The default is elided when printed.
// CHECK-LABEL: func.func @gelu_explicit_none
// CHECK: npu.gelu %{{.*}} : tensor<4xf32>
func.func @gelu_explicit_none(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = npu.gelu %x approximate = none : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @convert_to_fp8
// CHECK: npu.convert %{{.*}} : tensor<2x8x1x128xbf16> -> tensor<2x8x1x128xf8E4M3FN>
func.func @convert_to_fp8(%k: tensor<2x8x1x128xbf16>) -> tensor<2x8x1x128xf8E4M3FN> {
  %0 = npu.convert %k : tensor<2x8x1x128xbf16> -> tensor<2x8x1x128xf8E4M3FN>
  return %0 : tensor<2x8x1x128xf8E4M3FN>
}
