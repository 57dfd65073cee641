// RUN: npu-opt %s --npu-lower-to-linalg | FileCheck %s

// Router: sigmoid scores, bias add, group top-2 (a 2-output reduction over
// the expanded [T, n_group, G] view), group ranks, -inf mask, then the top-k
// as one reduction over the experts keeping each token's k best (value,
// expert, score) in order (NaN as -inf; a larger value, or an equal one with
// a lower expert, goes first), then each slot's expert and weight with norm
// and scale.
// CHECK-LABEL: func.func @router_grouped
// CHECK-NOT: npu.
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK: arith.addf
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [4, 4, 2] : tensor<4x8xf32> into tensor<4x4x2xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK: -> tensor<4x4xi64>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<4x4x2xf32> into tensor<4x8xf32>
// CHECK-NOT: tensor<4x8xi64>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%collapsed, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: arith.cmpf uno
// CHECK: arith.select
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpi ult
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpi ult
// CHECK: -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xf32>, tensor<4xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK: arith.cmpi eq
// CHECK: arith.divf
// CHECK: arith.constant 2.500000e+00 : f32
// CHECK: arith.mulf
// CHECK: -> (tensor<4x2xi64>, tensor<4x2xf32>)
// CHECK: return
func.func @router_grouped(%l: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x2xi64>, tensor<4x2xf32>) {
  %i, %w = npu.moe_router %l, %b top_k(2) scoring(sigmoid) groups(4, 2) norm_topk scale(2.5)
      : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x2xi64>, tensor<4x2xf32>
  return %i, %w : tensor<4x2xi64>, tensor<4x2xf32>
}

// Softmax router: row max, exp, row sum, divide; no mask, no scale.
// CHECK-LABEL: func.func @router_softmax
// CHECK: arith.maximumf
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK-NOT: tensor.expand_shape
// CHECK: -> (tensor<3x2xi32>, tensor<3x2xf32>)
// CHECK-NOT: arith.mulf
// CHECK: return
func.func @router_softmax(%l: tensor<3x8xf32>) -> (tensor<3x2xi32>, tensor<3x2xf32>) {
  %i, %w = npu.moe_router %l top_k(2) scoring(softmax) : tensor<3x8xf32> -> tensor<3x2xi32>, tensor<3x2xf32>
  return %i, %w : tensor<3x2xi32>, tensor<3x2xf32>
}

// Experts: gate/up over (t, j, f, d) reading the routed expert's weights at
// the clamped index; silu * up; down over (t, j, d, f); shared expert; the
// weighted sum over j accumulates into the shared output.
// CHECK-LABEL: func.func @experts
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.index_cast %{{.*}} : i32 to index
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract %{{.*}} : tensor<4x8x16xbf16>
// CHECK: tensor.extract %{{.*}} : tensor<4x8x16xbf16>
// CHECK: -> (tensor<2x2x8xf32>, tensor<2x2x8xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: tensor.extract %{{.*}} : tensor<4x16x8xbf16>
// CHECK: -> tensor<2x2x16xf32>
// CHECK: -> (tensor<2x6xf32>, tensor<2x6xf32>)
// CHECK: math.exp
// CHECK: %[[SHARED:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x6xf32>, tensor<16x6xf32>) outs(%{{.*}} : tensor<2x16xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<2x2xf32>, tensor<2x2x16xf32>) outs(%[[SHARED]] : tensor<2x16xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @experts(%x: tensor<2x16xbf16>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>,
                   %g: tensor<4x8x16xbf16>, %u: tensor<4x8x16xbf16>, %d: tensor<4x16x8xbf16>,
                   %sg: tensor<6x16xbf16>, %su: tensor<6x16xbf16>, %sd: tensor<16x6xbf16>) -> tensor<2x16xbf16> {
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d shared(%sg, %su, %sd) load(#npu.expert_load<uniform>)
      : tensor<2x16xbf16>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xbf16>, tensor<4x8x16xbf16>,
        tensor<4x16x8xbf16>, tensor<6x16xbf16>, tensor<6x16xbf16>, tensor<16x6xbf16> -> tensor<2x16xbf16>
  return %y : tensor<2x16xbf16>
}
