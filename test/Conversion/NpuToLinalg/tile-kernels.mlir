// RUN: npu-opt %s --split-input-file --npu-tile-kernels --cse | FileCheck %s

// gemm: M, N tiles over the epilogue (silu) with the matmul and its fill
// fused in, then the K loop carrying the accumulator tile.
// CHECK-LABEL: func.func @gemm
// CHECK-NOT: npu.
// CHECK: scf.for %[[I:.*]] = %c0 to %c8 step %c4 iter_args(%[[O:.*]] = %{{.*}}) -> (tensor<8x12xf32>)
// CHECK: scf.for %[[J:.*]] = %c0 to %c12 step %c6 iter_args(%[[O2:.*]] = %[[O]]) -> (tensor<8x12xf32>)
// CHECK: %[[FILL:.*]] = linalg.fill {{.*}} -> tensor<4x6xf32>
// CHECK: %[[K:.*]] = scf.for %{{.*}} = %c0 to %c16 step %c8 iter_args(%[[ACC:.*]] = %[[FILL]]) -> (tensor<4x6xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<6x8xf32>)
// CHECK: scf.yield
// CHECK: linalg.generic {{.*}} ins(%[[K]] : tensor<4x6xf32>)
// CHECK: math.exp
// CHECK: tensor.insert_slice %{{.*}} into %[[O2]][%[[I]], %[[J]]] [4, 6]
func.func @gemm(%x: tensor<8x16xf32>, %w: tensor<12x16xf32>) -> tensor<8x12xf32> {
  %y = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 8, 12, 16], tile = [1, 4, 6, 8], buffers = 2, sram_bytes = 0>} : (tensor<8x16xf32>, tensor<12x16xf32>) -> tensor<8x12xf32> {
  ^bb0(%a: tensor<8x16xf32>, %b: tensor<12x16xf32>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<8x16xf32>, tensor<12x16xf32> -> tensor<8x12xf32>
    %s = npu.silu %m : tensor<8x12xf32>
    npu.yield %s : tensor<8x12xf32>
  }
  return %y : tensor<8x12xf32>
}

// -----

// gemm with K tile = K: no K loop. Tile sizes that do not divide the loops
// give affine.min boundary tiles.
// CHECK-LABEL: func.func @gemm_full_k
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c4
// CHECK: affine.min
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: tensor<?x16xf32>, tensor<12x16xf32>
func.func @gemm_full_k(%x: tensor<6x16xf32>, %w: tensor<12x16xf32>) -> tensor<6x12xf32> {
  %y = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 6, 12, 16], tile = [1, 4, 12, 16], buffers = 2, sram_bytes = 0>} : (tensor<6x16xf32>, tensor<12x16xf32>) -> tensor<6x12xf32> {
  ^bb0(%a: tensor<6x16xf32>, %b: tensor<12x16xf32>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<6x16xf32>, tensor<12x16xf32> -> tensor<6x12xf32>
    npu.yield %m : tensor<6x12xf32>
  }
  return %y : tensor<6x12xf32>
}

// -----

