//===- ElementwiseWorkTest.cpp - work of elementwise and data ops ---------===//
//
// Hand-computed work of add, mul, silu, gelu, swiglu, embedding and the shape
// ops at model sizes (docs/work/elementwise.md gives the formulas).
//
//===----------------------------------------------------------------------===//

#include "WorkTestUtils.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::testing;

TEST_F(WorkTest, SwigluLlama3_8B) {
  // Llama-3-8B FFN, 8192 tokens, intermediate size 14336, bf16:
  // n = 8192 * 14336 elements. Per element: silu (1 exp; add, divide,
  // multiply) and the multiply by up: 1 transcendental, 4 vector FLOPs.
  // Reads gate and up (2 bytes each), writes the result (2 bytes).
  Work w = workOf(R"mlir(
    func.func @f(%g: tensor<8192x14336xbf16>, %u: tensor<8192x14336xbf16>) -> tensor<8192x14336xbf16> {
      %h = npu.swiglu %g, %u : tensor<8192x14336xbf16>
      return %h : tensor<8192x14336xbf16>
    })mlir");
  EXPECT_EQ(w.matrixFlops.value(), 0u);
  EXPECT_EQ(w.vectorFlops.value(), 4ull * 8192 * 14336);
  EXPECT_EQ(w.transcendentalFlops.value(), 1ull * 8192 * 14336);
  EXPECT_EQ(w.bytesRead.value(), 2ull * 8192 * 14336 * 2);
  EXPECT_EQ(w.bytesWritten.value(), 8192ull * 14336 * 2);
  EXPECT_EQ(w.paramBytes.value(), 0u);
}

TEST_F(WorkTest, GegluAndSoftcapGemma2) {
  // Gemma-2-9B FFN, 1024 tokens, F = 14336: gelu_tanh (1 tanh, 7 vector)
  // and the multiply by up: 1 transcendental, 8 vector FLOPs per element.
  Work w = workOf(R"mlir(
    func.func @f(%g: tensor<1024x14336xbf16>, %u: tensor<1024x14336xbf16>) -> tensor<1024x14336xbf16> {
      %h = npu.swiglu %g, %u activation = gelu_tanh : tensor<1024x14336xbf16>
      return %h : tensor<1024x14336xbf16>
    })mlir");
  EXPECT_EQ(w.vectorFlops.value(), 8ull * 1024 * 14336);
  EXPECT_EQ(w.transcendentalFlops.value(), 1ull * 1024 * 14336);
  // The final logits' soft-cap over V = 256000: a tanh, a divide and a
  // multiply per logit.
  Work c = workOf(R"mlir(
    func.func @f(%x: tensor<1x1x256000xbf16>) -> tensor<1x1x256000xbf16> {
      %y = npu.softcap %x cap(30.0) : tensor<1x1x256000xbf16>
      return %y : tensor<1x1x256000xbf16>
    })mlir");
  EXPECT_EQ(c.vectorFlops.value(), 2ull * 256000);
  EXPECT_EQ(c.transcendentalFlops.value(), 256000u);
  EXPECT_EQ(c.bytesRead.value(), 256000u * 2);
  EXPECT_EQ(c.bytesWritten.value(), 256000u * 2);
}

TEST_F(WorkTest, SiluLlama3_8B) {
  // silu on the gate projection alone: 1 exp + 3 vector FLOPs per element.
  Work w = workOf(R"mlir(
    func.func @f(%g: tensor<8192x14336xbf16>) -> tensor<8192x14336xbf16> {
      %h = npu.silu %g : tensor<8192x14336xbf16>
      return %h : tensor<8192x14336xbf16>
    })mlir");
  EXPECT_EQ(w.vectorFlops.value(), 3ull * 8192 * 14336);
  EXPECT_EQ(w.transcendentalFlops.value(), 1ull * 8192 * 14336);
  EXPECT_EQ(w.bytesRead.value(), 8192ull * 14336 * 2);
  EXPECT_EQ(w.bytesWritten.value(), 8192ull * 14336 * 2);
}

