//===- NormWorkTest.cpp - work of softmax, norms and rope at model sizes --===//
//
// Expected values are written as arithmetic on the model dimensions; each
// comment derives them from the formulas in docs/work/norm.md.
//
//===----------------------------------------------------------------------===//

#include "WorkTestUtils.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::testing;

TEST_F(WorkTest, RMSNormLlama3_8B) {
  // Llama-3-8B input_layernorm on 8192 tokens x hidden 4096, bf16, eps 1e-5.
  // E = 8192 * 4096 elements, R = 8192 rows.
  Work w = workOf(R"mlir(
    func.func @f(%x: tensor<8192x4096xbf16>) -> tensor<8192x4096xbf16> {
      %g = npu.weight "model.layers.0.input_layernorm.weight" : tensor<4096xbf16>
      %y = npu.rms_norm %x, %g eps(1.0e-5) : tensor<8192x4096xbf16>, tensor<4096xbf16> -> tensor<8192x4096xbf16>
      return %y : tensor<8192x4096xbf16>
    })mlir");
  EXPECT_EQ(w.matrixFlops.value(), 0u);
  // 4 per element (square, add, * rstd, * gamma) + 2 per row (/ N, + eps).
  EXPECT_EQ(w.vectorFlops.value(), 4ull * 8192 * 4096 + 2ull * 8192);
  // One rsqrt per row.
  EXPECT_EQ(w.transcendentalFlops.value(), 8192u);
  // x (bf16) and gamma (bf16) read once; y written once; gamma is a weight.
  EXPECT_EQ(w.bytesRead.value(), 8192ull * 4096 * 2 + 4096 * 2);
  EXPECT_EQ(w.bytesWritten.value(), 8192ull * 4096 * 2);
  EXPECT_EQ(w.paramBytes.value(), 4096u * 2);
}

TEST_F(WorkTest, RMSNormWithoutGammaLlama4QkNorm) {
  // Llama-4 Scout's QK norm of the queries at 4096 tokens: 40 heads x 128,
  // bf16, no gamma. E = 40 * 4096 * 128, R = 40 * 4096.
  Work w = workOf(R"mlir(
    func.func @f(%q: tensor<1x40x4096x128xbf16>) -> tensor<1x40x4096x128xbf16> {
      %y = npu.rms_norm %q eps(1.0e-5) : tensor<1x40x4096x128xbf16> -> tensor<1x40x4096x128xbf16>
      return %y : tensor<1x40x4096x128xbf16>
    })mlir");
  // 3 per element (square, add, * rstd) + 2 per row; one rsqrt per row.
  EXPECT_EQ(w.vectorFlops.value(), 3ull * 40 * 4096 * 128 + 2ull * 40 * 4096);
  EXPECT_EQ(w.transcendentalFlops.value(), 40ull * 4096);
  // q read and the result written once; no parameter.
  EXPECT_EQ(w.bytesRead.value(), 40ull * 4096 * 128 * 2);
  EXPECT_EQ(w.bytesWritten.value(), 40ull * 4096 * 128 * 2);
  EXPECT_EQ(w.paramBytes.value(), 0u);
}

TEST_F(WorkTest, RopeDeepSeekV3QPeInterleaved) {
  // DeepSeek-V3 q_pe: 128 heads x 4096 tokens x qk_rope_head_dim 64, bf16,
  // interleaved pairs. R = D = 64, S = 4096, rows = 128 * 4096.
  Work w = workOf(R"mlir(
    func.func @f(%q: tensor<1x128x4096x64xbf16>) -> tensor<1x128x4096x64xbf16> {
      %y = npu.rope %q interleaved : tensor<1x128x4096x64xbf16> -> tensor<1x128x4096x64xbf16>
      return %y : tensor<1x128x4096x64xbf16>
    })mlir");
  EXPECT_EQ(w.matrixFlops.value(), 0u);
  // 3 per rotated element (2 mul + 1 add) + one multiply per entry of the
  // [S, R/2] angle table.
  EXPECT_EQ(w.vectorFlops.value(), 3ull * 128 * 4096 * 64 + 4096ull * 32);
  // One sin and one cos per table entry: 2 * S * R/2 = S * R.
  EXPECT_EQ(w.transcendentalFlops.value(), 4096ull * 64);
  // x read once, result written once, no parameters.
  EXPECT_EQ(w.bytesRead.value(), 128ull * 4096 * 64 * 2);
  EXPECT_EQ(w.bytesWritten.value(), 128ull * 4096 * 64 * 2);
  EXPECT_EQ(w.paramBytes.value(), 0u);
}

