//===- MoEWorkTest.cpp - work of the MoE and KV cache ops, by hand --------===//
//
// DeepSeek-V3 MoE layer: D = 7168 (hidden), F = 2048 (moe_intermediate_size),
// E = 256 routed experts, k = 8, one shared expert with Fs = 2048; bf16
// weights (2 B), i32 indices, f32 routing weights. Formulas: docs/work/moe.md.
//
//===----------------------------------------------------------------------===//

#include "WorkTestUtils.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::testing;

namespace {

/// IR of one DeepSeek-V3 MoE experts op for T tokens and the given load.
std::string deepSeekExperts(int64_t t, llvm::StringRef load) {
  std::string s = R"mlir(
    func.func @f(%x: tensor<TTx7168xbf16>, %idx: tensor<TTx8xi32>, %w: tensor<TTx8xf32>) -> tensor<TTx7168xbf16> {
      %wg = npu.weight "experts.gate_proj" : tensor<256x2048x7168xbf16>
      %wu = npu.weight "experts.up_proj" : tensor<256x2048x7168xbf16>
      %wd = npu.weight "experts.down_proj" : tensor<256x7168x2048xbf16>
      %sg = npu.weight "shared_experts.gate_proj" : tensor<2048x7168xbf16>
      %su = npu.weight "shared_experts.up_proj" : tensor<2048x7168xbf16>
      %sd = npu.weight "shared_experts.down_proj" : tensor<7168x2048xbf16>
      %y = npu.moe_experts %x, %idx, %w, %wg, %wu, %wd shared(%sg, %su, %sd) load(LOAD)
          : tensor<TTx7168xbf16>, tensor<TTx8xi32>, tensor<TTx8xf32>,
            tensor<256x2048x7168xbf16>, tensor<256x2048x7168xbf16>, tensor<256x7168x2048xbf16>,
            tensor<2048x7168xbf16>, tensor<2048x7168xbf16>, tensor<7168x2048xbf16> -> tensor<TTx7168xbf16>
      return %y : tensor<TTx7168xbf16>
    })mlir";
  std::string tokens = std::to_string(t);
  for (size_t p; (p = s.find("TT")) != std::string::npos;)
    s.replace(p, 2, tokens);
  size_t p = s.find("LOAD");
  s.replace(p, 4, load.str());
  return s;
}

/// Bytes of all 256 routed experts' weights: gate, up [2048, 7168] and down
/// [7168, 2048] per expert, bf16.
constexpr uint64_t kRoutedBytes = 256ull * 3 * 2048 * 7168 * 2;
/// Bytes of the shared expert: gate, up and down, 2048 x 7168 bf16 each.
constexpr uint64_t kSharedBytes = 3ull * 2048 * 7168 * 2;

} // namespace

TEST_F(WorkTest, DeepSeekV3ExpertsPrefill) {
  // T = 4096: q = 8/256 per token, 1 - (31/32)^4096 ~ 1 - e^-130: all 256
  // experts are active, so all routed weights are read once.
  Work w = workOf(deepSeekExperts(4096, "#npu.expert_load<uniform>"));
  // gate, up, down: 3 matmuls of 2*D*F per assignment (T*k of them), and per
  // token for the shared expert.
  EXPECT_EQ(w.matrixFlops.value(),
            2ull * 3 * 4096 * 8 * 7168 * 2048 + 2ull * 3 * 4096 * 7168 * 2048);
  // One exp per intermediate element: T*k*F routed + T*Fs shared.
  EXPECT_EQ(w.transcendentalFlops.value(), 4096ull * 8 * 2048 + 4096ull * 2048);
  // silu add + divide + gating mul per intermediate element; D muls per
  // assignment (routing weight); D * (k - 1 + 1 shared) adds per token.
  EXPECT_EQ(w.vectorFlops.value(), 3ull * (4096 * 8 * 2048 + 4096 * 2048) +
                                       4096ull * 8 * 7168 +
                                       4096ull * 7168 * (8 - 1 + 1));
  EXPECT_EQ(w.paramBytes.value(), kRoutedBytes + kSharedBytes);
  // x (bf16) + indices (i32) + weights (f32) + shared + all 256 experts.
  EXPECT_EQ(w.bytesRead.value(), 4096ull * 7168 * 2 + 4096ull * 8 * 4 +
                                     4096ull * 8 * 4 + kSharedBytes +
                                     kRoutedBytes);
  EXPECT_EQ(w.bytesWritten.value(), 4096ull * 7168 * 2);
}