TEST_F(WorkTest, GeluTanhGPT2) {
  // GPT-2 MLP, 1024 tokens, 4 * 768 = 3072 channels, f32. Per element:
  // x*x, *c1, +c0, *x, tanh, 0.5*x, 1+t, final multiply: 1 transcendental
  // and 7 vector FLOPs. Reads and writes 4 bytes per element.
  Work w = workOf(R"mlir(
    func.func @f(%x: tensor<1024x3072xf32>) -> tensor<1024x3072xf32> {
      %y = npu.gelu %x approximate = tanh : tensor<1024x3072xf32>
      return %y : tensor<1024x3072xf32>
    })mlir");
  EXPECT_EQ(w.vectorFlops.value(), 7ull * 1024 * 3072);
  EXPECT_EQ(w.transcendentalFlops.value(), 1ull * 1024 * 3072);
  EXPECT_EQ(w.bytesRead.value(), 1024ull * 3072 * 4);
  EXPECT_EQ(w.bytesWritten.value(), 1024ull * 3072 * 4);
}

TEST_F(WorkTest, GeluErf) {
  // Exact gelu on the same shape: x*(1/sqrt2), erf, 0.5*x, 1+e, final
  // multiply: 1 transcendental and 4 vector FLOPs per element.
  Work w = workOf(R"mlir(
    func.func @f(%x: tensor<1024x3072xf32>) -> tensor<1024x3072xf32> {
      %y = npu.gelu %x : tensor<1024x3072xf32>
      return %y : tensor<1024x3072xf32>
    })mlir");
  EXPECT_EQ(w.vectorFlops.value(), 4ull * 1024 * 3072);
  EXPECT_EQ(w.transcendentalFlops.value(), 1ull * 1024 * 3072);
}

TEST_F(WorkTest, AddBiasGPT2) {
  // GPT-2 c_fc bias [3072] (a parameter) added to [1024, 3072] f32: one add
  // per output element; the bias is read once (3072 * 4 bytes), not once
  // per row.
  Work w = workOf(R"mlir(
    func.func @f(%x: tensor<1024x3072xf32>) -> tensor<1024x3072xf32> {
      %b = npu.weight "h.0.mlp.c_fc.bias" : tensor<3072xf32>
      %y = npu.add %x, %b : tensor<1024x3072xf32>, tensor<3072xf32>
      return %y : tensor<1024x3072xf32>
    })mlir");
  EXPECT_EQ(w.vectorFlops.value(), 1024ull * 3072);
  EXPECT_EQ(w.transcendentalFlops.value(), 0u);
  EXPECT_EQ(w.bytesRead.value(), 1024ull * 3072 * 4 + 3072 * 4);
  EXPECT_EQ(w.bytesWritten.value(), 1024ull * 3072 * 4);
  EXPECT_EQ(w.paramBytes.value(), 3072ull * 4);
}

TEST_F(WorkTest, ResidualAddLlama3_8B) {
  // Residual add of two [8192, 4096] bf16 activations.
  Work w = workOf(R"mlir(
    func.func @f(%x: tensor<8192x4096xbf16>, %h: tensor<8192x4096xbf16>) -> tensor<8192x4096xbf16> {
      %y = npu.add %x, %h : tensor<8192x4096xbf16>, tensor<8192x4096xbf16>
      return %y : tensor<8192x4096xbf16>
    })mlir");
  EXPECT_EQ(w.vectorFlops.value(), 8192ull * 4096);
  EXPECT_EQ(w.bytesRead.value(), 2ull * 8192 * 4096 * 2);
  EXPECT_EQ(w.bytesWritten.value(), 8192ull * 4096 * 2);
}

TEST_F(WorkTest, MulSquareReadsOnce) {
  // x * x reads x once: 16 * 4 bytes.
  Work w = workOf(R"mlir(
    func.func @f(%x: tensor<16xf32>) -> tensor<16xf32> {
      %y = npu.mul %x, %x : tensor<16xf32>, tensor<16xf32>
      return %y : tensor<16xf32>
    })mlir");
  EXPECT_EQ(w.vectorFlops.value(), 16u);
  EXPECT_EQ(w.bytesRead.value(), 16u * 4);
  EXPECT_EQ(w.bytesWritten.value(), 16u * 4);
}

TEST_F(WorkTest, ElementwiseFlopsOverflowIsAnError) {
  // 2^20 * 2^20 * 2^21 = 2^61 f16 elements (2^62 bytes, fits in int64):
  // 7 * 2^61 vector FLOPs do not fit in 64 bits.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%x: tensor<1048576x1048576x2097152xf16>) -> tensor<1048576x1048576x2097152xf16> {
      %y = npu.gelu %x approximate = tanh : tensor<1048576x1048576x2097152xf16>
      return %y : tensor<1048576x1048576x2097152xf16>
    })mlir");
  ASSERT_TRUE(module);
  std::string diag;
  FailureOr<Work> w = sumWork(*module, &diag);
  EXPECT_TRUE(failed(w));
  EXPECT_NE(diag.find("does not fit in 64 bits"), std::string::npos) << diag;
}

