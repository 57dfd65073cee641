//===- AttentionWorkTest.cpp - work of npu.attention on real models ------===//
//
// P = unmasked (query, key) pairs per (batch, query head). Per op:
//   matrix         = 2*B*Hq*P*(Dqk + Dv)      (Q K^T and P V)
//   transcendental = B*Hq*P                   (one exp per score)
//   vector         = 4*B*Hq*P + B*Hq*Sq*Dv    (scale, max, subtract, sum;
//                                              final divide)
//   bytesRead = q + k + v (latent: q + k), bytesWritten = result.
//
//===----------------------------------------------------------------------===//

#include "WorkTestUtils.h"

#include "llvm/Support/FormatVariadic.h"

#include <tuple>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::testing;

namespace {
/// Unmasked pairs of one (batch, head) by enumeration, straight from the
/// masking rule: query i (position p = Skv - Sq + i) sees key j iff
/// j <= p and j > p - window (window 0 = none).
uint64_t bruteForcePairs(int64_t sq, int64_t skv, bool causal, int64_t window,
                         int64_t chunk = 0) {
  uint64_t n = 0;
  for (int64_t i = 0; i < sq; ++i) {
    int64_t p = skv - sq + i;
    for (int64_t j = 0; j < skv; ++j)
      if (!causal || (j <= p && (window == 0 || j > p - window) &&
                      (chunk == 0 || j / chunk == p / chunk)))
        ++n;
  }
  return n;
}
} // namespace

TEST_F(WorkTest, AttentionLlama3GQACausalPrefill8K) {
  // Llama-3-8B: 32 query heads, 8 KV heads (G = 4), head dim 128, bf16,
  // causal prefill of 8192 tokens.
  Work w = workOf(R"mlir(
    func.func @f(%q: tensor<1x32x8192x128xbf16>, %k: tensor<1x8x8192x128xbf16>, %v: tensor<1x8x8192x128xbf16>) -> tensor<1x32x8192x128xbf16> {
      %o = npu.attention %q, %k, %v causal : tensor<1x32x8192x128xbf16>, tensor<1x8x8192x128xbf16>, tensor<1x8x8192x128xbf16> -> tensor<1x32x8192x128xbf16>
      return %o : tensor<1x32x8192x128xbf16>
    })mlir");
  // Sq = Skv: query i sees keys 0..i, P = 1 + 2 + ... + 8192.
  const uint64_t pairs = 8192ull * 8193 / 2;
  // Q K^T (128 MACs per score) + P V (128 MACs per score), 2 FLOPs per MAC.
  EXPECT_EQ(w.matrixFlops.value(), 2ull * 32 * pairs * (128 + 128));
  // One exp per score.
  EXPECT_EQ(w.transcendentalFlops.value(), 32ull * pairs);
  // 4 per score + one divide per output element (32 heads x 8192 x 128).
  EXPECT_EQ(w.vectorFlops.value(), 4ull * 32 * pairs + 32ull * 8192 * 128);
  // q (32 heads) + k + v (8 heads each), 2 bytes per element.
  EXPECT_EQ(w.bytesRead.value(),
            32ull * 8192 * 128 * 2 + 2 * (8ull * 8192 * 128 * 2));
  EXPECT_EQ(w.bytesWritten.value(), 32ull * 8192 * 128 * 2);
  EXPECT_EQ(w.paramBytes.value(), 0u);
}

TEST_F(WorkTest, AttentionGemma2SoftcapWindow) {
  // Gemma-2-9B local layer: 16 query heads, 8 KV heads of 256, logits
  // soft-capped at 50, window 4096, causal prefill of 8192 tokens.
  Work w = workOf(R"mlir(
    func.func @f(%q: tensor<1x16x8192x256xbf16>, %k: tensor<1x8x8192x256xbf16>, %v: tensor<1x8x8192x256xbf16>) -> tensor<1x16x8192x256xbf16> {
      %o = npu.attention %q, %k, %v scale(0.0625) softcap(50.0) causal window(4096) : tensor<1x16x8192x256xbf16>, tensor<1x8x8192x256xbf16>, tensor<1x8x8192x256xbf16> -> tensor<1x16x8192x256xbf16>
      return %o : tensor<1x16x8192x256xbf16>
    })mlir");
  // Queries 0..4095 see i + 1 keys, 4096..8191 see 4096.
  const uint64_t pairs = 4096ull * 4097 / 2 + 4096ull * 4096;
  EXPECT_EQ(w.matrixFlops.value(), 2ull * 16 * pairs * (256 + 256));
  // An exp and a tanh per score.
  EXPECT_EQ(w.transcendentalFlops.value(), 2ull * 16 * pairs);
  // 4 per score for the softmax, 2 for the cap (s / c, c * tanh), one
  // divide per output element.
  EXPECT_EQ(w.vectorFlops.value(), 6ull * 16 * pairs + 16ull * 8192 * 256);
}

