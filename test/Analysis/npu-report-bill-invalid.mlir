// RUN: npu-opt %s --split-input-file --verify-diagnostics --npu-report-bill="target=mock-gpu" -o /dev/null
// RUN: not npu-opt %s --split-input-file --npu-report-bill="target=mock-gpu" -o /dev/null 2>/dev/null | FileCheck %s

// The token count of the bill is batch * seq_len (prefill) or batch
// (decode) from the module's `npu.model` description. A hand-written
// description can hold any i64; the product is checked, not wrapped.
// Regression test of a signed overflow (UBSan under fuzz/npu-fuzz-passes).
// The second RUN checks the last case's output; npu-opt fails on the others.

// expected-error @+1 {{npu.model: batch (9223372036854775807) times tokens per sequence (4) is not a token count in [1, 2^63)}}
module attributes {npu.model = {batch = 9223372036854775807 : i64, phase = "prefill", seq_len = 4 : i64}} {
  func.func @model(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
    %0 = npu.matmul %a, %b : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}

// -----

// expected-error @+1 {{npu.model: batch (-2) times tokens per sequence (1) is not a token count in [1, 2^63)}}
module attributes {npu.model = {batch = -2 : i64, phase = "decode"}} {
  func.func @model(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
    %0 = npu.matmul %a, %b : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}

// -----

// expected-error @+1 {{npu.model: batch (3) times tokens per sequence (0) is not a token count in [1, 2^63)}}
module attributes {npu.model = {batch = 3 : i64, phase = "prefill", seq_len = 0 : i64}} {
  func.func @model(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
    %0 = npu.matmul %a, %b : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}

// -----

// Counts that are not i64 (here a 128-bit batch) are not read: the bill is
// printed without a token count, and the description as written.
// CHECK: npu bill on mock-gpu: batch=170141183460469231731687303715884105727 flag=1 phase=decode size=18446744073709551615
// CHECK: tokens this step: {{ *}}0{{$}}
module attributes {npu.model = {batch = 170141183460469231731687303715884105727 : i128, flag = true, phase = "decode", size = 18446744073709551615 : ui64}} {
  func.func @model(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
    %0 = npu.matmul %a, %b : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}
