// RUN: npu-opt %s | npu-opt | FileCheck %s
// RUN: npu-opt %s --mlir-print-op-generic | npu-opt | FileCheck %s

// CHECK-LABEL: func.func @decode_step
// CHECK: %[[K:.*]] = npu.kv_cache_append %{{.*}}, %{{.*}} at %{{.*}} : tensor<1x8x4096x128xbf16>, tensor<1x8x1x128xbf16> -> tensor<1x8x4096x128xbf16>
// CHECK: npu.kv_cache_read %[[K]] length(1025) : tensor<1x8x4096x128xbf16> -> tensor<1x8x1025x128xbf16>
func.func @decode_step(%cache: tensor<1x8x4096x128xbf16>, %new: tensor<1x8x1x128xbf16>, %pos: index)
    -> (tensor<1x8x4096x128xbf16>, tensor<1x8x1025x128xbf16>) {
  %c = npu.kv_cache_append %cache, %new at %pos : tensor<1x8x4096x128xbf16>, tensor<1x8x1x128xbf16> -> tensor<1x8x4096x128xbf16>
  %kv = npu.kv_cache_read %c length(1025) : tensor<1x8x4096x128xbf16> -> tensor<1x8x1025x128xbf16>
  return %c, %kv : tensor<1x8x4096x128xbf16>, tensor<1x8x1025x128xbf16>
}

// CHECK-LABEL: func.func @fp8_prefill
// CHECK: npu.kv_cache_append %{{.*}}, %{{.*}} at %{{.*}} : tensor<2x4x64x16xf8E4M3FN>, tensor<2x4x64x16xf8E4M3FN> -> tensor<2x4x64x16xf8E4M3FN>
// CHECK: npu.kv_cache_read %{{.*}} length(64) : tensor<2x4x64x16xf8E4M3FN> -> tensor<2x4x64x16xf8E4M3FN>
func.func @fp8_prefill(%cache: tensor<2x4x64x16xf8E4M3FN>, %new: tensor<2x4x64x16xf8E4M3FN>) -> tensor<2x4x64x16xf8E4M3FN> {
  %c0 = arith.constant 0 : index
  %c = npu.kv_cache_append %cache, %new at %c0 : tensor<2x4x64x16xf8E4M3FN>, tensor<2x4x64x16xf8E4M3FN> -> tensor<2x4x64x16xf8E4M3FN>
  %kv = npu.kv_cache_read %c length(64) : tensor<2x4x64x16xf8E4M3FN> -> tensor<2x4x64x16xf8E4M3FN>
  return %kv : tensor<2x4x64x16xf8E4M3FN>
}
