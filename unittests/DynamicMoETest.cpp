//===- DynamicMoETest.cpp - static capacity vs run-time MoE routing -------===//

#include "npu/Compare/DynamicMoE.h"
#include "WorkTestUtils.h"
#include "npu/Target/Target.h"

#include <numeric>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::testing;

namespace {
int64_t sum(const std::vector<int64_t> &v) {
  return std::accumulate(v.begin(), v.end(), int64_t(0));
}

using DynamicMoETest = WorkTest;
} // namespace

TEST(DynamicMoE, ParsesLoads) {
  std::string err;
  EXPECT_EQ(parseLoadModel("uniform", err)->shape, LoadModel::Shape::Uniform);
  EXPECT_DOUBLE_EQ(parseLoadModel("zipf:1.2", err)->zipfS, 1.2);
  EXPECT_DOUBLE_EQ(parseLoadModel("hot:0.5", err)->hotShare, 0.5);
  for (StringRef bad :
       {"zipf", "zipf:0", "hot:1.5", "hot:x", "skewed", "uniform:1"}) {
    EXPECT_FALSE(parseLoadModel(bad, err)) << bad.str();
    EXPECT_NE(err.find("unknown load"), std::string::npos);
  }
}

TEST(DynamicMoE, CapacityPlanByHand) {
  // T = 4 tokens, k = 2: 8 assignments over 4 experts, factor 1: C = 2.
  // Loads 5, 1, 0, 2: padded slots 0 + 1 + 2 + 0 = 3, dropped 3 + 0 = 3.
  CapacityPlan p = planCapacity({5, 1, 0, 2}, 4, 2, 1.0);
  EXPECT_EQ(p.capacity, 2);
  EXPECT_EQ(p.assignments, 8);
  EXPECT_EQ(p.paddedSlots, 3);
  EXPECT_EQ(p.droppedTokens, 3);
  // Factor 1.25: C = ceil(2.5) = 3: padded 0 + 2 + 3 + 1 = 6, dropped 2.
  CapacityPlan q = planCapacity({5, 1, 0, 2}, 4, 2, 1.25);
  EXPECT_EQ(q.capacity, 3);
  EXPECT_EQ(q.paddedSlots, 6);
  EXPECT_EQ(q.droppedTokens, 2);
}

TEST(DynamicMoE, SamplingIsSeededAndDistinct) {
  LoadModel uniform;
  std::vector<int64_t> a = sampleExpertLoads(1000, 8, 64, uniform, 7);
  EXPECT_EQ(a, sampleExpertLoads(1000, 8, 64, uniform, 7));
  EXPECT_NE(a, sampleExpertLoads(1000, 8, 64, uniform, 8));
  EXPECT_EQ(sum(a), 8000);
  // k distinct experts per token: no expert gets more than T.
  for (int64_t n : a)
    EXPECT_LE(n, 1000);
  // All the weight on expert 0 with k = 1: every token goes there.
  LoadModel hot{LoadModel::Shape::Hot, 1.0, 1.0};
  std::vector<int64_t> h = sampleExpertLoads(100, 1, 16, hot, 1);
  EXPECT_EQ(h[0], 100);
  // With k = 2 the second choice is another expert, uniform over the 15.
  std::vector<int64_t> h2 = sampleExpertLoads(100, 2, 16, hot, 1);
  EXPECT_EQ(h2[0], 100);
  EXPECT_EQ(sum(h2), 200);
  EXPECT_GT(*std::max_element(h2.begin() + 1, h2.end()), 0);
  EXPECT_LT(*std::max_element(h2.begin() + 1, h2.end()), 30);
}

TEST(DynamicMoE, SkewDropsMoreThanUniform) {
  LoadModel uniform, zipf{LoadModel::Shape::Zipf, 1.2, 1.0};
  std::vector<int64_t> u = sampleExpertLoads(4096, 8, 256, uniform, 3);
  std::vector<int64_t> z = sampleExpertLoads(4096, 8, 256, zipf, 3);
  CapacityPlan pu = planCapacity(u, 4096, 8, 1.25);
  CapacityPlan pz = planCapacity(z, 4096, 8, 1.25);
  EXPECT_LT(pu.droppedTokens, pz.droppedTokens);
  EXPECT_EQ(pu.capacity, pz.capacity);
}

TEST_F(DynamicMoETest, BalancedLoadWastesNothing) {
  // Every expert gets exactly its capacity: no padding, no drops; the static
  // plan runs every expert on 8 tokens, as the run-time path does.
  std::vector<int64_t> loads(16, 8);
  CapacityPlan plan = planCapacity(loads, 64, 2, 1.0);
  EXPECT_EQ(plan.capacity, 8);
  Type bf16 = BFloat16Type::get(&context);
  std::optional<MoEScenarioCost> c =
      priceMoEScenario(loads, plan, 256, 512, bf16, bf16,
                       target("same-silicon-tpu"), target("same-silicon-gpu"));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->wastedFlops.value(), 0u);
  EXPECT_EQ(c->droppedTokens, 0);
  EXPECT_EQ(c->activeExperts, 16);
  EXPECT_GT(c->staticNs, 0);
  EXPECT_GT(c->dynamicNs, 0);
}

TEST_F(DynamicMoETest, HotExpertWastesPaddingAndDrops) {
  // One expert gets everything: the static plan pads 15 experts' slots and
  // drops what exceeds the hot expert's capacity; the wasted FLOPs are
  // 6 * padded slots * F * D.
  std::vector<int64_t> loads(16, 0);
  loads[0] = 128;
  CapacityPlan plan = planCapacity(loads, 64, 2, 1.0);
  EXPECT_EQ(plan.capacity, 8);
  EXPECT_EQ(plan.paddedSlots, 15 * 8);
  EXPECT_EQ(plan.droppedTokens, 120);
  Type bf16 = BFloat16Type::get(&context);
  std::optional<MoEScenarioCost> c =
      priceMoEScenario(loads, plan, 256, 512, bf16, bf16,
                       target("same-silicon-tpu"), target("same-silicon-gpu"));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->wastedFlops.value(), 6ull * 120 * 256 * 512);
  EXPECT_EQ(c->activeExperts, 1);
}