TEST_F(WorkTest, RopePartialDecodeWithOffset) {
  // GPT-NeoX-20B style decode: batch 32, 64 heads, 1 new token at position
  // 2047, head_dim 96 of which rotary_dim 24 (rotary_pct 0.25), f16.
  // Rows = 32 * 64 * 1, S = 1, R = 24: the table has 1 * 12 entries.
  Work w = workOf(R"mlir(
    func.func @f(%q: tensor<32x64x1x96xf16>) -> tensor<32x64x1x96xf16> {
      %y = npu.rope %q offset(2047) rotary_dim(24) : tensor<32x64x1x96xf16> -> tensor<32x64x1x96xf16>
      return %y : tensor<32x64x1x96xf16>
    })mlir");
  // Only the 24 rotated features of each row cost arithmetic.
  EXPECT_EQ(w.vectorFlops.value(), 3ull * 32 * 64 * 24 + 1ull * 12);
  EXPECT_EQ(w.transcendentalFlops.value(), 1ull * 24);
  // The pass-through features are still read and written.
  EXPECT_EQ(w.bytesRead.value(), 32ull * 64 * 96 * 2);
  EXPECT_EQ(w.bytesWritten.value(), 32ull * 64 * 96 * 2);
}

TEST_F(WorkTest, LayerNormGPT2) {
  // GPT-2 ln_1 on 1024 tokens x n_embd 768, f32, with beta. E = 1024 * 768,
  // R = 1024.
  Work w = workOf(R"mlir(
    func.func @f(%x: tensor<1024x768xf32>) -> tensor<1024x768xf32> {
      %g = npu.weight "h.0.ln_1.weight" : tensor<768xf32>
      %b = npu.weight "h.0.ln_1.bias" : tensor<768xf32>
      %y = npu.layer_norm %x, %g, %b : tensor<1024x768xf32>, tensor<768xf32>, tensor<768xf32> -> tensor<1024x768xf32>
      return %y : tensor<1024x768xf32>
    })mlir");
  EXPECT_EQ(w.matrixFlops.value(), 0u);
  // 7 per element (sum, - mean, square, sum of squares, * rstd, * gamma,
  // + beta) + 3 per row (mean = / N, var = / N, + eps).
  EXPECT_EQ(w.vectorFlops.value(), 7ull * 1024 * 768 + 3ull * 1024);
  // One rsqrt per row.
  EXPECT_EQ(w.transcendentalFlops.value(), 1024u);
  EXPECT_EQ(w.bytesRead.value(), 1024ull * 768 * 4 + 2 * 768 * 4);
  EXPECT_EQ(w.bytesWritten.value(), 1024ull * 768 * 4);
  EXPECT_EQ(w.paramBytes.value(), 2u * 768 * 4);
}

TEST_F(WorkTest, LayerNormWithoutBeta) {
  // [4, 16, 7168] bf16 without beta: E = 4 * 16 * 7168, R = 4 * 16; gamma is
  // a plain argument, not a parameter.
  Work w = workOf(R"mlir(
    func.func @f(%x: tensor<4x16x7168xbf16>, %g: tensor<7168xbf16>) -> tensor<4x16x7168xbf16> {
      %y = npu.layer_norm %x, %g eps(1.0e-6) : tensor<4x16x7168xbf16>, tensor<7168xbf16> -> tensor<4x16x7168xbf16>
      return %y : tensor<4x16x7168xbf16>
    })mlir");
  // 6 per element (no beta) + 3 per row.
  EXPECT_EQ(w.vectorFlops.value(), 6ull * 4 * 16 * 7168 + 3ull * 4 * 16);
  EXPECT_EQ(w.transcendentalFlops.value(), 4u * 16);
  EXPECT_EQ(w.bytesRead.value(), 4ull * 16 * 7168 * 2 + 7168 * 2);
  EXPECT_EQ(w.paramBytes.value(), 0u);
}

