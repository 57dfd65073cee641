// RUN: npu-opt %s --split-input-file --npu-weights-to-globals --verify-diagnostics | FileCheck %s

// Each weight is read from a constant external global of its name, in the
// order of first use; a name used twice is one global.
// CHECK: memref.global constant @model.norm.weight : memref<8xbf16> {alignment = 64 : i64}
// CHECK-NEXT: memref.global constant @lm_head.weight : memref<16x8xbf16> {alignment = 64 : i64}
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @model
// CHECK: %[[N:.*]] = memref.get_global @model.norm.weight : memref<8xbf16>
// CHECK: bufferization.to_tensor %[[N]] restrict : memref<8xbf16> to tensor<8xbf16>
// CHECK: memref.get_global @lm_head.weight
// CHECK: memref.get_global @model.norm.weight
// CHECK-NOT: npu.weight
func.func @model(%x: tensor<4x8xbf16>) -> tensor<4x16xbf16> {
  %n = npu.weight "model.norm.weight" : tensor<8xbf16>
  %h = npu.rms_norm %x, %n : tensor<4x8xbf16>, tensor<8xbf16> -> tensor<4x8xbf16>
  %w = npu.weight "lm_head.weight" : tensor<16x8xbf16>
  %n2 = npu.weight "model.norm.weight" : tensor<8xbf16>
  %h2 = npu.rms_norm %h, %n2 : tensor<4x8xbf16>, tensor<8xbf16> -> tensor<4x8xbf16>
  %y = npu.matmul %h2, %w transpose_rhs : tensor<4x8xbf16>, tensor<16x8xbf16> -> tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}

// -----

// One name, two types: not one parameter.
func.func @model() -> (tensor<8xbf16>, tensor<4xbf16>) {
  %a = npu.weight "w" : tensor<8xbf16>
  // expected-error @below {{npu-weights-to-globals: weight 'w' of type 'tensor<4xbf16>' has the name of a global of type 'memref<8xbf16>'}}
  %b = npu.weight "w" : tensor<4xbf16>
  return %a, %b : tensor<8xbf16>, tensor<4xbf16>
}

// -----

// A weight named like a function.
func.func @w() {
  return
}
func.func @model() -> tensor<8xbf16> {
  // expected-error @below {{npu-weights-to-globals: the weight name 'w' is already a symbol of the module}}
  %a = npu.weight "w" : tensor<8xbf16>
  return %a : tensor<8xbf16>
}
