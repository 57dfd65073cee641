// RUN: npu-opt %s --npu-tpu-pipeline="target=tpu-v7" -o %t.mlir
// RUN: FileCheck %s --check-prefix=TILE < %t.mlir
// RUN: npu-opt %t.mlir --npu-tpu-check-plan="report=true" -o /dev/null | FileCheck %s
//
// A gated MLP (D = 2048, F = 4096, 256 rows, bf16) whose tile search on
// tpu-v7 holds one D chunk of each weight tile (the same HBM bytes as all
// of D, less SRAM): per F tile, g and u summed over the D chunks, then the
// down projection's output D chunk by D chunk (buildGatedFLoop), x's M tile
// copied on chip once. Its memory program reads and writes exactly what
// the model prices: x once (1 MiB), the three weights once per M tile
// (3 x 4096 x 2048 x 2 = 48 MiB): 51380224 B.
// TILE: npu.kernel gated_mlp{{.*}}tile = [256, {{[0-9]+}}, 1024]
// CHECK: 0 gated_mlp 51380224 51380224 1048576 1048576 {{[0-9]+}} {{[0-9]+}} {{[0-9]+}} ok
// CHECK: npu-tpu-check-plan: 1 kernels, 1 as priced, 0 not
func.func @mlp(%x: tensor<256x2048xbf16>, %wg: tensor<4096x2048xbf16>, %wu: tensor<4096x2048xbf16>, %wd: tensor<2048x4096xbf16>) -> tensor<256x2048xbf16> {
  %g = npu.matmul %x, %wg transpose_rhs : tensor<256x2048xbf16>, tensor<4096x2048xbf16> -> tensor<256x4096xbf16>
  %u = npu.matmul %x, %wu transpose_rhs : tensor<256x2048xbf16>, tensor<4096x2048xbf16> -> tensor<256x4096xbf16>
  %h = npu.swiglu %g, %u : tensor<256x4096xbf16>
  %y = npu.matmul %h, %wd transpose_rhs : tensor<256x4096xbf16>, tensor<2048x4096xbf16> -> tensor<256x2048xbf16>
  return %y : tensor<256x2048xbf16>
}
