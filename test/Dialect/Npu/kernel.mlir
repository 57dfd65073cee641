// RUN: npu-opt %s | FileCheck %s
// RUN: npu-opt %s | npu-opt | FileCheck %s
// RUN: npu-opt %s --mlir-print-op-generic | npu-opt | FileCheck %s

// CHECK-LABEL: func.func @gemm
// CHECK: %[[Y:.*]] = npu.kernel gemm(%{{.*}}, %{{.*}}, %{{.*}}) {npu.tiling = #npu.tiling<loops = [1, 64, 256, 512], tile = [1, 32, 128, 256], buffers = 2, sram_bytes = 1024>} : (tensor<64x512xbf16>, tensor<256x512xbf16>, tensor<64x256xbf16>) -> tensor<64x256xbf16> {
// CHECK: ^bb0(%[[A:.*]]: tensor<64x512xbf16>, %[[W:.*]]: tensor<256x512xbf16>, %[[R:.*]]: tensor<64x256xbf16>):
// CHECK:   %[[M:.*]] = npu.matmul %[[A]], %[[W]] transpose_rhs
// CHECK:   %[[S:.*]] = npu.add %[[M]], %[[R]]
// CHECK:   npu.yield %[[S]] : tensor<64x256xbf16>
// CHECK: }
// CHECK: return %[[Y]]
func.func @gemm(%x: tensor<64x512xbf16>, %w: tensor<256x512xbf16>, %b: tensor<64x256xbf16>) -> tensor<64x256xbf16> {
  %y = npu.kernel gemm (%x, %w, %b) {npu.tiling = #npu.tiling<loops = [1, 64, 256, 512], tile = [1, 32, 128, 256], buffers = 2, sram_bytes = 1024>} : (tensor<64x512xbf16>, tensor<256x512xbf16>, tensor<64x256xbf16>) -> tensor<64x256xbf16> {
  ^bb0(%a: tensor<64x512xbf16>, %wt: tensor<256x512xbf16>, %r: tensor<64x256xbf16>):
    %m = npu.matmul %a, %wt transpose_rhs : tensor<64x512xbf16>, tensor<256x512xbf16> -> tensor<64x256xbf16>
    %s = npu.add %m, %r : tensor<64x256xbf16>, tensor<64x256xbf16>
    npu.yield %s : tensor<64x256xbf16>
  }
  return %y : tensor<64x256xbf16>
}

// Two results, every kind keyword.
// CHECK-LABEL: func.func @kinds
// CHECK: npu.kernel stream(%{{.*}}) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: npu.yield %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: npu.kernel copy
// CHECK: npu.kernel gated_mlp
// CHECK: npu.kernel attention
// CHECK: npu.kernel mla_absorbed
// CHECK: npu.kernel moe_ffn
func.func @kinds(%x: tensor<4x8xf32>) {
  %a:2 = npu.kernel stream (%x) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%v: tensor<4x8xf32>):
    %s = npu.silu %v : tensor<4x8xf32>
    npu.yield %s, %v : tensor<4x8xf32>, tensor<4x8xf32>
  }
  %names = npu.kernel copy (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%v: tensor<4x8xf32>):
    npu.yield %v : tensor<4x8xf32>
  }
  %g = npu.kernel gated_mlp (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%v: tensor<4x8xf32>):
    npu.yield %v : tensor<4x8xf32>
  }
  %t = npu.kernel attention (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%v: tensor<4x8xf32>):
    npu.yield %v : tensor<4x8xf32>
  }
  %l = npu.kernel mla_absorbed (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%v: tensor<4x8xf32>):
    npu.yield %v : tensor<4x8xf32>
  }
  %e = npu.kernel moe_ffn (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%v: tensor<4x8xf32>):
    npu.yield %v : tensor<4x8xf32>
  }
  return
}
