// Class: NaN or infinite attribute values.
// RUN: rm -f %t.out
// RUN: %exit1 npu-opt %s --split-input-file -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: nan-attribute.mlir:[[@LINE+2]]:8: error:
func.func @nan_scale(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %0 = npu.attention %q, %q, %q scale(0x7FF8000000000000) : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

// CHECK: nan-attribute.mlir:[[@LINE+2]]:{{[0-9]+}}: error: cost time_ns must be finite and >= 0
func.func @inf_cost(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = npu.silu %x {npu.cost = #npu.cost<time_ns = 0x7FF0000000000000, compute_ns = 0.0, memory_ns = 0.0, overhead_ns = 0.0, hbm_read_bytes = 0, hbm_write_bytes = 0, onchip_bytes = 0, flops = 0, padded_flops = 0, bound = compute, matrix_utilization = 0.0>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
