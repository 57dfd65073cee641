// RUN: npu-opt %s --npu-tpu-pipeline="target=mock-tpu" | npu-opt --npu-tpu-check-plan="report=true" -o /dev/null | FileCheck %s

// npu-tpu-check-plan on MoE kernels (mock-tpu): the expert loops' trip
// counts are loaded from the dispatch's counts and offsets at run time; the
// measure reads them under the static plan the model prices
// (npu.planned_values: uniform load, every expert active with
// ceil(T k / E) rows), so the whole program is measured, to the byte.
// @shared: 64 tokens, 2 of 8 experts each and a shared expert (the
// combine gathers the routed rows per M tile of tokens); @biased: GPT-OSS
// experts, each with gate, up and down biases (loaded per F tile and per
// M tile with the weights) and the clamped SwiGLU. @one_token: a decode
// step of batch 1 (one token tile covers all the tokens: the combine's row
// gather is not in a token loop, and its staged rows stay on chip; they
// went through an HBM buffer, the routed rows read and written once more).
// CHECK: kernel	kind
// CHECK-NEXT: 0	moe_ffn	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	ok
// CHECK-NEXT: 1	moe_ffn	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	ok
// CHECK-NEXT: 2	moe_ffn	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	{{[0-9]+}}	ok
// CHECK-NEXT: npu-tpu-check-plan: 3 kernels, 3 as priced, 0 not; bytes not measurable in 0

func.func @shared(%x: tensor<64x256xbf16>, %idx: tensor<64x2xi32>, %w: tensor<64x2xf32>, %wg: tensor<8x128x256xbf16>, %wu: tensor<8x128x256xbf16>, %wd: tensor<8x256x128xbf16>, %sg: tensor<256x256xbf16>, %su: tensor<256x256xbf16>, %sd: tensor<256x256xbf16>) -> tensor<64x256xbf16> {
  %y = npu.moe_experts %x, %idx, %w, %wg, %wu, %wd shared(%sg, %su, %sd) load(#npu.expert_load<uniform>) : tensor<64x256xbf16>, tensor<64x2xi32>, tensor<64x2xf32>, tensor<8x128x256xbf16>, tensor<8x128x256xbf16>, tensor<8x256x128xbf16>, tensor<256x256xbf16>, tensor<256x256xbf16>, tensor<256x256xbf16> -> tensor<64x256xbf16>
  return %y : tensor<64x256xbf16>
}

func.func @biased(%x: tensor<32x128xbf16>, %idx: tensor<32x4xi32>, %w: tensor<32x4xbf16>, %wg: tensor<8x256x128xbf16>, %wu: tensor<8x256x128xbf16>, %wd: tensor<8x128x256xbf16>, %bg: tensor<8x256xbf16>, %bu: tensor<8x256xbf16>, %bd: tensor<8x128xbf16>) -> tensor<32x128xbf16> {
  %y = npu.moe_experts %x, %idx, %w, %wg, %wu, %wd biases(%bg, %bu, %bd) swiglu_limit(7.0) load(#npu.expert_load<uniform>) : tensor<32x128xbf16>, tensor<32x4xi32>, tensor<32x4xbf16>, tensor<8x256x128xbf16>, tensor<8x256x128xbf16>, tensor<8x128x256xbf16> biases tensor<8x256xbf16>, tensor<8x256xbf16>, tensor<8x128xbf16> -> tensor<32x128xbf16>
  return %y : tensor<32x128xbf16>
}

func.func @one_token(%x: tensor<1x256xbf16>, %idx: tensor<1x2xi32>, %w: tensor<1x2xf32>, %wg: tensor<8x128x256xbf16>, %wu: tensor<8x128x256xbf16>, %wd: tensor<8x256x128xbf16>) -> tensor<1x256xbf16> {
  %y = npu.moe_experts %x, %idx, %w, %wg, %wu, %wd load(#npu.expert_load<uniform>) : tensor<1x256xbf16>, tensor<1x2xi32>, tensor<1x2xf32>, tensor<8x128x256xbf16>, tensor<8x128x256xbf16>, tensor<8x256x128xbf16> -> tensor<1x256xbf16>
  return %y : tensor<1x256xbf16>
}
