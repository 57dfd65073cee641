//===- RaggedDecodeTest.cpp - pad/bucket plans vs a ragged decode kernel --===//

#include "npu/Compare/RaggedDecode.h"
#include "WorkTestUtils.h"
#include "npu/Analysis/GpuCostModel.h"
#include "npu/Analysis/TpuCostModel.h"
#include "npu/Target/Target.h"

#include <numeric>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::testing;

namespace {
// GQA decode: B = 4 sequences, Hq = 4 query heads over Hkv = 2 KV heads,
// D = 64, compiled for 256 KV tokens.
const char *kGqa = R"mlir(
func.func @decode(%q: tensor<4x4x1x64xbf16>, %k: tensor<4x2x256x64xbf16>,
                  %v: tensor<4x2x256x64xbf16>) -> tensor<4x4x1x64xbf16> {
  %o = npu.attention %q, %k, %v causal : tensor<4x4x1x64xbf16>,
       tensor<4x2x256x64xbf16>, tensor<4x2x256x64xbf16> -> tensor<4x4x1x64xbf16>
  return %o : tensor<4x4x1x64xbf16>
}
)mlir";
// MLA decode in latent form: one KV head of width 96 whose first 64
// columns are V.
const char *kLatent = R"mlir(
func.func @decode(%q: tensor<2x8x1x96xbf16>, %kv: tensor<2x1x128x96xbf16>)
    -> tensor<2x8x1x64xbf16> {
  %o = npu.attention %q, %kv latent(64) causal : tensor<2x8x1x96xbf16>,
       tensor<2x1x128x96xbf16> -> tensor<2x8x1x64xbf16>
  return %o : tensor<2x8x1x64xbf16>
}
)mlir";

int64_t sum(const std::vector<int64_t> &v) {
  return std::accumulate(v.begin(), v.end(), int64_t(0));
}

class RaggedDecodeTest : public WorkTest {
protected:
  AttentionOp firstAttention(ModuleOp m) {
    AttentionOp a;
    m.walk([&](AttentionOp op) { a = op; });
    return a;
  }
};
} // namespace

TEST(RaggedDecode, ParsesLengths) {
  std::string err;
  std::optional<LengthModel> u = parseLengthModel("uniform:1:4096", err);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->shape, LengthModel::Shape::Uniform);
  EXPECT_EQ(u->min, 1);
  EXPECT_EQ(u->max, 4096);
  std::optional<LengthModel> t = parseLengthModel("longtail:1024:8192", err);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->median, 1024);
  EXPECT_EQ(t->max, 8192);
  EXPECT_DOUBLE_EQ(t->sigma, 1.0);
  EXPECT_DOUBLE_EQ(parseLengthModel("longtail:10:100:0.5", err)->sigma, 0.5);
  std::optional<LengthModel> l = parseLengthModel("list:5:1:9", err);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->lengths, (std::vector<int64_t>{5, 1, 9}));
  EXPECT_EQ(l->min, 1);
  EXPECT_EQ(l->max, 9);
  EXPECT_TRUE(parseLengthModel("uniform:1099511627776:1099511627776", err));

  struct Bad {
    const char *spec, *message;
  };
  for (Bad b :
       {Bad{"uniform:9:5", "min 9 > max 5"},
        Bad{"uniform:-1:5", "length -1 in 'uniform:-1:5' must be in"},
        Bad{"uniform:0:5", "length 0"},
        Bad{"uniform:a:5", "'a' in 'uniform:a:5' is not an integer"},
        Bad{"uniform:1.5:5", "is not an integer"},
        Bad{"uniform:1:1099511627777", "must be in [1, 2^40"},
        Bad{"uniform:1:99999999999999999999", "is not an integer"},
        Bad{"longtail:5000:4096", "median 5000 > max 4096"},
        Bad{"longtail:10:100:0", "sigma '0'"},
        Bad{"longtail:10:100:x", "sigma 'x'"},
        Bad{"longtail:10:100:nan", "sigma 'nan'"}, Bad{"list:3:0", "length 0"},
        Bad{"list", "unknown lengths"}, Bad{"uniform:1", "unknown lengths"},
        Bad{"gamma:1:2", "unknown lengths"}}) {
    err.clear();
    EXPECT_FALSE(parseLengthModel(b.spec, err)) << b.spec;
    EXPECT_NE(err.find(b.message), std::string::npos) << b.spec << ": " << err;
  }
}