TEST_F(WorkTest, AttentionGptOssSinks) {
  // GPT-OSS-20B decode: 64 query heads, 8 KV heads of 64, one sink logit
  // per query head (bf16), 4096 cached keys.
  Work w = workOf(R"mlir(
    func.func @f(%q: tensor<1x64x1x64xbf16>, %k: tensor<1x8x4096x64xbf16>, %v: tensor<1x8x4096x64xbf16>, %s: tensor<64xbf16>) -> tensor<1x64x1x64xbf16> {
      %o = npu.attention %q, %k, %v sinks(%s) causal : tensor<1x64x1x64xbf16>, tensor<1x8x4096x64xbf16>, tensor<1x8x4096x64xbf16>, sinks tensor<64xbf16> -> tensor<1x64x1x64xbf16>
      return %o : tensor<1x64x1x64xbf16>
    })mlir");
  const uint64_t scores = 64ull * 4096;
  // One exp per score, and one per row for exp(sink - m).
  EXPECT_EQ(w.transcendentalFlops.value(), scores + 64);
  // 4 per score, the final divide per output element, and per row the
  // sink's subtract and add.
  EXPECT_EQ(w.vectorFlops.value(), 4 * scores + 64ull * 64 + 2 * 64);
  // q, k, v and the 64 bf16 sinks.
  EXPECT_EQ(w.bytesRead.value(),
            64ull * 64 * 2 + 2 * (8ull * 4096 * 64 * 2) + 64 * 2);
}

TEST_F(WorkTest, AttentionDeepSeekV3MLAPrefill1M) {
  // DeepSeek-V3 MLA prefill (keys/values up-projected): 128 heads,
  // Dqk = 128 nope + 64 rope = 192, Dv = 128, causal over 2^20 tokens.
  Work w = workOf(R"mlir(
    func.func @f(%q: tensor<1x128x1048576x192xbf16>, %k: tensor<1x128x1048576x192xbf16>, %v: tensor<1x128x1048576x128xbf16>) -> tensor<1x128x1048576x128xbf16> {
      %o = npu.attention %q, %k, %v causal : tensor<1x128x1048576x192xbf16>, tensor<1x128x1048576x192xbf16>, tensor<1x128x1048576x128xbf16> -> tensor<1x128x1048576x128xbf16>
      return %o : tensor<1x128x1048576x128xbf16>
    })mlir");
  const uint64_t s = 1ull << 20;
  // P = s (s + 1) / 2 = 2^19 (2^20 + 1), computed without any loop.
  const uint64_t pairs = (s / 2) * (s + 1);
  EXPECT_EQ(w.matrixFlops.value(), 2ull * 128 * pairs * (192 + 128));
  EXPECT_EQ(w.transcendentalFlops.value(), 128ull * pairs);
  EXPECT_EQ(w.vectorFlops.value(), 4ull * 128 * pairs + 128ull * s * 128);
  // Exact values: P = 549756338176, matrix = 45036039223377920 (~4.5e16).
  EXPECT_EQ(pairs, 549756338176ull);
  EXPECT_EQ(w.matrixFlops.value(), 45036039223377920ull);
  // q and k: 128 x 2^20 x 192 bf16; v: 128 x 2^20 x 128 bf16.
  EXPECT_EQ(w.bytesRead.value(),
            2 * (128ull * s * 192 * 2) + 128ull * s * 128 * 2);
  EXPECT_EQ(w.bytesWritten.value(), 128ull * s * 128 * 2);
}