TEST_F(WorkTest, EmbeddingLlama3_8B) {
  // 8192 i32 ids gather rows of the [128256, 4096] bf16 embedding weight:
  // reads the ids (8192 * 4) and only the 8192 gathered rows
  // (8192 * 4096 * 2); writes the same rows; holds the whole table.
  Work w = workOf(R"mlir(
    func.func @f(%ids: tensor<1x8192xi32>) -> tensor<1x8192x4096xbf16> {
      %t = npu.weight "model.embed_tokens.weight" : tensor<128256x4096xbf16>
      %e = npu.embedding %t, %ids : tensor<128256x4096xbf16>, tensor<1x8192xi32> -> tensor<1x8192x4096xbf16>
      return %e : tensor<1x8192x4096xbf16>
    })mlir");
  EXPECT_EQ(w.totalFlops().value(), 0u);
  EXPECT_EQ(w.bytesRead.value(), 8192ull * 4 + 8192ull * 4096 * 2);
  EXPECT_EQ(w.bytesWritten.value(), 8192ull * 4096 * 2);
  EXPECT_EQ(w.paramBytes.value(), 128256ull * 4096 * 2);
}

TEST_F(WorkTest, EmbeddingOfActivationTable) {
  // A table that is not a parameter: same traffic, no parameter bytes.
  // i64 ids: 5 * 8 bytes; 5 rows of 16 f32.
  Work w = workOf(R"mlir(
    func.func @f(%t: tensor<100x16xf32>, %ids: tensor<5xi64>) -> tensor<5x16xf32> {
      %e = npu.embedding %t, %ids : tensor<100x16xf32>, tensor<5xi64> -> tensor<5x16xf32>
      return %e : tensor<5x16xf32>
    })mlir");
  EXPECT_EQ(w.bytesRead.value(), 5ull * 8 + 5ull * 16 * 4);
  EXPECT_EQ(w.bytesWritten.value(), 5ull * 16 * 4);
  EXPECT_EQ(w.paramBytes.value(), 0u);
}

TEST_F(WorkTest, ViewsMoveNothing) {
  // reshape and slice are views: no FLOPs, no bytes.
  Work w = workOf(R"mlir(
    func.func @f(%q: tensor<8192x4096xbf16>) -> tensor<8192x32x64xbf16> {
      %r = npu.reshape %q : tensor<8192x4096xbf16> -> tensor<8192x32x128xbf16>
      %s = npu.slice %r offsets [0, 0, 64] sizes [8192, 32, 64] strides [1, 1, 1] : tensor<8192x32x128xbf16> -> tensor<8192x32x64xbf16>
      return %s : tensor<8192x32x64xbf16>
    })mlir");
  EXPECT_EQ(w.totalFlops().value(), 0u);
  EXPECT_EQ(w.bytesRead.value(), 0u);
  EXPECT_EQ(w.bytesWritten.value(), 0u);
  EXPECT_EQ(w.paramBytes.value(), 0u);
}

TEST_F(WorkTest, ViewOfParameterIsAParameter) {
  // A weight [32, 64, 128] bf16 reshaped and sliced (as MLA's W_UK): the views
  // move nothing; the matmul reading the [32, 32, 128] slice counts it as
  // parameter bytes.
  Work w = workOf(R"mlir(
    func.func @f(%q: tensor<32x4x32xbf16>) -> tensor<32x4x128xbf16> {
      %w = npu.weight "w" : tensor<2048x128xbf16>
      %r = npu.reshape %w : tensor<2048x128xbf16> -> tensor<32x64x128xbf16>
      %s = npu.slice %r offsets [0, 0, 0] sizes [32, 32, 128] strides [1, 1, 1] : tensor<32x64x128xbf16> -> tensor<32x32x128xbf16>
      %y = npu.matmul %q, %s : tensor<32x4x32xbf16>, tensor<32x32x128xbf16> -> tensor<32x4x128xbf16>
      return %y : tensor<32x4x128xbf16>
    })mlir");
  EXPECT_EQ(w.paramBytes.value(), 32ull * 32 * 128 * 2);
  EXPECT_EQ(w.bytesRead.value(), 32ull * 4 * 32 * 2 + 32ull * 32 * 128 * 2);
}