TEST_F(WorkTest, DeepSeekV3ExpertsDecode) {
  // T = 1: sum_e 1 - (1 - 8/256) = 256 * 8/256 = 8 active experts: only 8 of
  // the 256 experts' weights are read; the chip still holds all of them.
  Work w = workOf(deepSeekExperts(1, "#npu.expert_load<uniform>"));
  EXPECT_EQ(w.matrixFlops.value(),
            2ull * 3 * 1 * 8 * 7168 * 2048 + 2ull * 3 * 1 * 7168 * 2048);
  EXPECT_EQ(w.transcendentalFlops.value(), 8ull * 2048 + 2048);
  EXPECT_EQ(w.vectorFlops.value(),
            3ull * (8 * 2048 + 2048) + 8ull * 7168 + 7168ull * 8);
  EXPECT_EQ(w.paramBytes.value(), kRoutedBytes + kSharedBytes);
  EXPECT_EQ(w.bytesRead.value(), 7168ull * 2 + 8 * 4 + 8 * 4 + kSharedBytes +
                                     8ull * 3 * 7168 * 2048 * 2);
  EXPECT_EQ(w.bytesWritten.value(), 7168ull * 2);
}

TEST_F(WorkTest, ExpertsSmallBatchUniform) {
  // T = 3, k = 2, E = 8 uniform: q = 1/4, 8 * (1 - (3/4)^3) = 4.625 -> 5
  // experts. Weights are plain arguments (not parameters): paramBytes 0.
  Work w = workOf(R"mlir(
    func.func @f(%x: tensor<3x16xf32>, %i: tensor<3x2xi64>, %w: tensor<3x2xf32>,
                 %g: tensor<8x32x16xf32>, %u: tensor<8x32x16xf32>, %d: tensor<8x16x32xf32>) -> tensor<3x16xf32> {
      %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<uniform>)
          : tensor<3x16xf32>, tensor<3x2xi64>, tensor<3x2xf32>, tensor<8x32x16xf32>,
            tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<3x16xf32>
      return %y : tensor<3x16xf32>
    })mlir");
  EXPECT_EQ(w.matrixFlops.value(), 2ull * 3 * 3 * 2 * 16 * 32);
  EXPECT_EQ(w.transcendentalFlops.value(), 3ull * 2 * 32);
  // No shared expert: D * (k - 1) adds per token.
  EXPECT_EQ(w.vectorFlops.value(),
            3ull * 3 * 2 * 32 + 3ull * 2 * 16 + 3ull * 16 * (2 - 1));
  EXPECT_EQ(w.paramBytes.value(), 0u);
  EXPECT_EQ(w.bytesRead.value(),
            3ull * 16 * 4 + 3 * 2 * 8 + 3 * 2 * 4 + 5ull * 3 * 32 * 16 * 4);
  EXPECT_EQ(w.bytesWritten.value(), 3ull * 16 * 4);
}

