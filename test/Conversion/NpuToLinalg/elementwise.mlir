// RUN: npu-opt %s --npu-lower-to-linalg | FileCheck %s

// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[SUF:.*]] = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @add_bias
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[SUF]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<8xbf16>)
// CHECK: arith.extf
// CHECK: arith.extf
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT: npu.
func.func @add_bias(%a: tensor<4x8xbf16>, %b: tensor<8xbf16>) -> tensor<4x8xbf16> {
  %0 = npu.add %a, %b : tensor<4x8xbf16>, tensor<8xbf16>
  return %0 : tensor<4x8xbf16>
}

// CHECK-LABEL: func.func @mul
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: linalg.yield
func.func @mul(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = npu.mul %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// silu: 1 exp and 3 vector ops (add, div, mul); the negation is a sign flip.
// CHECK-LABEL: func.func @silu
// CHECK: linalg.generic
// CHECK: arith.negf
// CHECK-NEXT: math.exp
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.divf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to f16
func.func @silu(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = npu.silu %x : tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// gelu (erf): 1 erf and 4 vector ops.
// CHECK-LABEL: func.func @gelu_erf
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK-NEXT: math.erf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: linalg.yield
func.func @gelu_erf(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = npu.gelu %x : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// gelu (tanh): 1 tanh and 7 vector ops.
// CHECK-LABEL: func.func @gelu_tanh
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: math.tanh
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: linalg.yield
func.func @gelu_tanh(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = npu.gelu %x approximate = tanh : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// swiglu: silu(gate) then one multiply by up.
// CHECK-LABEL: func.func @swiglu
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x8xbf16>, tensor<2x8xbf16>)
// CHECK: math.exp
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.divf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.truncf
func.func @swiglu(%g: tensor<2x8xbf16>, %u: tensor<2x8xbf16>) -> tensor<2x8xbf16> {
  %0 = npu.swiglu %g, %u : tensor<2x8xbf16>
  return %0 : tensor<2x8xbf16>
}