TEST_F(WorkTest, AttentionDeepSeekV3LatentDecode) {
  // DeepSeek-V3 MLA decode, absorbed form (FlashMLA): one new token, 128
  // query heads over one shared latent KV head of 4096 cached tokens;
  // kv = [c_kv (512) ; k_rope (64)] = 576 wide, V = kv[..., 0:512].
  Work w = workOf(R"mlir(
    func.func @f(%q: tensor<1x128x1x576xbf16>, %kv: tensor<1x1x4096x576xbf16>) -> tensor<1x128x1x512xbf16> {
      %o = npu.attention %q, %kv latent(512) scale(0.0723) causal : tensor<1x128x1x576xbf16>, tensor<1x1x4096x576xbf16> -> tensor<1x128x1x512xbf16>
      return %o : tensor<1x128x1x512xbf16>
    })mlir");
  // The query is at position 4095: it sees all 4096 keys.
  const uint64_t pairs = 4096;
  // 576 MACs per score for Q K^T, 512 for P V.
  EXPECT_EQ(w.matrixFlops.value(), 2ull * 128 * pairs * (576 + 512));
  EXPECT_EQ(w.transcendentalFlops.value(), 128ull * pairs);
  EXPECT_EQ(w.vectorFlops.value(), 4ull * 128 * pairs + 128ull * 1 * 512);
  // q + the latent cache read once (V is a slice of it, not re-read).
  EXPECT_EQ(w.bytesRead.value(), 128ull * 576 * 2 + 4096ull * 576 * 2);
  EXPECT_EQ(w.bytesWritten.value(), 128ull * 512 * 2);
  EXPECT_EQ(w.paramBytes.value(), 0u);
}

TEST_F(WorkTest, AttentionMistralSlidingWindow32K) {
  // Mistral-7B style: 32 query heads, 8 KV heads, window 4096 over 32768
  // tokens. Query i sees min(i + 1, 4096) keys.
  Work w = workOf(R"mlir(
    func.func @f(%q: tensor<1x32x32768x128xbf16>, %k: tensor<1x8x32768x128xbf16>, %v: tensor<1x8x32768x128xbf16>) -> tensor<1x32x32768x128xbf16> {
      %o = npu.attention %q, %k, %v causal window(4096) : tensor<1x32x32768x128xbf16>, tensor<1x8x32768x128xbf16>, tensor<1x8x32768x128xbf16> -> tensor<1x32x32768x128xbf16>
      return %o : tensor<1x32x32768x128xbf16>
    })mlir");
  // Queries 0..4095 see 1..4096 keys; the other 32768 - 4096 see 4096.
  const uint64_t pairs = 4096ull * 4097 / 2 + (32768ull - 4096) * 4096;
  EXPECT_EQ(w.transcendentalFlops.value(), 32ull * pairs);
  EXPECT_EQ(w.matrixFlops.value(), 2ull * 32 * pairs * (128 + 128));
}

TEST_F(WorkTest, AttentionPairCountMatchesBruteForce) {
  // The closed form against enumeration, over every small shape: not
  // causal, causal, and every window (0 = none) including windows wider
  // than the keys.
  for (int64_t sq = 1; sq <= 12; ++sq)
    for (int64_t skv = 1; skv <= 14; ++skv) {
      EXPECT_EQ(AttentionOp::countUnmaskedPairs(sq, skv, false, 0, 0).value(),
                bruteForcePairs(sq, skv, false, 0));
      if (sq > skv)
        continue;
      for (int64_t window = 0; window <= 16; ++window) {
        Count c = AttentionOp::countUnmaskedPairs(sq, skv, true, window, 0);
        ASSERT_FALSE(c.isOverflow());
        EXPECT_EQ(c.value(), bruteForcePairs(sq, skv, true, window))
            << "Sq " << sq << " Skv " << skv << " window " << window;
      }
      for (int64_t chunk = 1; chunk <= 16; ++chunk) {
        Count c = AttentionOp::countUnmaskedPairs(sq, skv, true, 0, chunk);
        ASSERT_FALSE(c.isOverflow());
        EXPECT_EQ(c.value(), bruteForcePairs(sq, skv, true, 0, chunk))
            << "Sq " << sq << " Skv " << skv << " chunk " << chunk;
      }
    }
}

