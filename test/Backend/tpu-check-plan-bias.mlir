// RUN: npu-opt %s --npu-tpu-pipeline="target=mock-tpu" | npu-opt --npu-tpu-check-plan="report=true" -o /dev/null | FileCheck %s

// GEMMs with a bias (a vector of one value per output column) and a
// residual in the epilogue, on mock-tpu: each output tile loads the bias
// slice of its columns, so the bias is read once per row of output tiles,
// or once and held when N is one tile (the same slice for every tile).
// Both as priced to the byte, with the bias slices' buffers in the
// working set.
// CHECK: kernel	kind
// CHECK-NEXT: 0	gemm	{{.*}}	ok
// CHECK-NEXT: 1	gemm	{{.*}}	ok
// CHECK-NEXT: npu-tpu-check-plan: 2 kernels, 2 as priced, 0 not; bytes not measurable in 0

func.func @narrow(%x: tensor<1x256x128xbf16>, %w: tensor<128x128xbf16>, %b: tensor<128xbf16>, %r: tensor<1x256x128xbf16>) -> tensor<1x256x128xbf16> {
  %0 = npu.matmul %x, %w transpose_rhs : tensor<1x256x128xbf16>, tensor<128x128xbf16> -> tensor<1x256x128xbf16>
  %1 = npu.add %0, %b : tensor<1x256x128xbf16>, tensor<128xbf16>
  %2 = npu.add %r, %1 : tensor<1x256x128xbf16>, tensor<1x256x128xbf16>
  return %2 : tensor<1x256x128xbf16>
}

func.func @wide(%x: tensor<1x1024x256xbf16>, %w: tensor<1024x256xbf16>, %b: tensor<1024xbf16>, %r: tensor<1x1024x1024xbf16>) -> tensor<1x1024x1024xbf16> {
  %0 = npu.matmul %x, %w transpose_rhs : tensor<1x1024x256xbf16>, tensor<1024x256xbf16> -> tensor<1x1024x1024xbf16>
  %1 = npu.add %0, %b : tensor<1x1024x1024xbf16>, tensor<1024xbf16>
  %2 = npu.add %r, %1 : tensor<1x1024x1024xbf16>, tensor<1x1024x1024xbf16>
  return %2 : tensor<1x1024x1024xbf16>
}
