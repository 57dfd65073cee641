// RUN: npu-opt %s --npu-lower-to-linalg | FileCheck %s

// GQA (Hq = 4, Hkv = 2 -> G = 2), causal, sliding window 3, Sq = 2 < Skv = 6,
// fp8 KV cache, bf16 result.

// CHECK-DAG: #[[Q:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 2, d3, d4)>
// CHECK-DAG: #[[OUT5:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[V:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 2, d4, d3)>

// CHECK-LABEL: func.func @gqa_window
// CHECK-NOT: npu.attention
// Scores = Q K^T in f32, key head h floordiv 2.
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[Q]], #[[K]], #[[OUT5]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<1x4x2x8xbf16>, tensor<1x2x6x8xf8E4M3FN>) outs(%{{.*}} : tensor<1x4x2x6xf32>)
// The fp8 key is decoded from its bits (QuantPatterns.cpp).
// CHECK: arith.bitcast %{{.*}} : f8E4M3FN to i8
// CHECK: arith.mulf
// CHECK: arith.addf
// Scale (1/sqrt(8)) and mask: j <= i + 4 and j >= i + 4 - 3 + 1.
// CHECK: %[[L:.*]] = linalg.generic {indexing_maps = [#[[ID4]], #[[ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[S]]
// CHECK: arith.constant 0.353553385 : f32
// CHECK: arith.mulf
// CHECK: %[[I:.*]] = linalg.index 2 : index
// CHECK: %[[J:.*]] = linalg.index 3 : index
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[P:.*]] = arith.addi %[[I]], %[[C4]] : index
// CHECK: %[[CAUSAL:.*]] = arith.cmpi sle, %[[J]], %[[P]] : index
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[LO:.*]] = arith.subi %[[P]], %[[C2]] : index
// CHECK: %[[WIN:.*]] = arith.cmpi sge, %[[J]], %[[LO]] : index
// CHECK: %[[VIS:.*]] = arith.andi %[[CAUSAL]], %[[WIN]] : i1
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.select %[[VIS]]
// Row max from -inf.
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: %[[M:.*]] = linalg.generic {indexing_maps = [#[[ID4]], #[[ROW]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[L]]
// CHECK: arith.maximumf
// CHECK: %[[E:.*]] = linalg.generic {indexing_maps = [#[[ID4]], #[[ROW]], #[[ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[L]], %[[M]]
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID4]], #[[ROW]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[E]]
// CHECK: arith.addf
// P V, value head h floordiv 2, reduction over keys.
// CHECK: %[[PV:.*]] = linalg.generic {indexing_maps = [#[[Q]], #[[V]], #[[OUT5]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[E]], %{{.*}} : tensor<1x4x2x6xf32>, tensor<1x2x6x4xf8E4M3FN>) outs(%{{.*}} : tensor<1x4x2x4xf32>)
// Normalize and round once to bf16.
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID4]], #[[ROW]], #[[ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[PV]], %[[SUM]] : tensor<1x4x2x4xf32>, tensor<1x4x2xf32>) outs(%{{.*}} : tensor<1x4x2x4xbf16>)
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: return %[[R]]
func.func @gqa_window(%q: tensor<1x4x2x8xbf16>, %k: tensor<1x2x6x8xf8E4M3FN>, %v: tensor<1x2x6x4xf8E4M3FN>) -> tensor<1x4x2x4xbf16> {
  %0 = npu.attention %q, %k, %v causal window(3) : tensor<1x4x2x8xbf16>, tensor<1x2x6x8xf8E4M3FN>, tensor<1x2x6x4xf8E4M3FN> -> tensor<1x4x2x4xbf16>
  return %0 : tensor<1x4x2x4xbf16>
}

// Latent MLA decode: V is the slice kv[..., 0:4]; no mask when not causal.
// CHECK-LABEL: func.func @latent
// CHECK: %[[VS:.*]] = tensor.extract_slice %[[KV:.*]][0, 0, 0, 0] [1, 1, 5, 4] [1, 1, 1, 1] : tensor<1x1x5x6xf32> to tensor<1x1x5x4xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[KV]] : tensor<1x4x1x6xf32>, tensor<1x1x5x6xf32>)
// CHECK: arith.constant 3.750000e-01 : f32
// CHECK-NOT: linalg.index
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[VS]] : tensor<1x4x1x5xf32>, tensor<1x1x5x4xf32>) outs(%{{.*}} : tensor<1x4x1x4xf32>)
// CHECK: arith.divf
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @latent(%q: tensor<1x4x1x6xf32>, %kv: tensor<1x1x5x6xf32>) -> tensor<1x4x1x4xf32> {
  %0 = npu.attention %q, %kv latent(4) scale(0.375) : tensor<1x4x1x6xf32>, tensor<1x1x5x6xf32> -> tensor<1x4x1x4xf32>
  return %0 : tensor<1x4x1x4xf32>
}