// GQA causal attention: q viewed as [B*Hkv, G, Sq, D]; blocks of 1 KV head
// and 4 query positions of both query heads; the KV loop ends at the last
// visible key of the block and carries m (running max), l (running sum), acc
// (unnormalized output), each over (KV head, query head, position).
// CHECK-LABEL: func.func @attention_gqa_causal
// CHECK-NOT: npu.
// CHECK: %[[QC:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3], [4]] : tensor<1x2x2x8x16xf32> into tensor<2x2x8x16xf32>
// CHECK: scf.for %[[BH:.*]] = %c0 to %c2 step %c1
// CHECK: scf.for %[[Q0:.*]] = %c0 to %c8 step %c4
// CHECK: %[[LAST:.*]] = arith.addi %[[Q0]], %{{.*}} : index
// CHECK: %[[END:.*]] = arith.addi %[[LAST]], %c0 : index
// CHECK: tensor.extract_slice %[[QC]][%[[BH]], 0, %[[Q0]], 0] [%{{.*}}, 2, %{{.*}}, 16]
// CHECK: %{{.*}}:3 = scf.for %[[K0:.*]] = %c0 to %[[END]] step %c4 iter_args(%[[M:.*]] = %{{.*}}, %[[L:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}) -> (tensor<?x2x?xf32>, tensor<?x2x?xf32>, tensor<?x2x?x16xf32>)
// scores, then the causal mask per element
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.cmpi sle
// CHECK: arith.select
// m' = max(m, rowmax(s))
// CHECK: %[[ROWMAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: %[[MNEW:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[ROWMAX]] :
// CHECK: arith.maximumf
// p = exp(s - m'), alpha = exp(m - m')
// CHECK: math.exp
// CHECK: %[[ALPHA:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[MNEW]] :
// CHECK: math.exp
// l' = l * alpha + rowsum(p), acc' = acc * alpha + p v
// CHECK: %[[LS:.*]] = linalg.generic {{.*}} ins(%[[ALPHA]] : tensor<?x2x?xf32>) outs(%[[L]] : tensor<?x2x?xf32>)
// CHECK: %[[LNEW:.*]] = linalg.generic {{.*}} outs(%[[LS]] : tensor<?x2x?xf32>)
// CHECK: %[[AS:.*]] = linalg.generic {{.*}} ins(%[[ALPHA]] : tensor<?x2x?xf32>) outs(%[[ACC]] : tensor<?x2x?x16xf32>)
// CHECK: %[[ANEW:.*]] = linalg.generic {{.*}} outs(%[[AS]] : tensor<?x2x?x16xf32>)
// CHECK: %[[MOUT:.*]] = linalg.copy ins(%[[MNEW]] : tensor<?x2x?xf32>) outs(%[[M]] : tensor<?x2x?xf32>)
// CHECK: scf.yield %[[MOUT]], %[[LNEW]], %[[ANEW]]
// out = acc / l
// CHECK: arith.divf
// CHECK: tensor.insert_slice %{{.*}}[%[[BH]], 0, %[[Q0]], 0]
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3], [4]] output_shape [1, 2, 2, 8, 16]
func.func @attention_gqa_causal(%q: tensor<1x4x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %y = npu.kernel attention (%q, %k, %v) {npu.tiling = #npu.tiling<loops = [2, 8, 8, 16, 8, 8], tile = [1, 4, 4, 16, 4, 4], buffers = 2, sram_bytes = 0>} : (tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x4x8x16xf32> {
  ^bb0(%a: tensor<1x4x8x16xf32>, %b: tensor<1x2x8x16xf32>, %c: tensor<1x2x8x16xf32>):
    %o = npu.attention %a, %b, %c causal : tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x4x8x16xf32>
    npu.yield %o : tensor<1x4x8x16xf32>
  }
  return %y : tensor<1x4x8x16xf32>
}

// -----

