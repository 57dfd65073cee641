// RUN: npu-opt %s --npu-tpu-pipeline="target=tpu-v7" | npu-opt --npu-tpu-check-plan="report=true" -o /dev/null | FileCheck %s

// npu-tpu-check-plan on stream kernels whose on-chip state is not a tile of
// the rows they move (tpu-v7, tolerance 0):
// @router: a softmax router at batch 1 (Mixtral's: 8 experts, top 2). Its
// lowering holds the scores, the softmax's row max and sum and the top-k's
// slots (f32 value, i64 expert, f32 score, and the triple they are filled
// from), each a buffer of its own aligned to 64 bytes: the model counted
// bytes per row (288 B priced, 452 B planned) and now counts the buffers
// (an upper bound: the plan reuses some once dead).
// @temperature: Llama-4's attention temperature at batch 1, a [1, 1] f32
// scalar times [1, 40, 1, 128]: the scalar is held whole in a 64-byte
// buffer; the model took it for a row-tiled input of a fraction of a byte
// per row (16416 B priced, 16448 B planned).
// CHECK: kernel	kind
// CHECK-NEXT: 0	stream	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	ok
// CHECK-NEXT: 1	stream	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	ok
// CHECK-NEXT: npu-tpu-check-plan: 2 kernels, 2 as priced, 0 not; bytes not measurable in 0

func.func @router(%l: tensor<1x8xf32>) -> (tensor<1x2xi32>, tensor<1x2xf32>) {
  %i, %w = npu.moe_router %l top_k(2) scoring(softmax) norm_topk : tensor<1x8xf32> -> tensor<1x2xi32>, tensor<1x2xf32>
  return %i, %w : tensor<1x2xi32>, tensor<1x2xf32>
}

func.func @temperature(%q: tensor<1x40x1x128xbf16>, %t: tensor<1x1xf32>) -> tensor<1x40x1x128xbf16> {
  %0 = npu.mul %q, %t : tensor<1x40x1x128xbf16>, tensor<1x1xf32>
  return %0 : tensor<1x40x1x128xbf16>
}
