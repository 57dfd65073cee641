// RUN: npu-opt %s --npu-tpu-lower-pipeline="target=mock-tpu" | FileCheck %s
//
// A bf16 GEMM whose result is added to a residual, tiled by hand (M, N tiles
// of 4, K whole, two buffers). The matmul's f32 accumulator tile is rounded
// to bf16 and added to the residual tile in one element-wise op: no bf16 tile
// of the rounded product is held. VMEM, by hand (each buffer a multiple of
// the 64-byte alignment): x 2 x 4x16 bf16 = 256, w 2 x 4x16 bf16 = 256,
// residual 2 x 4x4 bf16 = 64, output 2 x 4x4 bf16 = 64, accumulator 4x4 f32
// = 64: 704 bytes (736 with the rounded tile).
// CHECK: func.func @k({{.*}} attributes {npu.sram_peak = 704 : i64}
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins({{.*}} : memref<4x4xbf16, {{.*}}>, memref<4x4xf32, {{.*}}>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.truncf {{.*}} : f32 to bf16
// CHECK-NEXT: arith.extf
// CHECK-NEXT: arith.extf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.truncf
// CHECK: scf.for
func.func @k(%x: tensor<8x16xbf16>, %w: tensor<8x16xbf16>, %r: tensor<8x8xbf16>) -> tensor<8x8xbf16> {
  %0 = npu.kernel gemm(%x, %w, %r) {npu.tiling = #npu.tiling<loops = [1, 8, 8, 16], tile = [1, 4, 4, 16], buffers = 2, sram_bytes = 704>} : (tensor<8x16xbf16>, tensor<8x16xbf16>, tensor<8x8xbf16>) -> tensor<8x8xbf16> {
  ^bb0(%a: tensor<8x16xbf16>, %b: tensor<8x16xbf16>, %c: tensor<8x8xbf16>):
    %1 = npu.matmul %a, %b transpose_rhs : tensor<8x16xbf16>, tensor<8x16xbf16> -> tensor<8x8xbf16>
    %2 = npu.add %c, %1 : tensor<8x8xbf16>, tensor<8x8xbf16>
    npu.yield %2 : tensor<8x8xbf16>
  }
  return %0 : tensor<8x8xbf16>
}