TEST_F(WorkTest, AttentionSlidingWindowThroughTheOp) {
  // GQA B = 2, Hq = 4, Hkv = 2, Sq = 5 queries at positions 4..8 of
  // Skv = 9, window 3: every query sees 3 keys, P = 15.
  for (auto [sq, skv, window] :
       {std::tuple{5, 9, 3}, std::tuple{7, 7, 4}, std::tuple{6, 8, 1}}) {
    std::string ir = llvm::formatv(R"mlir(
      func.func @f(%q: tensor<2x4x{0}x8xf32>, %k: tensor<2x2x{1}x8xf32>, %v: tensor<2x2x{1}x4xf32>) -> tensor<2x4x{0}x4xf32> {{
        %o = npu.attention %q, %k, %v causal window({2}) : tensor<2x4x{0}x8xf32>, tensor<2x2x{1}x8xf32>, tensor<2x2x{1}x4xf32> -> tensor<2x4x{0}x4xf32>
        return %o : tensor<2x4x{0}x4xf32>
      })mlir",
                                   sq, skv, window)
                         .str();
    Work w = workOf(ir);
    uint64_t pairs = bruteForcePairs(sq, skv, true, window);
    EXPECT_EQ(w.transcendentalFlops.value(), 2ull * 4 * pairs) << ir;
    EXPECT_EQ(w.matrixFlops.value(), 2ull * 2 * 4 * pairs * (8 + 4)) << ir;
    EXPECT_EQ(w.vectorFlops.value(), 4ull * 2 * 4 * pairs + 2ull * 4 * sq * 4)
        << ir;
  }
  EXPECT_EQ(bruteForcePairs(5, 9, true, 3), 15u);
}

TEST_F(WorkTest, AttentionParameterOperands) {
  // A fixed memory (keys/values are parameters, e.g. a learned prefix).
  Work w = workOf(R"mlir(
    func.func @f(%q: tensor<1x2x3x4xf32>, %k: tensor<1x1x5x4xf32> {npu.param}, %v: tensor<1x1x5x4xf32> {npu.param}) -> tensor<1x2x3x4xf32> {
      %o = npu.attention %q, %k, %v : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32> -> tensor<1x2x3x4xf32>
      return %o : tensor<1x2x3x4xf32>
    })mlir");
  EXPECT_EQ(w.paramBytes.value(), 2 * (5u * 4 * 4));
  EXPECT_EQ(w.bytesRead.value(), 2u * 3 * 4 * 4 + 2 * (5u * 4 * 4));
  // Not causal: P = 3 * 5.
  EXPECT_EQ(w.transcendentalFlops.value(), 2u * 3 * 5);
}

TEST_F(WorkTest, AttentionFlopsOverflowIsAnError) {
  // B = 2^10, H = 2^10, causal S = 2^20, D = 64: P = 2^19 (2^20 + 1), so
  // B*H*P > 2^59 and matrix = 2*B*H*P*128 > 2^67. Every tensor fits (2^47
  // bytes), the count does not.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%q: tensor<1024x1024x1048576x64xbf16>, %k: tensor<1024x1024x1048576x64xbf16>, %v: tensor<1024x1024x1048576x64xbf16>) -> tensor<1024x1024x1048576x64xbf16> {
      %o = npu.attention %q, %k, %v causal : tensor<1024x1024x1048576x64xbf16>, tensor<1024x1024x1048576x64xbf16>, tensor<1024x1024x1048576x64xbf16> -> tensor<1024x1024x1048576x64xbf16>
      return %o : tensor<1024x1024x1048576x64xbf16>
    })mlir");
  ASSERT_TRUE(module);
  std::string diag;
  FailureOr<Work> w = sumWork(*module, &diag);
  EXPECT_TRUE(failed(w));
  EXPECT_NE(diag.find("does not fit in 64 bits"), std::string::npos) << diag;
}

TEST_F(WorkTest, AttentionPairCountOverflowIsAnError) {
  // Not causal, Sq = Skv = 2^39: P = 2^78 pairs per head.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%q: tensor<1x1x549755813888x1xf32>, %k: tensor<1x1x549755813888x1xf32>, %v: tensor<1x1x549755813888x1xf32>) -> tensor<1x1x549755813888x1xf32> {
      %o = npu.attention %q, %k, %v : tensor<1x1x549755813888x1xf32>, tensor<1x1x549755813888x1xf32>, tensor<1x1x549755813888x1xf32> -> tensor<1x1x549755813888x1xf32>
      return %o : tensor<1x1x549755813888x1xf32>
    })mlir");
  ASSERT_TRUE(module);
  std::string diag;
  EXPECT_TRUE(failed(sumWork(*module, &diag)));
  EXPECT_NE(diag.find("does not fit in 64 bits"), std::string::npos) << diag;
}
