//===- ServeTest.cpp - traces, step interpolation, engines, metrics -------===//

#include "npu/Serve/Engine.h"
#include "npu/Serve/Metrics.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir::npu;
using namespace mlir::npu::serve;

namespace {

/// dense(T) = 1000 + 100 T, prefill attention = S (S + 1) / 2, decode
/// attention = 10 ns per cached token (test/Serve/Inputs/hand-table.json).
CostTable handTable() {
  CostTable t;
  t.model = "hand";
  t.target = "chip";
  t.kind = "gpu";
  t.hbmBytes = 1e6;
  t.kvBytesPerToken = 1;
  for (int64_t s : {1, 16, 64}) {
    double attention = double(s * (s + 1) / 2);
    t.prefill.push_back(
        {1, s, 1000 + 100.0 * double(s) + attention, attention});
  }
  for (int64_t b : {1, 4})
    for (int64_t c : {16, 64}) {
      double attention = 10.0 * double(b * c);
      t.decode.push_back(
          {b, c, 1000 + 100.0 * double(b) + attention, attention});
    }
  return t;
}

TEST(ServeTest, TableInterpolationIsExactAtPointsAndLinearBetween) {
  CostTable t = handTable();
  ASSERT_FALSE(static_cast<bool>(t.verify()));
  EXPECT_DOUBLE_EQ(t.denseNs(16), 2600);
  EXPECT_DOUBLE_EQ(t.denseNs(8), 1800); // linear between 1 and 16
  EXPECT_DOUBLE_EQ(t.denseNs(64), 7400);
  // A chunk of q tokens after p: causal work q p + q (q + 1) / 2, here
  // 16 x 16 + 136 = 392, between W(16) = 136 and W(64) = 2080, where the
  // attention equals the work.
  EXPECT_DOUBLE_EQ(t.chunkAttentionNs(16, 0), 136);
  EXPECT_DOUBLE_EQ(t.chunkAttentionNs(16, 16), 392);
  // Decode: exact at grid points, linear in the mean context, then batch.
  EXPECT_DOUBLE_EQ(t.decodeAttentionNs(4, 4 * 64), 2560);
  EXPECT_DOUBLE_EQ(t.decodeAttentionNs(1, 40), 400);
  EXPECT_DOUBLE_EQ(t.decodeAttentionNs(2, 2 * 40), 800);
}

TEST(ServeTest, TableRejectsBrokenGrids) {
  CostTable t = handTable();
  t.decode.pop_back();
  llvm::Error grid = t.verify();
  EXPECT_TRUE(static_cast<bool>(grid));
  llvm::consumeError(std::move(grid));
  t = handTable();
  t.prefill[1].attentionNs = t.prefill[1].totalNs + 1;
  llvm::Error e = t.verify();
  EXPECT_TRUE(static_cast<bool>(e));
  llvm::consumeError(std::move(e));
}

/// Lengths drawn uniformly from [min, max].
LengthModel uniformLengths(int64_t min, int64_t max) {
  LengthModel m;
  m.min = min;
  m.max = max;
  return m;
}

TEST(ServeTest, GeneratedTraceIsSeededAndHasTheRate) {
  TraceSpec spec;
  spec.requests = 20000;
  spec.rate = 5;
  spec.prompt = uniformLengths(10, 20);
  spec.output = uniformLengths(1, 3);
  spec.seed = 7;
  for (double burst : {1.0, 0.25}) {
    spec.burstiness = burst;
    auto a = generateTrace(spec), b = generateTrace(spec);
    ASSERT_TRUE(static_cast<bool>(a));
    ASSERT_TRUE(static_cast<bool>(b));
    EXPECT_EQ(a->back().arrival, b->back().arrival);
    // Mean inter-arrival 1 / rate within 3% over 20000 draws (the standard
    // error is 1/sqrt(k n): 0.7% for k = 1, 1.4% for k = 0.25).
    EXPECT_NEAR(a->back().arrival / 20000, 0.2, 0.2 * 0.03);
    for (const Request &r : *a) {
      EXPECT_GE(r.prompt, 10);
      EXPECT_LE(r.prompt, 20);
      EXPECT_GE(r.output, 1);
      EXPECT_LE(r.output, 3);
    }
  }
}

TEST(ServeTest, CsvTraceErrorsNameTheLine) {
  auto ok = parseTraceCsv("arrival_s,prompt,output\n0,4,2\n# note\n0.5,3,1\n");
  ASSERT_TRUE(static_cast<bool>(ok));
  EXPECT_EQ(ok->size(), 2u);
  auto bad = parseTraceCsv("0,4,2\n0.5,0,1\n");
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("line 2"), std::string::npos);
  auto back = parseTraceCsv("1,4,2\n0.5,3,1\n");
  ASSERT_FALSE(static_cast<bool>(back));
  EXPECT_NE(llvm::toString(back.takeError()).find("before"), std::string::npos);
}

TEST(ServeTest, NearestRankPercentiles) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i)
    v.push_back(i);
  Distribution d = summarize(v);
  EXPECT_EQ(d.p50, 50);
  EXPECT_EQ(d.p90, 90);
  EXPECT_EQ(d.p99, 99);
  EXPECT_EQ(d.max, 100);
  EXPECT_DOUBLE_EQ(d.mean, 50.5);
}

TEST(ServeTest, UnderPressureEveryRequestFinishesWithinThePool) {
  CostTable t = handTable();
  t.hbmBytes = 64; // 16 blocks of 4 tokens: preemptions under load
  TraceSpec spec;
  spec.requests = 300;
  spec.rate = 1e6;
  spec.prompt = uniformLengths(1, 30);
  spec.output = uniformLengths(1, 20);
  auto trace = generateTrace(spec);
  ASSERT_TRUE(static_cast<bool>(trace));
  ContinuousPolicy p;
  p.maxBatchedTokens = 64;
  p.maxSeqs = 4;
  p.blockSize = 4;
  p.memoryUtilization = 1;
  auto run = simulateContinuous(*trace, t, p, /*recordSteps=*/true);
  ASSERT_TRUE(static_cast<bool>(run));
  EXPECT_EQ(run->kvBlocks, 16);
  EXPECT_GT(run->preemptions, 0);
  for (const RequestResult &r : run->requests) {
    ASSERT_FALSE(r.rejected);
    EXPECT_GE(r.firstToken, r.request.arrival);
    EXPECT_GE(r.finish, r.firstToken);
  }
  for (const StepRecord &s : run->steps)
    EXPECT_LE(s.usedBlocks, 16);
  // Every sequence made its tokens: each step adds at most one per
  // sequence, and the last step ends the run.
  EXPECT_DOUBLE_EQ(run->makespan,
                   run->steps.back().start + run->steps.back().seconds);
}

} // namespace