TEST(RaggedDecode, SamplingIsSeededAndInRange) {
  std::string err;
  LengthModel u = *parseLengthModel("uniform:100:200", err);
  std::vector<int64_t> a = sampleContextLengths(1000, u, 7);
  ASSERT_EQ(a.size(), 1000u);
  EXPECT_EQ(a, sampleContextLengths(1000, u, 7));
  EXPECT_NE(a, sampleContextLengths(1000, u, 8));
  for (int64_t len : a) {
    EXPECT_GE(len, 100);
    EXPECT_LE(len, 200);
  }
  // Both ends are reached and the mean is near the middle.
  EXPECT_EQ(*llvm::min_element(a), 100);
  EXPECT_EQ(*llvm::max_element(a), 200);
  EXPECT_NEAR(double(sum(a)) / 1000.0, 150.0, 3.0);
  for (int64_t len :
       sampleContextLengths(10, *parseLengthModel("uniform:7:7", err), 1))
    EXPECT_EQ(len, 7);

  // Lognormal, median 1024, sigma 1, clipped at 4096: half the sequences
  // at or below the median, P(Z > ln 4) = 8.3% clipped to the maximum.
  LengthModel t = *parseLengthModel("longtail:1024:4096", err);
  std::vector<int64_t> s = sampleContextLengths(20000, t, 3);
  EXPECT_EQ(s, sampleContextLengths(20000, t, 3));
  int64_t below = 0, atMax = 0;
  for (int64_t len : s) {
    EXPECT_GE(len, 1);
    EXPECT_LE(len, 4096);
    below += len <= 1024;
    atMax += len == 4096;
  }
  EXPECT_NEAR(double(below) / 20000.0, 0.5, 0.015);
  EXPECT_NEAR(double(atMax) / 20000.0, 0.0828, 0.01);

  LengthModel l = *parseLengthModel("list:5:1:9", err);
  EXPECT_EQ(sampleContextLengths(3, l, 99), (std::vector<int64_t>{5, 1, 9}));
}

