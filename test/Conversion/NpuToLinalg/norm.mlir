// RUN: npu-opt %s --npu-lower-to-linalg --split-input-file | FileCheck %s

// softmax along a middle dim: max and sum are reductions over that dim (the
// middle iterator), exp(x - max) is materialized once in f32, then divided
// and rounded once.
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[DROP1:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @softmax_middle
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAXINIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[DROP1]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%{{.*}} : tensor<2x5x3xbf16>) outs(%[[MAXINIT]] : tensor<2x3xf32>)
// CHECK: arith.extf
// CHECK: arith.maximumf
// CHECK: %[[E:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[DROP1]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%{{.*}}, %[[MAX]] : tensor<2x5x3xbf16>, tensor<2x3xf32>) outs(%{{.*}} : tensor<2x5x3xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[E]] : tensor<2x5x3xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[E]], %[[SUM]] : tensor<2x5x3xf32>, tensor<2x3xf32>) outs(%{{.*}} : tensor<2x5x3xbf16>)
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT: npu.
func.func @softmax_middle(%x: tensor<2x5x3xbf16>) -> tensor<2x5x3xbf16> {
  %0 = npu.softmax %x dim(1) : tensor<2x5x3xbf16> -> tensor<2x5x3xbf16>
  return %0 : tensor<2x5x3xbf16>
}

// -----

// rms_norm: sum of squares over the last dim, one rsqrt per row, then
// x * rstd * gamma.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[FEAT:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xbf16>, %[[G:.*]]: tensor<8xbf16>)
// CHECK: %[[SS:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x8xbf16>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[RSTD:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[SS]] : tensor<4xf32>)
// CHECK: arith.constant 8.000000e+00 : f32
// CHECK: arith.divf
// CHECK: arith.constant 9.99999974E-6 : f32
// CHECK: arith.addf
// CHECK: math.rsqrt
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[FEAT]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[RSTD]], %[[G]] : tensor<4x8xbf16>, tensor<4xf32>, tensor<8xbf16>) outs(%{{.*}} : tensor<4x8xbf16>)
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.truncf
func.func @rms_norm(%x: tensor<4x8xbf16>, %g: tensor<8xbf16>) -> tensor<4x8xbf16> {
  %0 = npu.rms_norm %x, %g eps(1.0e-5) : tensor<4x8xbf16>, tensor<8xbf16> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

// layer_norm: sum, mean, centered x (materialized), sum of squares, rstd,
// then d * rstd * gamma + beta.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[G:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x8xf32>)
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<4xf32>)
// CHECK: arith.divf
// CHECK: %[[D:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[MEAN]] : tensor<4x8xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: arith.subf
// CHECK: %[[SS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[D]] : tensor<4x8xf32>)
// CHECK: %[[RSTD:.*]] = linalg.generic {{.*}} ins(%[[SS]] : tensor<4xf32>)
// CHECK: math.rsqrt
// CHECK: linalg.generic {{.*}} ins(%[[D]], %[[RSTD]], %[[G]], %[[B]] : tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @layer_norm(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = npu.layer_norm %x, %g, %b : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// rope, interleaved, partial: inv_freq with powf, one [S, R/2] cos/sin
// table, pairs as stride-2 slices of the first R features, inserted back into
// x (features past R pass through).
// CHECK-DAG: #[[TAB:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @rope_interleaved_partial
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8xf32>)
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2xf32>)
// CHECK: arith.constant -4.000000e+00 : f32
// CHECK: math.powf
// CHECK: %[[T:.*]]:2 = linalg.generic {{.*}} ins(%[[INV]] : tensor<2xf32>) outs(%{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<3x2xf32>)
// CHECK: arith.constant 5 : i64
// CHECK: arith.mulf
// CHECK: math.cos
// CHECK: math.sin
// CHECK: %[[X1:.*]] = tensor.extract_slice %[[X]][0, 0, 0] [2, 3, 2] [1, 1, 2]
// CHECK: %[[X2:.*]] = tensor.extract_slice %[[X]][0, 0, 1] [2, 3, 2] [1, 1, 2]
// CHECK: %[[R:.*]]:2 = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[TAB]], #[[TAB]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X1]], %[[X2]], %[[T]]#0, %[[T]]#1
// CHECK: arith.subf
// CHECK: arith.addf
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[R]]#0 into %[[X]][0, 0, 0] [2, 3, 2] [1, 1, 2]
// CHECK: tensor.insert_slice %[[R]]#1 into %[[I1]][0, 0, 1] [2, 3, 2] [1, 1, 2]
func.func @rope_interleaved_partial(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %0 = npu.rope %x offset(5) interleaved rotary_dim(4) : tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// rope, rotate_half, every feature rotated: one op over the result seen as
// [..., S, 2, R/2] (the pairs: the two contiguous halves), reading member 0
// and member 1 of each pair from the same view of x, and choosing by the
// member index which rotation it writes; collapsed back.
// CHECK-DAG: #[[M0:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 0, d4)>
// CHECK-DAG: #[[M1:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 1, d4)>
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d4)>
// CHECK-LABEL: func.func @rope_rotate_half
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x3x8xf16>)
// CHECK: arith.constant 5.000000e+05 : f32
// CHECK: math.powf
// CHECK: %[[P:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1], [2], [3, 4]] output_shape [1, 2, 3, 2, 4]
// CHECK: linalg.generic {indexing_maps = [#[[M0]], #[[M1]], #[[T]], #[[T]], #{{.*}}]{{.*}} ins(%[[P]], %[[P]], %{{.*}}#0, %{{.*}}#1
// CHECK: %[[K:.*]] = linalg.index 3 : index
// CHECK: arith.cmpi eq, %[[K]], %c0
// CHECK: arith.select
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2], [3, 4]] : tensor<1x2x3x2x4xf16> into tensor<1x2x3x8xf16>
func.func @rope_rotate_half(%x: tensor<1x2x3x8xf16>) -> tensor<1x2x3x8xf16> {
  %0 = npu.rope %x theta(500000.0) : tensor<1x2x3x8xf16> -> tensor<1x2x3x8xf16>
  return %0 : tensor<1x2x3x8xf16>
}