TEST_F(WorkTest, SoftmaxGPT2Attention) {
  // GPT-2 attention probabilities: 12 heads x 1024 queries x 1024 keys, f32.
  // E = 12 * 1024 * 1024.
  Work w = workOf(R"mlir(
    func.func @f(%s: tensor<12x1024x1024xf32>) -> tensor<12x1024x1024xf32> {
      %p = npu.softmax %s : tensor<12x1024x1024xf32> -> tensor<12x1024x1024xf32>
      return %p : tensor<12x1024x1024xf32>
    })mlir");
  EXPECT_EQ(w.matrixFlops.value(), 0u);
  // 4 per element (max, subtract, sum, divide) and one exp per element.
  EXPECT_EQ(w.vectorFlops.value(), 4ull * 12 * 1024 * 1024);
  EXPECT_EQ(w.transcendentalFlops.value(), 12ull * 1024 * 1024);
  EXPECT_EQ(w.bytesRead.value(), 12ull * 1024 * 1024 * 4);
  EXPECT_EQ(w.bytesWritten.value(), 12ull * 1024 * 1024 * 4);
  EXPECT_EQ(w.paramBytes.value(), 0u);
}

TEST_F(WorkTest, SoftmaxAlongFirstDimCostsTheSame) {
  // DeepSeek-V3 router scores laid out [256 experts, 4096 tokens], bf16,
  // normalized over the experts (dim 0): the count depends only on E.
  Work w = workOf(R"mlir(
    func.func @f(%s: tensor<256x4096xbf16>) -> tensor<256x4096xbf16> {
      %p = npu.softmax %s dim(0) : tensor<256x4096xbf16> -> tensor<256x4096xbf16>
      return %p : tensor<256x4096xbf16>
    })mlir");
  EXPECT_EQ(w.vectorFlops.value(), 4ull * 256 * 4096);
  EXPECT_EQ(w.transcendentalFlops.value(), 256ull * 4096);
  EXPECT_EQ(w.bytesRead.value(), 256ull * 4096 * 2);
}

TEST_F(WorkTest, SoftmaxNearTheCountLimit) {
  // E = 2^30 * 2^30 * 3 = 3 * 2^60 f16 elements (3 * 2^61 bytes, which fits
  // int64). Vector 4E = 3 * 2^62 and total 5E = 15 * 2^60 still fit uint64.
  Work w = workOf(R"mlir(
    func.func @f(%s: tensor<1073741824x1073741824x3xf16>) -> tensor<1073741824x1073741824x3xf16> {
      %p = npu.softmax %s : tensor<1073741824x1073741824x3xf16> -> tensor<1073741824x1073741824x3xf16>
      return %p : tensor<1073741824x1073741824x3xf16>
    })mlir");
  EXPECT_EQ(w.vectorFlops.value(), 3ull << 62);
  EXPECT_EQ(w.transcendentalFlops.value(), 3ull << 60);
  EXPECT_EQ(w.totalFlops().value(), 15ull << 60);
}

TEST_F(WorkTest, LayerNormFlopsOverflowIsAnError) {
  // Same E = 3 * 2^60: 7E = 21 * 2^60 > 2^64 vector FLOPs.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%x: tensor<1073741824x1073741824x3xf16>, %g: tensor<3xf16>, %b: tensor<3xf16>) -> tensor<1073741824x1073741824x3xf16> {
      %y = npu.layer_norm %x, %g, %b : tensor<1073741824x1073741824x3xf16>, tensor<3xf16>, tensor<3xf16> -> tensor<1073741824x1073741824x3xf16>
      return %y : tensor<1073741824x1073741824x3xf16>
    })mlir");
  ASSERT_TRUE(module);
  std::string diag;
  FailureOr<Work> w = sumWork(*module, &diag);
  EXPECT_TRUE(failed(w));
  EXPECT_NE(diag.find("does not fit in 64 bits"), std::string::npos) << diag;
}