TEST_F(WorkTest, ExpertsHistogramOneHotExpert) {
  // All the load on expert 1: q = (0, 1, 0, 0), so the formula gives 1
  // expected expert; but each token uses k = 2 distinct experts, so the
  // count is clamped up to k = 2 experts' weights.
  Work w = workOf(R"mlir(
    func.func @f(%x: tensor<16x8xf32>, %i: tensor<16x2xi32>, %w: tensor<16x2xf32>) -> tensor<16x8xf32> {
      %g = npu.weight "g" : tensor<4x4x8xf32>
      %u = npu.weight "u" : tensor<4x4x8xf32>
      %d = npu.weight "d" : tensor<4x8x4xf32>
      %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<histogram [0.0, 1.0, 0.0, 0.0]>)
          : tensor<16x8xf32>, tensor<16x2xi32>, tensor<16x2xf32>, tensor<4x4x8xf32>,
            tensor<4x4x8xf32>, tensor<4x8x4xf32> -> tensor<16x8xf32>
      return %y : tensor<16x8xf32>
    })mlir");
  EXPECT_EQ(w.paramBytes.value(), 3ull * 4 * 4 * 8 * 4);
  EXPECT_EQ(w.bytesRead.value(),
            16ull * 8 * 4 + 16 * 2 * 4 + 16 * 2 * 4 + 2ull * 3 * 4 * 8 * 4);
}

TEST_F(WorkTest, ExpertsHistogramSkewed) {
  // k = 1, T = 2, weights [2, 1, 1, 0] -> p = (1/2, 1/4, 1/4, 0):
  // (1 - 1/4) + 2 * (1 - 9/16) + 0 = 0.75 + 0.875 = 1.625 -> 2 experts.
  Work w = workOf(R"mlir(
    func.func @f(%x: tensor<2x8xf32>, %i: tensor<2x1xi32>, %w: tensor<2x1xf32>,
                 %g: tensor<4x4x8xf32>, %u: tensor<4x4x8xf32>, %d: tensor<4x8x4xf32>) -> tensor<2x8xf32> {
      %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<histogram [2.0, 1.0, 1.0, 0.0]>)
          : tensor<2x8xf32>, tensor<2x1xi32>, tensor<2x1xf32>, tensor<4x4x8xf32>,
            tensor<4x4x8xf32>, tensor<4x8x4xf32> -> tensor<2x8xf32>
      return %y : tensor<2x8xf32>
    })mlir");
  EXPECT_EQ(w.bytesRead.value(),
            2ull * 8 * 4 + 2 * 4 + 2 * 4 + 2ull * 3 * 4 * 8 * 4);
  // k = 1: no adds between expert outputs, only the D scaling muls.
  EXPECT_EQ(w.vectorFlops.value(), 3ull * 2 * 4 + 2ull * 8);
}

TEST_F(WorkTest, DeepSeekV3Router) {
  // [T = 4096, E = 256], sigmoid + bias, groups(8, 4) (G = 32, m = 2),
  // k = 8, norm_topk, scale 2.5.
  Work w = workOf(R"mlir(
    func.func @f(%l: tensor<4096x256xf32>) -> (tensor<4096x8xi32>, tensor<4096x8xf32>) {
      %b = npu.weight "gate.e_score_correction_bias" : tensor<256xf32>
      %i, %w = npu.moe_router %l, %b top_k(8) scoring(sigmoid) groups(8, 4) norm_topk scale(2.5)
          : tensor<4096x256xf32>, tensor<256xf32> -> tensor<4096x8xi32>, tensor<4096x8xf32>
      return %i, %w : tensor<4096x8xi32>, tensor<4096x8xf32>
    })mlir");
  EXPECT_EQ(w.matrixFlops.value(), 0u);
  // One exp per logit.
  EXPECT_EQ(w.transcendentalFlops.value(), 4096ull * 256);
  // Per token: sigmoid add + divide (2*256), bias (256), group top-2 as 2
  // passes (2*256) + 1 add per group (8) + 4 passes over 8 groups (32), top-8
  // as 8 passes over the 4*32 = 128 kept experts, norm 7 adds + 8 divides,
  // scale 8 muls.
  EXPECT_EQ(w.vectorFlops.value(),
            4096ull * (2 * 256 + 256 + (2 * 256 + 8 * 1 + 4 * 8) + 8 * 128 +
                       (8 - 1 + 8) + 8));
  EXPECT_EQ(w.paramBytes.value(), 256u * 4);
  EXPECT_EQ(w.bytesRead.value(), 4096ull * 256 * 4 + 256 * 4);
  EXPECT_EQ(w.bytesWritten.value(), 4096ull * 8 * 4 + 4096ull * 8 * 4);
}