// Sliding window: the KV loop starts at the window start of the block's first
// query (clamped at 0), and the mask also tests j >= pos - W + 1.
// CHECK-LABEL: func.func @attention_window
// CHECK: %[[BEGIN:.*]] = arith.maxsi %{{.*}}, %c0 : index
// CHECK: scf.for %{{.*}} = %[[BEGIN]] to %{{.*}} step %c2 iter_args
// CHECK: arith.cmpi sle
// CHECK: arith.cmpi sge
// CHECK: arith.andi
func.func @attention_window(%q: tensor<1x1x8x4xf32>, %k: tensor<1x1x8x4xf32>, %v: tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32> {
  %y = npu.kernel attention (%q, %k, %v) {npu.tiling = #npu.tiling<loops = [1, 8, 8, 4, 8, 8], tile = [1, 2, 2, 4, 2, 2], buffers = 2, sram_bytes = 0>} : (tensor<1x1x8x4xf32>, tensor<1x1x8x4xf32>, tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32> {
  ^bb0(%a: tensor<1x1x8x4xf32>, %b: tensor<1x1x8x4xf32>, %c: tensor<1x1x8x4xf32>):
    %o = npu.attention %a, %b, %c causal window(3) : tensor<1x1x8x4xf32>, tensor<1x1x8x4xf32>, tensor<1x1x8x4xf32> -> tensor<1x1x8x4xf32>
    npu.yield %o : tensor<1x1x8x4xf32>
  }
  return %y : tensor<1x1x8x4xf32>
}

// -----

// Latent (absorbed MLA) attention: the KV tile is copied on chip once and
// the value tile is a view of its first Dv = 5 columns (not a second load
// of the same rows).
// CHECK-LABEL: func.func @attention_latent
// CHECK: %[[KC:.*]] = tensor.collapse_shape %{{.*}} : tensor<1x1x6x7xf32> into tensor<1x6x7xf32>
// CHECK: scf.for %[[K0:.*]] = %c0 to %{{.*}} step %c4 iter_args
// CHECK: %[[KT:.*]] = tensor.extract_slice %[[KC]][%{{.*}}, %[[K0]], 0] [%{{.*}}, %{{.*}}, 7]
// CHECK-NOT: tensor.extract_slice %[[KC]]
// CHECK: %[[KV:.*]] = bufferization.alloc_tensor() copy(%[[KT]])
// CHECK-NOT: tensor.extract_slice %[[KC]]
// CHECK: tensor.extract_slice %[[KV]][0, 0, 0] [%{{.*}}, %{{.*}}, 5]
func.func @attention_latent(%q: tensor<1x4x1x7xf32>, %kv: tensor<1x1x6x7xf32>) -> tensor<1x4x1x5xf32> {
  %y = npu.kernel mla_absorbed (%q, %kv) {npu.tiling = #npu.tiling<loops = [1, 1, 6, 7, 1, 6], tile = [1, 1, 4, 7, 1, 4], buffers = 2, sram_bytes = 0>} : (tensor<1x4x1x7xf32>, tensor<1x1x6x7xf32>) -> tensor<1x4x1x5xf32> {
  ^bb0(%a: tensor<1x4x1x7xf32>, %b: tensor<1x1x6x7xf32>):
    %o = npu.attention %a, %b latent(5) causal : tensor<1x4x1x7xf32>, tensor<1x1x6x7xf32> -> tensor<1x4x1x5xf32>
    npu.yield %o : tensor<1x4x1x5xf32>
  }
  return %y : tensor<1x4x1x5xf32>
}

// -----

// Gated MLP: M tiles, then F tiles accumulating the down projection in f32.
// CHECK-LABEL: func.func @gated_mlp
// CHECK-NOT: npu.
// CHECK: scf.for %[[M0:.*]] = %c0 to %c8 step %c4 iter_args(%[[O:.*]] = %{{.*}}) -> (tensor<8x6xf32>)
// CHECK: %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<?x6xf32>
// CHECK: scf.for %[[F0:.*]] = %c0 to %c10 step %c4 iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<?x6xf32>)
// CHECK: tensor.extract_slice %{{.*}}[%[[F0]], 0] [%{{.*}}, 6] [1, 1] : tensor<10x6xf32> to tensor<?x6xf32>
// CHECK: math.exp
// CHECK: tensor.extract_slice %{{.*}}[0, %[[F0]]] [6, %{{.*}}] [1, 1] : tensor<6x10xf32> to tensor<6x?xf32>
// CHECK: %[[NEW:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} outs(%[[ACC]] : tensor<?x6xf32>)
// CHECK: scf.yield %[[NEW]]
// CHECK: tensor.insert_slice %{{.*}} into %[[O]][%[[M0]], 0]
func.func @gated_mlp(%x: tensor<8x6xf32>, %wg: tensor<10x6xf32>, %wu: tensor<10x6xf32>, %wd: tensor<6x10xf32>) -> tensor<8x6xf32> {
  %y = npu.kernel gated_mlp (%x, %wg, %wu, %wd) {npu.tiling = #npu.tiling<loops = [8, 10, 6], tile = [4, 4, 6], buffers = 2, sram_bytes = 0>} : (tensor<8x6xf32>, tensor<10x6xf32>, tensor<10x6xf32>, tensor<6x10xf32>) -> tensor<8x6xf32> {
  ^bb0(%a: tensor<8x6xf32>, %g: tensor<10x6xf32>, %u: tensor<10x6xf32>, %d: tensor<6x10xf32>):
    %gt = npu.matmul %a, %g transpose_rhs : tensor<8x6xf32>, tensor<10x6xf32> -> tensor<8x10xf32>
    %up = npu.matmul %a, %u transpose_rhs : tensor<8x6xf32>, tensor<10x6xf32> -> tensor<8x10xf32>
    %h = npu.swiglu %gt, %up : tensor<8x10xf32>
    %o = npu.matmul %h, %d transpose_rhs : tensor<8x10xf32>, tensor<6x10xf32> -> tensor<8x6xf32>
    npu.yield %o : tensor<8x6xf32>
  }
  return %y : tensor<8x6xf32>
}

// -----

// Without npu.tiling, and for moe_ffn, the kernel is lowered untiled.
// CHECK-LABEL: func.func @untiled
// CHECK-NOT: npu.
// CHECK-NOT: scf.for
// CHECK: linalg.generic
// CHECK-NOT: scf.for
// CHECK: return
func.func @untiled(%x: tensor<8x16xf32>, %w: tensor<12x16xf32>) -> tensor<8x12xf32> {
  %y = npu.kernel gemm (%x, %w) : (tensor<8x16xf32>, tensor<12x16xf32>) -> tensor<8x12xf32> {
  ^bb0(%a: tensor<8x16xf32>, %b: tensor<12x16xf32>):
    %m = npu.matmul %a, %b transpose_rhs : tensor<8x16xf32>, tensor<12x16xf32> -> tensor<8x12xf32>
    npu.yield %m : tensor<8x12xf32>
  }
  return %y : tensor<8x12xf32>
}

// moe_ffn, expert-major: the assignments counted and ranked by expert once
// (a reduction per expert, a prefix sum; in one block of 256, each expert's
// count, a scan over the blocks, each assignment's rank in its block; then one
// pass over the 6 assignments scattering the order), the visit table (per
// expert its M tiles of 2, per visit its expert: 6 entries, at most (8 + 4 x
// 1) / 2 visits of the plan's 8 rows, 4 of them under the plan), then one
// loop over the visits (a run-time count): rows of x gathered one at a
// time, an F loop of 2 over the expert's weights, the tile's rows stored
// one at a time at their assignments' rows of o [6, 4]; then per M tile of
// 2 tokens, its tokens' rows of o (one block: o is in assignment order)
// summed over the slots.
// CHECK-LABEL: func.func @moe_ffn
// CHECK-NOT: {{npu\.[a-z_]+ [^=]}}
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<4xi64>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<4xi64>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<1x4xi64>)
// CHECK: scf.for %{{.*}} = %c0 to %c1 step %c1 iter_args({{.*}}) -> (tensor<1x4xi64>, tensor<1x4xi64>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<1x256xi64>)
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c1 iter_args({{.*}}) -> (tensor<6xi64>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<6xi64>) attrs = {npu.planned_values = array<i64: 0, 1, 2, 3, 4, 4>}
// CHECK: %[[NV:.*]] = tensor.extract %{{.*}}[%c0] : tensor<1xi64>
// CHECK: %[[N:.*]] = arith.index_cast %[[NV]]
// CHECK: scf.for %[[V:.*]] = %c0 to %[[N]] step %c1
// CHECK: %[[VE:.*]] = tensor.extract %{{.*}}[%[[V]]] : tensor<6xi64>
// CHECK: %[[E:.*]] = arith.index_cast %[[VE]]
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1
// CHECK: tensor.insert_slice {{.*}} : tensor<1x4xf32> into tensor<2x4xf32>
// CHECK: scf.for %[[F:.*]] = %c0 to %c3{{.*}} step %c2
// CHECK: tensor.extract_slice %{{.*}}[%[[E]], %[[F]], 0] [1, %{{.*}}, 4] [1, 1, 1] : tensor<4x3x4xf32> to tensor<?x4xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args({{.*}}) -> (tensor<6x4xf32>)
// CHECK: tensor.insert_slice {{.*}} : tensor<1x4xf32> into tensor<6x4xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c2
// CHECK: scf.for
// CHECK: tensor.extract_slice {{.*}} : tensor<6x4xf32> to tensor<?x4xf32>
// CHECK: tensor.expand_shape {{.*}} into tensor<?x2x4xf32>
// CHECK: return
func.func @moe_ffn(%x: tensor<3x4xf32>, %idx: tensor<3x2xi64>, %w: tensor<3x2xf32>, %wg: tensor<4x3x4xf32>, %wu: tensor<4x3x4xf32>, %wd: tensor<4x4x3xf32>) -> tensor<3x4xf32> {
  %y = npu.kernel moe_ffn (%x, %idx, %w, %wg, %wu, %wd) {npu.tiling = #npu.tiling<loops = [3, 3, 4], tile = [2, 2, 4], buffers = 2, sram_bytes = 0>} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>, tensor<4x3x4xf32>, tensor<4x3x4xf32>, tensor<4x4x3xf32>) -> tensor<3x4xf32> {
  ^bb0(%a: tensor<3x4xf32>, %i: tensor<3x2xi64>, %r: tensor<3x2xf32>, %g: tensor<4x3x4xf32>, %u: tensor<4x3x4xf32>, %d: tensor<4x4x3xf32>):
    %o = npu.moe_experts %a, %i, %r, %g, %u, %d load(#npu.expert_load<uniform>) : tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>, tensor<4x3x4xf32>, tensor<4x3x4xf32>, tensor<4x4x3xf32> -> tensor<3x4xf32>
    npu.yield %o : tensor<3x4xf32>
  }
  return %y : tensor<3x4xf32>
}

// -----

// A router kernel whose results nothing uses yields none: nothing to tile,
// its body is lowered as it is (found by npu-fuzz-backends: the tiling took
// the last of no results).
// CHECK-LABEL: func.func @unused_router
// CHECK-NOT: scf.for
// CHECK: return
func.func @unused_router(%l: tensor<4x8xf32>) {
  npu.kernel stream(%l) {npu.tiling = #npu.tiling<loops = [4, 3], tile = [2, 3], buffers = 1, sram_bytes = 0>} : (tensor<4x8xf32>) -> () {
  ^bb0(%a: tensor<4x8xf32>):
    %i, %w = npu.moe_router %a top_k(3) scoring(sigmoid) groups(2, 1) : tensor<4x8xf32> -> tensor<4x3xi32>, tensor<4x3xf32>
    npu.yield
  }
  return
}
