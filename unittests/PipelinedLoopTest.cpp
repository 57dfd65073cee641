//===- PipelinedLoopTest.cpp - Double buffering: closed form vs schedule --===//
//
// The cost model prices tile loops with tiledLoopMakespan() (O(1)); these
// tests pin it to hand-computed values and to the list scheduler's makespan
// on the same loop built tile by tile.
//
//===----------------------------------------------------------------------===//

#include "npu/Scheduling/PipelinedLoop.h"
#include "npu/Scheduling/Algorithms.h"

#include "gtest/gtest.h"

#include <limits>

using namespace mlir::npu::sched;

namespace {

Time closedForm(const TiledLoop &loop) {
  llvm::Expected<Time> t = tiledLoopMakespan(loop);
  if (!t) {
    ADD_FAILURE() << llvm::toString(t.takeError());
    return -1;
  }
  return *t;
}

/// The list scheduler's (verified) makespan on the loop built tile by tile.
Time scheduled(const TiledLoop &loop) {
  llvm::Expected<TiledLoopProblem> built = buildTiledLoop(loop);
  if (!built) {
    ADD_FAILURE() << llvm::toString(built.takeError());
    return -1;
  }
  llvm::Expected<Schedule> sched = scheduleList(built->problem);
  if (!sched) {
    ADD_FAILURE() << llvm::toString(sched.takeError());
    return -1;
  }
  llvm::Expected<Time> makespan = built->problem.verify(*sched);
  if (!makespan) {
    ADD_FAILURE() << llvm::toString(makespan.takeError());
    return -1;
  }
  return *makespan;
}

TEST(PipelinedLoop, HandComputedRegimes) {
  // Compute-bound, 4 tiles, in 3, compute 5, out 2: fill 3 (first load),
  // 4 x 5 of compute back to back, drain 2 (last store) = 25.
  TiledLoop computeBound{4, 3, 5, 2};
  EXPECT_EQ(closedForm(computeBound), 3 + 4 * 5 + 2);
  EXPECT_EQ(scheduled(computeBound), 25);
  // Load-bound, 5 tiles, in 8, compute 3, out 4: loads back to back (5 x 8),
  // then the last tile's compute and store: 40 + 3 + 4 = 47.
  TiledLoop loadBound{5, 8, 3, 4};
  EXPECT_EQ(closedForm(loadBound), 47);
  EXPECT_EQ(scheduled(loadBound), 47);
  // Store-bound, 3 tiles, in 1, compute 2, out 6: 1 + 2 + 3 x 6 = 21.
  TiledLoop storeBound{3, 1, 2, 6};
  EXPECT_EQ(closedForm(storeBound), 21);
  EXPECT_EQ(scheduled(storeBound), 21);
}

TEST(PipelinedLoop, DoubleBufferingHidesTheDma) {
  // The same compute-bound loop with one buffer per direction: every load
  // waits for the previous compute and every compute for the previous store,
  // so the period is 5 + max(3, 2) = 8 instead of 5: 3 + 5 + 2 + 3 x 8 = 34.
  TiledLoop single{4, 3, 5, 2, /*numBuffers=*/1};
  EXPECT_EQ(*tiledLoopPeriod(single), 8);
  EXPECT_EQ(closedForm(single), 34);
  EXPECT_EQ(scheduled(single), 34);
  // A third buffer gains nothing once the busiest unit never waits.
  TiledLoop triple{4, 3, 5, 2, /*numBuffers=*/3};
  EXPECT_EQ(*tiledLoopPeriod(triple), 5);
  EXPECT_EQ(scheduled(triple), 25);
}

TEST(PipelinedLoop, ClosedFormMatchesListSchedulerOnSmallLoops) {
  for (int64_t buffers : {1, 2, 3})
    for (int64_t tiles = 0; tiles <= 6; ++tiles)
      for (Time in : {0, 1, 4, 7})
        for (Time compute : {0, 2, 4, 9})
          for (Time out : {0, 3, 4, 8}) {
            TiledLoop loop{tiles, in, compute, out, buffers};
            EXPECT_EQ(closedForm(loop), scheduled(loop))
                << "N=" << tiles << " in=" << in << " compute=" << compute
                << " out=" << out << " B=" << buffers;
          }
}

TEST(PipelinedLoop, LargeTripCountsInConstantTime) {
  // A million tiles of a 1 us load-bound step in picoseconds: the closed form
  // does not walk the tiles. 1e6 x 1e6 + 2e5 + 1e5 ps.
  TiledLoop big{1'000'000, 1'000'000, 200'000, 100'000};
  EXPECT_EQ(closedForm(big), 1'000'000'300'000);
}

TEST(PipelinedLoop, RejectsInvalidLoops) {
  auto message = [](const TiledLoop &loop) {
    llvm::Expected<Time> t = tiledLoopMakespan(loop);
    return t ? std::string("<valid>") : llvm::toString(t.takeError());
  };
  EXPECT_EQ(message({-1, 1, 1, 1}), "tiled loop: -1 tiles");
  EXPECT_EQ(message({2, 1, 1, 1, 0}),
            "tiled loop: 0 buffers per direction; at least 1 is required");
  EXPECT_EQ(message({2, 1, -3, 1}),
            "tiled loop: negative stage latency (in 1, compute -3, out 1)");
  Time huge = std::numeric_limits<Time>::max() / 2;
  EXPECT_EQ(message({3, huge, 1, 1}), "tiled loop: makespan overflows");
}

} // namespace