TEST_F(WorkTest, SoftmaxRouterTop2) {
  // [T = 16, E = 8] softmax, k = 2, norm_topk, i64 indices, scale 1.
  Work w = workOf(R"mlir(
    func.func @f(%l: tensor<16x8xbf16>) -> (tensor<16x2xi64>, tensor<16x2xf32>) {
      %i, %w = npu.moe_router %l top_k(2) scoring(softmax) norm_topk
          : tensor<16x8xbf16> -> tensor<16x2xi64>, tensor<16x2xf32>
      return %i, %w : tensor<16x2xi64>, tensor<16x2xf32>
    })mlir");
  EXPECT_EQ(w.transcendentalFlops.value(), 16ull * 8);
  // softmax 4E - 2 (7 max, 8 sub, 7 add, 8 div), top-2 as 2 passes over 8,
  // norm 1 add + 2 divides; no bias, no groups, no scale.
  EXPECT_EQ(w.vectorFlops.value(), 16ull * ((4 * 8 - 2) + 2 * 8 + (2 - 1 + 2)));
  EXPECT_EQ(w.paramBytes.value(), 0u);
  EXPECT_EQ(w.bytesRead.value(), 16ull * 8 * 2);
  EXPECT_EQ(w.bytesWritten.value(), 16ull * 2 * 8 + 16ull * 2 * 4);
}

TEST_F(WorkTest, KVCacheAppendAndRead) {
  // Llama-3-8B decode step: cache [1, 8, 4096, 128] bf16, one new token.
  Work append = workOf(R"mlir(
    func.func @f(%c: tensor<1x8x4096x128xbf16>, %n: tensor<1x8x1x128xbf16>, %p: index) -> tensor<1x8x4096x128xbf16> {
      %r = npu.kv_cache_append %c, %n at %p : tensor<1x8x4096x128xbf16>, tensor<1x8x1x128xbf16> -> tensor<1x8x4096x128xbf16>
      return %r : tensor<1x8x4096x128xbf16>
    })mlir");
  // Only the appended row moves: 8 heads * 128 * 2 B in and out.
  EXPECT_EQ(append.totalFlops().value(), 0u);
  EXPECT_EQ(append.bytesRead.value(), 8ull * 128 * 2);
  EXPECT_EQ(append.bytesWritten.value(), 8ull * 128 * 2);
  EXPECT_EQ(append.paramBytes.value(), 0u);

  // Reading 1025 tokens is a view: attention pays for them.
  Work read = workOf(R"mlir(
    func.func @f(%c: tensor<1x8x4096x128xbf16>) -> tensor<1x8x1025x128xbf16> {
      %r = npu.kv_cache_read %c length(1025) : tensor<1x8x4096x128xbf16> -> tensor<1x8x1025x128xbf16>
      return %r : tensor<1x8x1025x128xbf16>
    })mlir");
  EXPECT_EQ(read.totalFlops().value(), 0u);
  EXPECT_EQ(read.bytesRead.value(), 0u);
  EXPECT_EQ(read.bytesWritten.value(), 0u);
}

TEST_F(WorkTest, KVCachePrefillAppendFp8) {
  // Prefill of 512 tokens into an fp8 cache [2, 4, 2048, 64]: 1 B each.
  Work w = workOf(R"mlir(
    func.func @f(%c: tensor<2x4x2048x64xf8E4M3FN>, %n: tensor<2x4x512x64xf8E4M3FN>, %p: index) -> tensor<2x4x2048x64xf8E4M3FN> {
      %r = npu.kv_cache_append %c, %n at %p : tensor<2x4x2048x64xf8E4M3FN>, tensor<2x4x512x64xf8E4M3FN> -> tensor<2x4x2048x64xf8E4M3FN>
      return %r : tensor<2x4x2048x64xf8E4M3FN>
    })mlir");
  EXPECT_EQ(w.bytesRead.value(), 2ull * 4 * 512 * 64);
  EXPECT_EQ(w.bytesWritten.value(), 2ull * 4 * 512 * 64);
}

