//===- SchedulingTest.cpp - Problem::check() and Problem::verify() --------===//
//
// check() rejects each kind of ill-formed problem with a message naming the
// culprit; verify() rejects each kind of invalid solution. The algorithms are
// tested in ListSchedulerTest.cpp and PipelinedLoopTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "npu/Scheduling/Problem.h"

#include "gtest/gtest.h"

#include <limits>

using namespace mlir::npu::sched;

namespace {

/// The message of a failed check(), or "<valid>".
std::string checkMessage(const Problem &p) {
  if (llvm::Error err = p.check())
    return llvm::toString(std::move(err));
  return "<valid>";
}

/// The message of a failed verify(), or "<valid>".
std::string verifyMessage(const Problem &p, const Schedule &s) {
  llvm::Expected<Time> makespan = p.verify(s);
  if (!makespan)
    return llvm::toString(makespan.takeError());
  return "<valid>";
}

/// load (dma, 10) -> matmul (mxu, 20) -> store (dma, 10) with a 5 delay
/// between matmul and store; two DMA engines.
struct SmallProblem {
  Problem p;
  ResourceId dma = p.addResource("dma", 2);
  ResourceId mxu = p.addResource("mxu", 1);
  OpId load = p.addOperation("load", dma, 10);
  OpId matmul = p.addOperation("matmul", mxu, 20);
  OpId store = p.addOperation("store", dma, 10);
  SmallProblem() {
    p.addDependence(load, matmul);
    p.addDependence(matmul, store, 5);
  }
};

TEST(SchedulingCheck, AcceptsWellFormedProblem) {
  SmallProblem s;
  EXPECT_EQ(checkMessage(s.p), "<valid>");
  EXPECT_EQ(checkMessage(Problem()), "<valid>");
}

TEST(SchedulingCheck, RejectsMissingResource) {
  SmallProblem s;
  s.p.addOperation("exp", ResourceId{7}, 3);
  EXPECT_EQ(checkMessage(s.p), "operation 'exp' (#3) uses resource #7, but "
                               "the problem has 2 resources");
}

TEST(SchedulingCheck, RejectsBadResources) {
  Problem zero;
  zero.addResource("vpu", 0);
  EXPECT_EQ(checkMessage(zero),
            "resource 'vpu' has 0 units; at least 1 is required");
  Problem twice;
  twice.addResource("dma", 1);
  twice.addResource("dma", 2);
  EXPECT_EQ(checkMessage(twice), "resource 'dma' is declared twice");
}

TEST(SchedulingCheck, RejectsNegativeLatencyAndBadOccupancy) {
  SmallProblem s;
  s.p.addOperation("softmax", s.mxu, -4);
  EXPECT_EQ(checkMessage(s.p),
            "operation 'softmax' (#3) has negative latency -4");

  SmallProblem over;
  over.p.addPipelinedOperation("mm", over.mxu, 8, 9);
  EXPECT_EQ(checkMessage(over.p), "operation 'mm' (#3) has occupancy 9 "
                                  "outside [0, latency = 8]");
  SmallProblem negative;
  negative.p.addPipelinedOperation("mm", negative.mxu, 8, -1);
  EXPECT_NE(checkMessage(negative.p).find("occupancy -1"), std::string::npos);
}

TEST(SchedulingCheck, RejectsBadDependences) {
  SmallProblem s;
  s.p.addDependence(s.load, OpId{5});
  EXPECT_EQ(checkMessage(s.p),
            "dependence 'load' (#0) -> #5 (no such operation) refers to an "
            "operation that does not exist (3 operations)");

  SmallProblem d;
  d.p.addDependence(d.load, d.store, -1);
  EXPECT_EQ(checkMessage(d.p),
            "dependence 'load' (#0) -> 'store' (#2) has negative delay -1");
}

TEST(SchedulingCheck, RejectsCycleAndNamesIt) {
  SmallProblem s;
  OpId exp = s.p.addOperation("exp", s.mxu, 1);
  s.p.addDependence(s.store, exp);
  s.p.addDependence(exp, s.matmul); // matmul -> store -> exp -> matmul
  EXPECT_EQ(checkMessage(s.p),
            "dependence cycle: 'matmul' (#1) -> 'store' (#2) -> 'exp' (#3) "
            "-> 'matmul' (#1)");

  Problem self;
  OpId a = self.addOperation("a", self.addResource("vpu", 1), 1);
  self.addDependence(a, a);
  EXPECT_EQ(checkMessage(self), "dependence cycle: 'a' (#0) -> 'a' (#0)");
}

TEST(SchedulingCheck, RejectsTimeOverflow) {
  Problem p;
  ResourceId r = p.addResource("vpu", 1);
  Time big = std::numeric_limits<Time>::max() / 2 + 1;
  p.addOperation("a", r, big);
  p.addOperation("b", r, big);
  EXPECT_EQ(checkMessage(p),
            "the sum of all latencies and delays overflows Time");
}

TEST(SchedulingVerify, AcceptsValidScheduleAndReturnsMakespan) {
  SmallProblem s;
  Schedule sched(3);
  sched.setStart(s.load, 0);
  sched.setStart(s.matmul, 10);
  sched.setStart(s.store, 35); // 10 + 20 + delay 5
  llvm::Expected<Time> makespan = s.p.verify(sched);
  ASSERT_TRUE(static_cast<bool>(makespan)) << toString(makespan.takeError());
  EXPECT_EQ(*makespan, 45);
}

TEST(SchedulingVerify, RejectsUnscheduledAndNegativeStart) {
  SmallProblem s;
  Schedule sched(3);
  sched.setStart(s.load, 0);
  sched.setStart(s.store, 35);
  EXPECT_EQ(verifyMessage(s.p, sched),
            "operation 'matmul' (#1) is not scheduled");
  sched.setStart(s.matmul, 10);
  sched.setStart(s.load, -1);
  EXPECT_EQ(verifyMessage(s.p, sched),
            "operation 'load' (#0) starts at -1 < 0");
  EXPECT_EQ(verifyMessage(s.p, Schedule(2)),
            "the schedule has 2 entries for 3 operations");
}

TEST(SchedulingVerify, RejectsViolatedDependenceIncludingDelay) {
  SmallProblem s;
  Schedule sched(3);
  sched.setStart(s.load, 0);
  sched.setStart(s.matmul, 10);
  sched.setStart(s.store, 34); // one short of the 5 delay
  EXPECT_EQ(verifyMessage(s.p, sched),
            "dependence 'matmul' (#1) -> 'store' (#2) violated: 'store' (#2) "
            "starts at 34, but 'matmul' (#1) starts at 10 with latency 20 and "
            "the dependence has delay 5, so the earliest start is 35");
}

TEST(SchedulingVerify, RejectsOverlapBeyondCapacity) {
  // Three independent loads on two DMA engines: two may overlap, not three.
  Problem p;
  ResourceId dma = p.addResource("dma", 2);
  OpId a = p.addOperation("a", dma, 10);
  OpId b = p.addOperation("b", dma, 10);
  OpId c = p.addOperation("c", dma, 10);
  Schedule sched(3);
  sched.setStart(a, 0);
  sched.setStart(b, 5);
  sched.setStart(c, 10); // a releases at 10: [0,10) and [10,20) do not meet
  EXPECT_EQ(verifyMessage(p, sched), "<valid>");
  sched.setStart(c, 9);
  EXPECT_EQ(verifyMessage(p, sched),
            "resource 'dma' has 2 units, but at time 9 3 operations occupy "
            "it: 'a' (#0), 'b' (#1), 'c' (#2)");
  // The relaxed contract ignores capacity.
  EXPECT_TRUE(static_cast<bool>(p.verifyPrecedence(sched)));
}

TEST(SchedulingVerify, PipelinedOccupancyFreesTheUnitEarly) {
  // Latency 10, occupancy 4: a second matmul may start at 4, not at 3.
  Problem p;
  ResourceId mxu = p.addResource("mxu", 1);
  OpId a = p.addPipelinedOperation("a", mxu, 10, 4);
  OpId b = p.addPipelinedOperation("b", mxu, 10, 4);
  Schedule sched(2);
  sched.setStart(a, 0);
  sched.setStart(b, 4);
  llvm::Expected<Time> makespan = p.verify(sched);
  ASSERT_TRUE(static_cast<bool>(makespan)) << toString(makespan.takeError());
  EXPECT_EQ(*makespan, 14);
  sched.setStart(b, 3);
  EXPECT_EQ(verifyMessage(p, sched),
            "resource 'mxu' has 1 units, but at time 3 2 operations occupy "
            "it: 'a' (#0), 'b' (#1)");
}

TEST(SchedulingVerify, RejectsOverflowingStart) {
  SmallProblem s;
  Schedule sched(3);
  sched.setStart(s.load, std::numeric_limits<Time>::max() - 5);
  sched.setStart(s.matmul, 10);
  sched.setStart(s.store, 35);
  EXPECT_EQ(verifyMessage(s.p, sched),
            "operation 'load' (#0): end time overflows");
}

} // namespace
