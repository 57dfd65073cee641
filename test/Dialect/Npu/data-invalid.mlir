// RUN: npu-opt %s -split-input-file -verify-diagnostics

func.func @embedding_table_rank(%t: tensor<2x100x16xf32>, %ids: tensor<4xi32>) {
  // expected-error @+1 {{table must have rank 2 ([V, D]), got rank 3}}
  %0 = npu.embedding %t, %ids : tensor<2x100x16xf32>, tensor<4xi32> -> tensor<4x16xf32>
  return
}

// -----

func.func @embedding_ids_float(%t: tensor<100x16xf32>, %ids: tensor<4xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = npu.embedding %t, %ids : tensor<100x16xf32>, tensor<4xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @embedding_ids_i16(%t: tensor<100x16xf32>, %ids: tensor<4xi16>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = npu.embedding %t, %ids : tensor<100x16xf32>, tensor<4xi16> -> tensor<4x16xf32>
  return
}

// -----

func.func @embedding_result_type(%t: tensor<100x16xbf16>, %ids: tensor<4xi32>) {
  // expected-error @+1 {{result element type 'f32' differs from the table element type 'bf16'}}
  %0 = npu.embedding %t, %ids : tensor<100x16xbf16>, tensor<4xi32> -> tensor<4x16xf32>
  return
}

// -----

func.func @embedding_result_shape(%t: tensor<100x16xf32>, %ids: tensor<2x4xi64>) {
  // expected-error @+1 {{result shape [8, 16] differs from the ids shape followed by D [2, 4, 16]}}
  %0 = npu.embedding %t, %ids : tensor<100x16xf32>, tensor<2x4xi64> -> tensor<8x16xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result has 30 elements, the input has 32}}
  %0 = npu.reshape %x : tensor<4x8xf32> -> tensor<5x6xf32>
  return
}

// -----

func.func @reshape_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result element type 'bf16' differs from the input element type 'f32'}}
  %0 = npu.reshape %x : tensor<4x8xf32> -> tensor<32xbf16>
  return
}

// -----

func.func @reshape_dynamic(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of}}
  %0 = npu.reshape %x : tensor<4x8xf32> -> tensor<?xf32>
  return
}

// -----

func.func @transpose_perm_size(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{perm has 2 entries, expected one per input dimension (3)}}
  %0 = npu.transpose %x perm [1, 0] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  return
}

// -----

func.func @transpose_perm_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{perm entry 1 is 2, not in [0, 2)}}
  %0 = npu.transpose %x perm [0, 2] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_perm_negative(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{perm entry 0 is -1, not in [0, 2)}}
  %0 = npu.transpose %x perm [-1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_perm_duplicate(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{perm [1, 1, 0] is not a permutation: 1 appears twice}}
  %0 = npu.transpose %x perm [1, 1, 0] : tensor<2x3x4xf32> -> tensor<3x3x2xf32>
  return
}

// -----

func.func @transpose_result_shape(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{result shape [2, 4, 3] differs from the permuted input shape [3, 2, 4]}}
  %0 = npu.transpose %x perm [1, 0, 2] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  return
}

// -----

func.func @transpose_result_type(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{result element type 'i64' differs from the input element type 'i32'}}
  %0 = npu.transpose %x perm [1, 0] : tensor<2x3xi32> -> tensor<3x2xi64>
  return
}

// -----

func.func @concat_empty() {
  // expected-error @+1 {{needs at least one input}}
  %0 = "npu.concat"() <{dim = 0 : i64}> : () -> tensor<4xf32>
  return
}

// -----

