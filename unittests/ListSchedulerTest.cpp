//===- ListSchedulerTest.cpp - ASAP and list scheduling on small DAGs -----===//
//
// Every expected makespan is computed by hand in the comment above it. Every
// list schedule must pass verify(); the random test checks that on many DAGs
// together with the lower bounds any valid schedule obeys.
//
//===----------------------------------------------------------------------===//

#include "npu/Scheduling/Algorithms.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir::npu::sched;

namespace {

/// Runs scheduleList, verifies the result and returns its makespan.
Time listMakespan(const Problem &p, Schedule *out = nullptr) {
  llvm::Expected<Schedule> sched = scheduleList(p);
  if (!sched) {
    ADD_FAILURE() << llvm::toString(sched.takeError());
    return -1;
  }
  llvm::Expected<Time> makespan = p.verify(*sched);
  if (!makespan) {
    ADD_FAILURE() << llvm::toString(makespan.takeError());
    return -1;
  }
  if (out)
    *out = *sched;
  return *makespan;
}

/// Runs scheduleASAP, checks the relaxed contract and returns its makespan.
Time asapMakespan(const Problem &p) {
  llvm::Expected<Schedule> sched = scheduleASAP(p);
  if (!sched) {
    ADD_FAILURE() << llvm::toString(sched.takeError());
    return -1;
  }
  llvm::Expected<Time> makespan = p.verifyPrecedence(*sched);
  if (!makespan) {
    ADD_FAILURE() << llvm::toString(makespan.takeError());
    return -1;
  }
  return *makespan;
}

TEST(ListScheduler, ChainWithDelay) {
  // a(3) -> b(4) -delay 2-> c(5) on one unit: 3 + 4 + 2 + 5 = 14.
  Problem p;
  ResourceId vpu = p.addResource("vpu", 1);
  OpId a = p.addOperation("a", vpu, 3);
  OpId b = p.addOperation("b", vpu, 4);
  OpId c = p.addOperation("c", vpu, 5);
  p.addDependence(a, b);
  p.addDependence(b, c, 2);
  EXPECT_EQ(listMakespan(p), 14);
  EXPECT_EQ(asapMakespan(p), 14);
  EXPECT_EQ(computeCriticalPathPriorities(p), (std::vector<Time>{14, 11, 5}));
}

TEST(ListScheduler, DiamondOnSeparateAndSharedUnits) {
  // load(2) -> {mm(5), exp(3)} -> add(1).
  // Separate units: 2 + max(5, 3) + 1 = 8.
  // mm and exp on one unit: priorities mm 5 + 1 = 6 > exp 3 + 1 = 4, so mm
  // runs in [2, 7), exp in [7, 10), add in [10, 11): 11.
  for (bool shared : {false, true}) {
    Problem p;
    ResourceId dma = p.addResource("dma", 1);
    ResourceId mxu = p.addResource("mxu", 1);
    ResourceId vpu = shared ? mxu : p.addResource("vpu", 1);
    OpId load = p.addOperation("load", dma, 2);
    OpId mm = p.addOperation("mm", mxu, 5);
    OpId exp = p.addOperation("exp", vpu, 3);
    OpId add = p.addOperation("add", dma, 1);
    p.addDependence(load, mm);
    p.addDependence(load, exp);
    p.addDependence(mm, add);
    p.addDependence(exp, add);
    Schedule sched(4);
    EXPECT_EQ(listMakespan(p, &sched), shared ? 11 : 8);
    EXPECT_EQ(asapMakespan(p), 8);
    EXPECT_EQ(sched.getStart(mm), 2);
    EXPECT_EQ(sched.getStart(exp), shared ? 7 : 2);
  }
}

TEST(ListScheduler, ResourceBoundFanOutIsNotOptimal) {
  // root(1) feeds five independent ops of latency 4, 3, 3, 2, 2 on two
  // units. Greedy by priority: unit A runs 4 in [1, 5), unit B runs 3 in
  // [1, 4) then 3 in [4, 7); A runs 2 in [5, 7); the last 2 waits for 7 and
  // ends at 9. The optimum is 8 ({4, 3} and {3, 2, 2}): list scheduling is a
  // heuristic, within Graham's factor 2 - 1/m of the optimum, not exact.
  Problem p;
  ResourceId vpu = p.addResource("vpu", 1);
  ResourceId mxu = p.addResource("mxu", 2);
  OpId root = p.addOperation("root", vpu, 1);
  for (Time latency : {4, 3, 3, 2, 2})
    p.addDependence(root, p.addOperation("leaf", mxu, latency));
  EXPECT_EQ(listMakespan(p), 9);
  EXPECT_EQ(asapMakespan(p), 5);
}

TEST(ListScheduler, TwoDmaEnginesVersusOne) {
  // Four loads of 10 each feed a matmul of 3 on one matrix unit.
  // One engine: loads end at 10, 20, 30, 40; the last matmul ends at 43.
  // Two engines: loads end at 10, 10, 20, 20; matmuls run in [10, 13),
  // [13, 16), [20, 23), [23, 26): 26.
  for (int64_t engines : {1, 2}) {
    Problem p;
    ResourceId dma = p.addResource("dma", engines);
    ResourceId mxu = p.addResource("mxu", 1);
    for (int i = 0; i < 4; ++i)
      p.addDependence(p.addOperation("load", dma, 10),
                      p.addOperation("mm", mxu, 3));
    EXPECT_EQ(listMakespan(p), engines == 1 ? 43 : 26);
  }
}

TEST(ListScheduler, PipelinedUnitAcceptsEveryInitiationInterval) {
  // Three independent matmuls of latency 10 on one matrix unit: starts
  // 0, 4, 8 with occupancy 4 (makespan 18), 0, 10, 20 without (30).
  for (Time occupancy : {4, 10}) {
    Problem p;
    ResourceId mxu = p.addResource("mxu", 1);
    for (int i = 0; i < 3; ++i)
      p.addPipelinedOperation("mm", mxu, 10, occupancy);
    EXPECT_EQ(listMakespan(p), occupancy == 4 ? 18 : 30);
  }
}

TEST(ListScheduler, TiesGoToTheSmallerId) {
  // Equal priorities (5, no successors) on one unit: #0 runs first.
  Problem p;
  ResourceId vpu = p.addResource("vpu", 1);
  OpId first = p.addOperation("first", vpu, 5);
  OpId second = p.addOperation("second", vpu, 5);
  Schedule sched(2);
  EXPECT_EQ(listMakespan(p, &sched), 10);
  EXPECT_EQ(sched.getStart(first), 0);
  EXPECT_EQ(sched.getStart(second), 5);
}

TEST(ListScheduler, ZeroLatencyChainsStartAtTheSameInstant) {
  // a(5) -> barrier(0, holds no unit) -> c(1): the barrier and c both start
  // at 5, in the same time step; makespan max(5, 5 + 1) = 6.
  Problem p;
  ResourceId vpu = p.addResource("vpu", 1);
  ResourceId sync = p.addResource("sync", 1);
  OpId a = p.addOperation("a", vpu, 5);
  OpId barrier = p.addOperation("barrier", sync, 0);
  OpId c = p.addOperation("c", sync, 1);
  p.addDependence(a, barrier);
  p.addDependence(barrier, c);
  Schedule sched(3);
  EXPECT_EQ(listMakespan(p, &sched), 6);
  EXPECT_EQ(sched.getStart(barrier), 5);
  EXPECT_EQ(sched.getStart(c), 5);
}

TEST(ListScheduler, OperationsThatHoldNoUnitNeverWait) {
  // a(10) and b(10) compete for one unit; z (latency 3, occupancy 0, lowest
  // priority) holds none, so it starts at 0 rather than behind b at 10.
  Problem p;
  ResourceId vpu = p.addResource("vpu", 1);
  p.addOperation("a", vpu, 10);
  OpId b = p.addOperation("b", vpu, 10);
  OpId z = p.addPipelinedOperation("z", vpu, 3, 0);
  Schedule sched(3);
  EXPECT_EQ(listMakespan(p, &sched), 20);
  EXPECT_EQ(sched.getStart(b), 10);
  EXPECT_EQ(sched.getStart(z), 0);
}

TEST(ListScheduler, PropagatesCheckErrors) {
  Problem p;
  p.addOperation("x", ResourceId{0}, 1);
  llvm::Expected<Schedule> sched = scheduleList(p);
  ASSERT_FALSE(static_cast<bool>(sched));
  EXPECT_EQ(llvm::toString(sched.takeError()),
            "operation 'x' (#0) uses resource #0, but the problem has 0 "
            "resources");
}

TEST(ListScheduler, RandomDagsAreValidAndWithinBounds) {
  // Lower bounds of any valid schedule: the critical path (ASAP) and, per
  // resource, its total occupancy over its units. Upper bound: the sum of
  // all latencies and delays (see Problem.cpp).
  std::mt19937 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    Problem p;
    std::vector<ResourceId> res;
    for (int r = 0, e = 1 + rng() % 3; r < e; ++r)
      res.push_back(p.addResource("r" + std::to_string(r), 1 + rng() % 3));
    int n = 1 + rng() % 25;
    Time sum = 0;
    std::vector<Time> work(res.size(), 0);
    for (int i = 0; i < n; ++i) {
      ResourceId r = res[rng() % res.size()];
      Time latency = rng() % 10,
           occupancy = latency ? rng() % (latency + 1) : 0;
      p.addPipelinedOperation("op" + std::to_string(i), r, latency, occupancy);
      sum += latency;
      work[r.index] += occupancy;
    }
    for (int j = 1; j < n; ++j)
      for (int i = 0; i < j; ++i)
        if (rng() % 4 == 0) {
          Time delay = rng() % 3;
          p.addDependence(OpId{unsigned(i)}, OpId{unsigned(j)}, delay);
          sum += delay;
        }
    Time makespan = listMakespan(p);
    EXPECT_GE(makespan, asapMakespan(p)) << "trial " << trial;
    for (size_t r = 0; r < res.size(); ++r) {
      int64_t units = p.getResource(res[r]).count;
      EXPECT_GE(makespan, (work[r] + units - 1) / units) << "trial " << trial;
    }
    EXPECT_LE(makespan, sum) << "trial " << trial;
  }
}

} // namespace
