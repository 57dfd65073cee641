// RUN: npu-opt %s | npu-opt | FileCheck %s
// RUN: npu-opt %s --mlir-print-op-generic | npu-opt | FileCheck %s
// RUN: npu-opt %s --npu-report-work -o /dev/null | FileCheck %s --check-prefix=WORK

// DeepSeek-V3's fp8 weights with 128 x 128 block scales: the matmul reads
// x (16*256*2 = 8192 bytes), the stored fp8 weight (256*384 = 98304 bytes)
// and its [2 x 3] f32 scales (24 bytes), all parameter bytes but x; the
// dequantize itself does no work (its consumer converts the tiles it loads).
// CHECK-LABEL: func.func @fp8_block
// CHECK: npu.dequantize %{{.*}}, %{{.*}} block [128, 128] : tensor<256x384xf8E4M3FN>, tensor<2x3xf32> -> tensor<256x384xbf16>
// WORK-LABEL: func @fp8_block
// WORK: npu.dequantize 0 0 0 0 0 0
// WORK: npu.matmul 3145728 0 0 106520 12288 98328
func.func @fp8_block(%x: tensor<16x256xbf16>) -> tensor<16x384xbf16> {
  %q = npu.weight "w" : tensor<256x384xf8E4M3FN>
  %s = npu.weight "w_scale_inv" : tensor<2x3xf32>
  %w = npu.dequantize %q, %s block [128, 128] : tensor<256x384xf8E4M3FN>, tensor<2x3xf32> -> tensor<256x384xbf16>
  %y = npu.matmul %x, %w : tensor<16x256xbf16>, tensor<256x384xbf16> -> tensor<16x384xbf16>
  return %y : tensor<16x384xbf16>
}

// MXFP4 experts (GPT-OSS): 4 experts of [64 x 96] e2m1 values, two per
// byte (4*64*96/2 = 12288 bytes), one e8m0 scale per 32 along the last
// dimension (4*64*3 = 768 bytes).
// CHECK-LABEL: func.func @mxfp4
// CHECK: npu.dequantize %{{.*}}, %{{.*}} block [1, 1, 32] : tensor<4x64x96xf4E2M1FN>, tensor<4x64x3xf8E8M0FNU> -> tensor<4x64x96xbf16>
// WORK-LABEL: func @mxfp4
// WORK: npu.matmul {{[0-9]+}} 0 0 {{[0-9]+}} {{[0-9]+}} 13056
func.func @mxfp4(%x: tensor<4x8x96xbf16>, %v: tensor<4x64x96xf4E2M1FN> {npu.param}, %s: tensor<4x64x3xf8E8M0FNU> {npu.param}) -> tensor<4x8x64xbf16> {
  %w = npu.dequantize %v, %s block [1, 1, 32] : tensor<4x64x96xf4E2M1FN>, tensor<4x64x3xf8E8M0FNU> -> tensor<4x64x96xbf16>
  %y = npu.matmul %x, %w transpose_rhs : tensor<4x8x96xbf16>, tensor<4x64x96xbf16> -> tensor<4x8x64xbf16>
  return %y : tensor<4x8x64xbf16>
}

// NVFP4 with its per-tensor f32 scale; int4 groups of 128 along K.
// CHECK-LABEL: func.func @nvfp4_int4
// CHECK: npu.dequantize %{{.*}}, %{{.*}} global(%{{.*}}) block [1, 16] : tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<f32> -> tensor<64x128xbf16>
// CHECK: npu.dequantize %{{.*}}, %{{.*}} block [128, 1] : tensor<128x64xi4>, tensor<1x64xbf16> -> tensor<128x64xbf16>
func.func @nvfp4_int4(%x: tensor<2x128xbf16>, %v: tensor<64x128xf4E2M1FN>, %s: tensor<64x8xf8E4M3FN>, %g: tensor<f32>,
                      %v4: tensor<128x64xi4>, %s4: tensor<1x64xbf16>) -> (tensor<2x64xbf16>, tensor<2x64xbf16>) {
  %w = npu.dequantize %v, %s global(%g) block [1, 16] : tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<f32> -> tensor<64x128xbf16>
  %y = npu.matmul %x, %w transpose_rhs : tensor<2x128xbf16>, tensor<64x128xbf16> -> tensor<2x64xbf16>
  %w4 = npu.dequantize %v4, %s4 block [128, 1] : tensor<128x64xi4>, tensor<1x64xbf16> -> tensor<128x64xbf16>
  %z = npu.matmul %x, %w4 : tensor<2x128xbf16>, tensor<128x64xbf16> -> tensor<2x64xbf16>
  return %y, %z : tensor<2x64xbf16>, tensor<2x64xbf16>
}