func.func @concat_dim(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // expected-error @+1 {{dim 2 is not in [0, 2) (the result's rank)}}
  %0 = npu.concat %a, %b dim(2) : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_negative_dim(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // expected-error @+1 {{dim -1 is not in [0, 2) (the result's rank)}}
  %0 = npu.concat %a, %b dim(-1) : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_element_type(%a: tensor<2x3xf32>, %b: tensor<2x3xbf16>) {
  // expected-error @+1 {{input #1 element type 'bf16' differs from the result element type 'f32'}}
  %0 = npu.concat %a, %b dim(1) : tensor<2x3xf32>, tensor<2x3xbf16> -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{input #1 has rank 1, expected 2 (the result's rank)}}
  %0 = npu.concat %a, %b dim(1) : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_other_dim(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{input #1 has size 4 in dimension 0, expected 2 (all dimensions but 1 match the result)}}
  %0 = npu.concat %a, %b dim(1) : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_sum(%a: tensor<2x3xi64>, %b: tensor<2x5xi64>) {
  // expected-error @+1 {{result dimension 1 is 7, expected the sum of the inputs' sizes 8}}
  %0 = npu.concat %a, %b dim(1) : tensor<2x3xi64>, tensor<2x5xi64> -> tensor<2x7xi64>
  return
}

// -----

func.func @slice_offsets_size(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{offsets has 1 entries, expected 2 (the input's rank)}}
  %0 = npu.slice %x offsets [0] sizes [2, 2] strides [1, 1] : tensor<4x8xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_sizes_size(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{sizes has 3 entries, expected 2 (the input's rank)}}
  %0 = npu.slice %x offsets [0, 0] sizes [2, 2, 1] strides [1, 1] : tensor<4x8xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_strides_size(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{strides has 1 entries, expected 2 (the input's rank)}}
  %0 = npu.slice %x offsets [0, 0] sizes [2, 2] strides [1] : tensor<4x8xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_negative_offset(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{offset of dimension 1 is -1; offsets must be >= 0}}
  %0 = npu.slice %x offsets [0, -1] sizes [2, 2] strides [1, 1] : tensor<4x8xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_zero_size(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{size of dimension 0 is 0; sizes must be >= 1}}
  %0 = npu.slice %x offsets [0, 0] sizes [0, 2] strides [1, 1] : tensor<4x8xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_zero_stride(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{stride of dimension 1 is 0; strides must be >= 1}}
  %0 = npu.slice %x offsets [0, 0] sizes [2, 2] strides [1, 0] : tensor<4x8xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_negative_stride(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{stride of dimension 0 is -1; strides must be >= 1}}
  %0 = npu.slice %x offsets [3, 0] sizes [2, 2] strides [-1, 1] : tensor<4x8xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_out_of_bounds(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{slice of dimension 1 (offset 2, size 4, stride 2) is out of bounds for size 8}}
  %0 = npu.slice %x offsets [0, 2] sizes [2, 4] strides [1, 2] : tensor<4x8xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @slice_overflow(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{slice of dimension 0 (offset 1, size 3, stride 9223372036854775807) is out of bounds for size 4}}
  %0 = npu.slice %x offsets [1, 0] sizes [3, 2] strides [9223372036854775807, 1] : tensor<4x8xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @slice_result_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result shape [2, 3] differs from sizes [2, 2]}}
  %0 = npu.slice %x offsets [0, 0] sizes [2, 2] strides [1, 1] : tensor<4x8xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_result_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result element type 'f16' differs from the input element type 'f32'}}
  %0 = npu.slice %x offsets [0, 0] sizes [2, 2] strides [1, 1] : tensor<4x8xf32> -> tensor<2x2xf16>
  return
}

// -----

func.func @broadcast_type(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{result element type 'bf16' differs from the input's 'f32'}}
  %0 = npu.broadcast %x : tensor<1x4xf32> -> tensor<3x4xbf16>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{result rank 3 differs from the input rank 2}}
  %0 = npu.broadcast %x : tensor<1x4xf32> -> tensor<2x3x4xf32>
  return
}

// -----

func.func @broadcast_dim(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{input dimension 0 is 2; it must be 1 or the result's 3}}
  %0 = npu.broadcast %x : tensor<2x4xf32> -> tensor<3x4xf32>
  return
}