TEST_F(WorkTest, ExpertsFlopsOverflowIsAnError) {
  // 2 * 3 * T * k * D * F = 6 * 2^30 * 2^4 * 2^14 * 2^14 = 6 * 2^62 > 2^64:
  // every tensor fits, the FLOP count does not.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%x: tensor<1073741824x16384xbf16>, %i: tensor<1073741824x16xi32>, %w: tensor<1073741824x16xf32>,
                 %g: tensor<16x16384x16384xf8E4M3FN>, %u: tensor<16x16384x16384xf8E4M3FN>,
                 %d: tensor<16x16384x16384xf8E4M3FN>) -> tensor<1073741824x16384xbf16> {
      %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<uniform>)
          : tensor<1073741824x16384xbf16>, tensor<1073741824x16xi32>, tensor<1073741824x16xf32>,
            tensor<16x16384x16384xf8E4M3FN>, tensor<16x16384x16384xf8E4M3FN>, tensor<16x16384x16384xf8E4M3FN>
          -> tensor<1073741824x16384xbf16>
      return %y : tensor<1073741824x16384xbf16>
    })mlir");
  ASSERT_TRUE(module) << "IR does not parse or verify";
  std::string diag;
  FailureOr<Work> w = sumWork(*module, &diag);
  EXPECT_TRUE(failed(w));
  EXPECT_NE(diag.find("does not fit in 64 bits"), std::string::npos) << diag;
}

TEST_F(WorkTest, MoEExpertsGptOss) {
  // GPT-OSS-20B MoE layer, 4 tokens: 32 experts of F = D = 2880, top 4,
  // per-expert biases, the clamped SwiGLU.
  Work w = workOf(R"mlir(
    func.func @f(%x: tensor<4x2880xbf16>, %i: tensor<4x4xi32>, %w: tensor<4x4xf32>, %g: tensor<32x2880x2880xbf16>, %u: tensor<32x2880x2880xbf16>, %d: tensor<32x2880x2880xbf16>, %bg: tensor<32x2880xbf16>, %bu: tensor<32x2880xbf16>, %bd: tensor<32x2880xbf16>) -> tensor<4x2880xbf16> {
      %y = npu.moe_experts %x, %i, %w, %g, %u, %d biases(%bg, %bu, %bd) swiglu_limit(7.0) load(#npu.expert_load<uniform>) : tensor<4x2880xbf16>, tensor<4x4xi32>, tensor<4x4xf32>, tensor<32x2880x2880xbf16>, tensor<32x2880x2880xbf16>, tensor<32x2880x2880xbf16> biases tensor<32x2880xbf16>, tensor<32x2880xbf16>, tensor<32x2880xbf16> -> tensor<4x2880xbf16>
      return %y : tensor<4x2880xbf16>
    })mlir");
  const uint64_t tk = 4 * 4, f = 2880, d = 2880;
  EXPECT_EQ(w.matrixFlops.value(), 6 * tk * d * f);
  EXPECT_EQ(w.transcendentalFlops.value(), tk * f);
  // 8 per intermediate element (3 clamps, 1.702 g, sigmoid's add and
  // divide, u + 1, the multiply), the routing scale (D per assignment),
  // the sum of the 4 outputs, and the biases (2F + D per assignment).
  EXPECT_EQ(w.vectorFlops.value(),
            8 * tk * f + tk * d + 4 * d * 3 + tk * (2 * f + d));
  // Weights and biases of the expected active experts: 16 assignments over
  // 32 experts touch round(32 (1 - (1 - 4/32)^4)) = round(13.24) = 13.
  const uint64_t perExpert = (3 * f * d + 2 * f + d) * 2;
  EXPECT_EQ(w.bytesRead.value(), 4 * d * 2 + tk * 4 + tk * 4 + 13 * perExpert);
}
