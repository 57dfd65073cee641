// RUN: npu-opt %s --split-input-file --verify-diagnostics --npu-form-kernels | FileCheck %s

// Hand-written decisions: the QKV GEMM (norm + two matmuls) becomes one
// kernel with two results; the reshape between the matmuls, which uses the
// first one's result, stays outside after the kernel; the add, undecided,
// becomes a stream kernel of its own.
// CHECK-LABEL: func.func @qkv
// CHECK: %[[K:.*]]:2 = npu.kernel gemm(%arg0, %arg1, %arg2, %arg3) : (tensor<8x64xbf16>, tensor<64xbf16>, tensor<64x64xbf16>, tensor<32x64xbf16>) -> (tensor<8x64xbf16>, tensor<8x32xbf16>)
// CHECK: npu.rms_norm
// CHECK-NOT: npu.fusion
// CHECK: npu.yield %{{.*}}, %{{.*}} : tensor<8x64xbf16>, tensor<8x32xbf16>
// CHECK: npu.reshape %[[K]]#0
// CHECK: npu.kernel stream(%[[K]]#1)
// CHECK: npu.add
func.func @qkv(%x: tensor<8x64xbf16>, %g: tensor<64xbf16>, %wq: tensor<64x64xbf16>, %wk: tensor<32x64xbf16>) -> (tensor<8x8x8xbf16>, tensor<8x32xbf16>) {
  %h = npu.rms_norm %x, %g eps(1.0e-06) {npu.fusion = #npu.fusion<group = 3, kind = gemm, saved_bytes = 0>} : tensor<8x64xbf16>, tensor<64xbf16> -> tensor<8x64xbf16>
  %q = npu.matmul %h, %wq transpose_rhs {npu.fusion = #npu.fusion<group = 3, kind = gemm, saved_bytes = 0>} : tensor<8x64xbf16>, tensor<64x64xbf16> -> tensor<8x64xbf16>
  %r = npu.reshape %q : tensor<8x64xbf16> -> tensor<8x8x8xbf16>
  %k = npu.matmul %h, %wk transpose_rhs {npu.fusion = #npu.fusion<group = 3, kind = gemm, saved_bytes = 0>} : tensor<8x64xbf16>, tensor<32x64xbf16> -> tensor<8x32xbf16>
  %s = npu.add %k, %k : tensor<8x32xbf16>, tensor<8x32xbf16>
  return %r, %s : tensor<8x8x8xbf16>, tensor<8x32xbf16>
}

// -----

// A group that is not convex: the silu outside the group uses the first
// matmul and feeds the second.
func.func @not_convex(%x: tensor<8x8xbf16>, %w: tensor<8x8xbf16>) -> tensor<8x8xbf16> {
  %a = npu.matmul %x, %w {npu.fusion = #npu.fusion<group = 0, kind = gemm, saved_bytes = 0>} : tensor<8x8xbf16>, tensor<8x8xbf16> -> tensor<8x8xbf16>
  // expected-error @below {{fusion group is not convex}}
  %b = npu.silu %a : tensor<8x8xbf16>
  %c = npu.matmul %b, %w {npu.fusion = #npu.fusion<group = 0, kind = gemm, saved_bytes = 0>} : tensor<8x8xbf16>, tensor<8x8xbf16> -> tensor<8x8xbf16>
  return %c : tensor<8x8xbf16>
}

// -----

func.func @two_kinds(%x: tensor<8x8xbf16>) -> tensor<8x8xbf16> {
  %a = npu.silu %x {npu.fusion = #npu.fusion<group = 0, kind = stream, saved_bytes = 0>} : tensor<8x8xbf16>
  // expected-error @below {{fusion group 0 has two kinds: stream and gemm}}
  %b = npu.silu %a {npu.fusion = #npu.fusion<group = 0, kind = gemm, saved_bytes = 0>} : tensor<8x8xbf16>
  return %b : tensor<8x8xbf16>
}
