// RUN: npu-opt %s --npu-lower-to-linalg | FileCheck %s

// A bf16 accumulator rounded to an f16 result: the two formats have the
// same width, so neither arith.extf nor arith.truncf alone is valid between
// them; the value goes through f32 (found by npu-fuzz-passes).
// CHECK-LABEL: func.func @acc_bf16_to_f16
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to f16
func.func @acc_bf16_to_f16(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf16> {
  %0 = npu.matmul %a, %b acc(bf16) : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}