TEST_F(WorkTest, TransposeHeadsLlama3_8B) {
  // [8192 tokens, 32 heads, 128] -> [32, 8192, 128] bf16: a copy, reading
  // and writing 8192 * 32 * 128 * 2 bytes.
  Work w = workOf(R"mlir(
    func.func @f(%q: tensor<8192x32x128xbf16>) -> tensor<32x8192x128xbf16> {
      %t = npu.transpose %q perm [1, 0, 2] : tensor<8192x32x128xbf16> -> tensor<32x8192x128xbf16>
      return %t : tensor<32x8192x128xbf16>
    })mlir");
  EXPECT_EQ(w.totalFlops().value(), 0u);
  EXPECT_EQ(w.bytesRead.value(), 8192ull * 32 * 128 * 2);
  EXPECT_EQ(w.bytesWritten.value(), 8192ull * 32 * 128 * 2);
}

TEST_F(WorkTest, ConcatDeepSeekV3QueryHeads) {
  // DeepSeek-V3 MLA: q_nope [T, 128 heads, 128] and q_pe [T, 128, 64] bf16
  // for T = 4096 tokens, concatenated to [T, 128, 192]: reads both inputs,
  // writes the result.
  Work w = workOf(R"mlir(
    func.func @f(%a: tensor<4096x128x128xbf16>, %b: tensor<4096x128x64xbf16>) -> tensor<4096x128x192xbf16> {
      %q = npu.concat %a, %b dim(2) : tensor<4096x128x128xbf16>, tensor<4096x128x64xbf16> -> tensor<4096x128x192xbf16>
      return %q : tensor<4096x128x192xbf16>
    })mlir");
  EXPECT_EQ(w.totalFlops().value(), 0u);
  EXPECT_EQ(w.bytesRead.value(),
            4096ull * 128 * 128 * 2 + 4096ull * 128 * 64 * 2);
  EXPECT_EQ(w.bytesWritten.value(), 4096ull * 128 * 192 * 2);
}

TEST_F(WorkTest, ConcatOfTheSameValueReadsItOnce) {
  // concat(x, x) of an [8, 4] i64 x reads x once (8 * 4 * 8 bytes) and
  // writes [8, 8] (8 * 8 * 8 bytes).
  Work w = workOf(R"mlir(
    func.func @f(%x: tensor<8x4xi64>) -> tensor<8x8xi64> {
      %c = npu.concat %x, %x dim(1) : tensor<8x4xi64>, tensor<8x4xi64> -> tensor<8x8xi64>
      return %c : tensor<8x8xi64>
    })mlir");
  EXPECT_EQ(w.bytesRead.value(), 8ull * 4 * 8);
  EXPECT_EQ(w.bytesWritten.value(), 8ull * 8 * 8);
}

TEST_F(WorkTest, BroadcastDeepSeekRopeKey) {
  // DeepSeek-V3 prefill at 4096 tokens: the RoPE key [1, 1, 4096, 64] bf16 is
  // copied to 128 heads: reads 4096 * 64 * 2 B, writes 128 times that.
  Work w = workOf(R"mlir(
    func.func @f(%pe: tensor<1x1x4096x64xbf16>) -> tensor<1x128x4096x64xbf16> {
      %b = npu.broadcast %pe : tensor<1x1x4096x64xbf16> -> tensor<1x128x4096x64xbf16>
      return %b : tensor<1x128x4096x64xbf16>
    })mlir");
  EXPECT_EQ(w.totalFlops().value(), 0u);
  EXPECT_EQ(w.bytesRead.value(), 4096ull * 64 * 2);
  EXPECT_EQ(w.bytesWritten.value(), 128ull * 4096 * 64 * 2);
}

TEST_F(WorkTest, ConvertKeysToFp8Cache) {
  // Llama-3-8B decode, batch 8: the new keys [8, 8, 1, 128] bf16 converted to
  // fp8 for the cache: 8192 conversions; reads 8192 * 2 B, writes 8192 B.
  Work w = workOf(R"mlir(
    func.func @f(%k: tensor<8x8x1x128xbf16>) -> tensor<8x8x1x128xf8E4M3FN> {
      %c = npu.convert %k : tensor<8x8x1x128xbf16> -> tensor<8x8x1x128xf8E4M3FN>
      return %c : tensor<8x8x1x128xf8E4M3FN>
    })mlir");
  EXPECT_EQ(w.vectorFlops.value(), 8192u);
  EXPECT_EQ(w.bytesRead.value(), 8192u * 2);
  EXPECT_EQ(w.bytesWritten.value(), 8192u);
}