TEST(RaggedDecode, BucketsArePowersOfTwoThenThePlan) {
  EXPECT_EQ(powerOfTwoBuckets(1), (std::vector<int64_t>{1}));
  EXPECT_EQ(powerOfTwoBuckets(8), (std::vector<int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(powerOfTwoBuckets(12), (std::vector<int64_t>{1, 2, 4, 8, 12}));
}

TEST(RaggedDecode, PaddingAndBucketsByHand) {
  // Plan 64; lengths 3, 17, 64, 100. Padding to 64: 61 + 47 + 0 + 0 = 108
  // padded tokens; 100 is truncated to 64: 36 dropped.
  std::vector<int64_t> lengths = {3, 17, 64, 100};
  PaddingPlan pad = planPadding(lengths, {64});
  EXPECT_EQ(pad.kernels, 1);
  EXPECT_EQ(pad.sequences, (std::vector<int64_t>{4}));
  EXPECT_EQ(pad.actualTokens, 184);
  EXPECT_EQ(pad.keptTokens, 148);
  EXPECT_EQ(pad.paddedTokens, 108);
  EXPECT_EQ(pad.droppedTokens, 36);
  EXPECT_EQ(pad.truncatedSequences, 1);
  // Powers of two: 3 -> 4 (1 padded), 17 -> 32 (15), 64 and 100 -> 64:
  // 16 padded in three kernels, the same 36 dropped.
  PaddingPlan pow2 = planPadding(lengths, powerOfTwoBuckets(64));
  EXPECT_EQ(pow2.kernels, 3);
  EXPECT_EQ(pow2.sequences,
            (std::vector<int64_t>{0, 0, 1, 0, 0, 1, 2})); // 1 2 4 .. 64
  EXPECT_EQ(pow2.paddedTokens, 16);
  EXPECT_EQ(pow2.droppedTokens, 36);
  // Buckets 16 and 64: 3 -> 16 (13), 17 -> 64 (47): 60 padded.
  PaddingPlan two = planPadding(lengths, {16, 64});
  EXPECT_EQ(two.kernels, 2);
  EXPECT_EQ(two.paddedTokens, 60);
  // Lengths equal to buckets pad nothing.
  EXPECT_EQ(planPadding({4, 8, 8}, {4, 8}).paddedTokens, 0);
}

TEST_F(RaggedDecodeTest, VariantsAreTheOpAtOtherShapes) {
  OwningOpRef<ModuleOp> m = parse(kGqa);
  ASSERT_TRUE(m);
  AttentionOp op = firstAttention(*m);
  AttentionAt at = makeAttentionAt(op);
  // At the op's own shape: exactly describeKernel of the op.
  FailureOr<KernelModel> own = describeKernel(KernelKind::Attention, {op});
  FailureOr<AttentionVariant> same = at(4, 256);
  ASSERT_TRUE(succeeded(own) && succeeded(same));
  EXPECT_EQ(same->desc.loops, own->phases[0].loops);
  EXPECT_EQ(same->desc.work.matrixFlops, own->work.matrixFlops);
  EXPECT_EQ(same->work.matrixFlops, own->work.matrixFlops);
  EXPECT_EQ(same->work.bytesRead, op.computeWork().bytesRead);
  // One sequence of L tokens: loops {Hkv, 1, L, D, 1, L}; Q.K and P.V are
  // 2 * Hq * L * (Dqk + Dv) FLOPs; Q is Hq * D * 2 bytes, K and V are
  // L * Hkv * 2 * D * 2 bytes.
  FailureOr<AttentionVariant> one = at(1, 100);
  ASSERT_TRUE(succeeded(one));
  EXPECT_EQ(one->desc.loops, (SmallVector<int64_t, 4>{2, 1, 100, 64, 1, 100}));
  EXPECT_EQ(one->work.matrixFlops.value(), 2u * 4 * 100 * 128);
  EXPECT_EQ(one->work.bytesRead.value(), 4u * 64 * 2 + 100u * 2 * 128 * 2);
  // The op itself is unchanged.
  EXPECT_EQ(op.getKey().getType().getDimSize(2), 256);
  // Products beyond 64 bits fail instead of wrapping.
  EXPECT_TRUE(failed(at(int64_t(1) << 30, kMaxContextLength)));
}

TEST_F(RaggedDecodeTest, StaticPlansByHandAndAgainstTheModel) {
  OwningOpRef<ModuleOp> m = parse(kGqa);
  ASSERT_TRUE(m);
  AttentionOp op = firstAttention(*m);
  AttentionAt at = makeAttentionAt(op);
  TargetAttr tpu = target("same-silicon-tpu");
  FailureOr<TpuParams> tp = TpuParams::get(tpu);
  ASSERT_TRUE(succeeded(tp));

  // Every sequence at the plan: nothing wasted, and the time is the
  // TPU-like model's price of the op as compiled.
  std::vector<int64_t> full(4, 256);
  std::optional<StaticPlanCost> c =
      priceStaticPlan(planPadding(full, {256}), full, at, tpu);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->wastedFlops.value(), 0u);
  EXPECT_EQ(c->wastedKvBytes.value(), 0u);
  FailureOr<KernelModel> own = describeKernel(KernelKind::Attention, {op});
  std::optional<TpuTileChoice> direct = chooseTpuTile(own->phases[0], *tp);
  ASSERT_TRUE(direct);
  EXPECT_DOUBLE_EQ(c->timeNs, direct->cost.timeNs);

  // Ragged: padding wastes 2 * Hq * (Dqk + Dv) FLOPs and Hkv * (Dk + Dv)
  // * 2 bytes per padded token; the pad plan's time does not depend on
  // the lengths; buckets pad less.
  std::vector<int64_t> ragged = {3, 17, 200, 300};
  PaddingPlan pad = planPadding(ragged, {256});
  EXPECT_EQ(pad.paddedTokens, 253 + 239 + 56);
  EXPECT_EQ(pad.droppedTokens, 44);
  std::optional<StaticPlanCost> p = priceStaticPlan(pad, ragged, at, tpu);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->wastedFlops.value(), uint64_t(pad.paddedTokens) * 2 * 4 * 128);
  EXPECT_EQ(p->wastedKvBytes.value(), uint64_t(pad.paddedTokens) * 2 * 128 * 2);
  EXPECT_DOUBLE_EQ(p->timeNs, c->timeNs);
  PaddingPlan buckets = planPadding(ragged, powerOfTwoBuckets(256));
  EXPECT_EQ(buckets.paddedTokens, 1 + 15 + 56);
  std::optional<StaticPlanCost> b = priceStaticPlan(buckets, ragged, at, tpu);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->wastedFlops.value(),
            uint64_t(buckets.paddedTokens) * 2 * 4 * 128);
  // The bucket plan is the sum of its kernels, each priced directly.
  double sumNs = 0;
  for (auto [len, n] : llvm::zip(buckets.buckets, buckets.sequences))
    if (n)
      sumNs += chooseTpuTile(at(n, len)->desc, *tp)->cost.timeNs;
  EXPECT_DOUBLE_EQ(b->timeNs, sumNs);
  EXPECT_GT(b->timeNs, 0);
}

TEST_F(RaggedDecodeTest, LatentKvBytesCountKOnce) {
  // In the latent form V is a slice of K: a padded token wastes Dqk * 2
  // bytes per KV head, and 2 * Hq * (Dqk + Dv) FLOPs.
  OwningOpRef<ModuleOp> m = parse(kLatent);
  ASSERT_TRUE(m);
  AttentionAt at = makeAttentionAt(firstAttention(*m));
  std::vector<int64_t> lengths = {28, 128};
  PaddingPlan pad = planPadding(lengths, {128});
  EXPECT_EQ(pad.paddedTokens, 100);
  std::optional<StaticPlanCost> p =
      priceStaticPlan(pad, lengths, at, target("same-silicon-tpu"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->wastedKvBytes.value(), 100u * 96 * 2);
  EXPECT_EQ(p->wastedFlops.value(), 100u * 2 * 8 * (96 + 64));
}

TEST_F(RaggedDecodeTest, RaggedKernelMatchesTheModelAndGrowsWithLength) {
  OwningOpRef<ModuleOp> m = parse(kGqa);
  ASSERT_TRUE(m);
  AttentionAt at = makeAttentionAt(firstAttention(*m));
  TargetAttr gpu = target("same-silicon-gpu");
  FailureOr<GpuParams> gp = GpuParams::get(gpu);
  ASSERT_TRUE(succeeded(gp));

  // Equal lengths, one wave: the ragged launch is the GPU-like model's
  // price of the uniform kernel (without the L2 simulation).
  std::vector<int64_t> equal(4, 256);
  std::optional<RaggedGpuCost> r = priceRaggedGpu(equal, at, gpu);
  ASSERT_TRUE(r);
  const KernelDesc whole = at(4, 256)->desc;
  std::optional<SmallVector<int64_t, 4>> tile = chooseGpuTile(whole, *gp);
  ASSERT_TRUE(tile);
  std::optional<GpuBlockPlan> plan = planGpuBlock(whole, *tile, *gp);
  ASSERT_TRUE(plan);
  ASSERT_LE(plan->blocks * r->kvSplits, gp->sms * plan->blocksPerSM);
  GpuLaunch split;
  split.kvSplits = r->kvSplits;
  std::optional<GpuCost> direct =
      getGpuPhaseCost(whole, *tile, *gp, false, {split});
  ASSERT_TRUE(direct);
  EXPECT_EQ(r->blocks, plan->blocks * r->kvSplits);
  EXPECT_NEAR(r->timeNs, direct->timeNs, 1e-9 * direct->timeNs);
  EXPECT_NEAR(r->memoryNs, direct->memoryNs, 1e-9 * direct->memoryNs);
  EXPECT_EQ(r->flops, whole.work.matrixFlops);

  // The run-time path uses the actual lengths, none dropped: its FLOPs are
  // 2 * Hq * (Dqk + Dv) per token, beyond the plan too.
  std::vector<int64_t> ragged = {3, 17, 200, 300};
  std::optional<RaggedGpuCost> rr = priceRaggedGpu(ragged, at, gpu);
  ASSERT_TRUE(rr);
  EXPECT_EQ(rr->flops.value(), uint64_t(3 + 17 + 200 + 300) * 2 * 4 * 128);
  // Longer sequences never cost less; shorter ones less than the padded.
  double last = 0;
  for (int64_t len : {1, 16, 64, 256, 1024, 4096}) {
    std::vector<int64_t> l = {3, 17, 200, len};
    std::optional<RaggedGpuCost> c = priceRaggedGpu(l, at, gpu);
    ASSERT_TRUE(c);
    EXPECT_GE(c->timeNs, last) << len;
    last = c->timeNs;
  }
  std::optional<RaggedGpuCost> shortOnes =
      priceRaggedGpu({3, 17, 100, 100}, at, gpu);
  ASSERT_TRUE(shortOnes);
  EXPECT_LT(shortOnes->memoryNs, r->memoryNs);
  EXPECT_LE(shortOnes->timeNs, r->timeNs);
}

TEST_F(RaggedDecodeTest, ScenariosOnAModule) {
  OwningOpRef<ModuleOp> m = parse(kGqa);
  ASSERT_TRUE(m);
  TargetAttr tpu = target("same-silicon-tpu"), gpu = target("same-silicon-gpu");
  FailureOr<std::vector<RaggedScenario>> s = runRaggedScenarios(
      *m, {"list:3:17:200:300", "uniform:1:256"}, {}, 5, tpu, gpu);
  ASSERT_TRUE(succeeded(s));
  ASSERT_EQ(s->size(), 2u);
  const RaggedScenario &l = (*s)[0];
  EXPECT_EQ(l.plan, 256);
  EXPECT_EQ(l.batch, 4);
  EXPECT_EQ(l.pad.droppedTokens, 44);
  EXPECT_EQ(l.bucket.buckets, powerOfTwoBuckets(256));
  EXPECT_EQ((*s)[1].pad.droppedTokens, 0);
  // A list of the wrong size, a bad spec and a bucket beyond the plan fail.
  std::string diag;
  ScopedDiagnosticHandler h(&context, [&](Diagnostic &d) {
    diag += d.str() + "\n";
    return success();
  });
  EXPECT_TRUE(failed(runRaggedScenarios(*m, {"list:3:17"}, {}, 1, tpu, gpu)));
  EXPECT_NE(diag.find("gives 2 lengths, but the batch has 4"),
            std::string::npos);
  EXPECT_TRUE(
      failed(runRaggedScenarios(*m, {"uniform:1:8"}, {300}, 1, tpu, gpu)));
  EXPECT_NE(diag.find("bucket 300 is outside [1, 256]"), std::string::npos);
}
