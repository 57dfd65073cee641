//===- GpuDispatchTest.cpp - waves, tails and run-time block dispatch -----===//

#include "npu/GpuModel/Dispatch.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace mlir::npu::gpumodel;

namespace {

DispatchResult simulate(llvm::ArrayRef<double> times, uint32_t sms,
                        uint32_t perSM, bool record = false) {
  return llvm::cantFail(simulateDispatch(times, sms, perSM, record));
}

std::string errorOf(llvm::Expected<DispatchResult> r) {
  if (r)
    return "<no error>";
  return llvm::toString(r.takeError());
}

TEST(GpuDispatch, WaveArithmetic) {
  // H100, a 4096 x 4096 GEMM in 128 x 256 tiles: 32 * 16 = 512 blocks, one
  // per SM: waves = ceil(512 / 132) = 4, the last holds 512 - 3 * 132 = 116.
  WaveShape s = waveShape(512, 132, 1);
  EXPECT_EQ(s.slots, 132u);
  EXPECT_EQ(s.waves, 4u);
  EXPECT_EQ(s.lastWaveBlocks, 116u);
  EXPECT_DOUBLE_EQ(s.tailFill, 116.0 / 132.0);
  EXPECT_DOUBLE_EQ(s.efficiency, 512.0 / 528.0);
  // One block more than a full wave: a second wave of one block.
  s = waveShape(133, 132, 1);
  EXPECT_EQ(s.waves, 2u);
  EXPECT_DOUBLE_EQ(s.tailFill, 1.0 / 132.0);
  // Two blocks per SM double the slots: 264 blocks are one full wave.
  s = waveShape(264, 132, 2);
  EXPECT_EQ(s.waves, 1u);
  EXPECT_DOUBLE_EQ(s.tailFill, 1.0);
  EXPECT_EQ(waveShape(0, 132, 2).waves, 0u);
}

TEST(GpuDispatch, UniformBlocksMatchTheClosedForm) {
  const double t = 3.5e-6;
  for (uint32_t sms : {1u, 4u, 7u, 132u})
    for (uint32_t perSM : {1u, 2u, 3u})
      for (uint64_t n : {1ull, 5ull, 131ull, 132ull, 133ull, 1000ull}) {
        SCOPED_TRACE(testing::Message() << n << " blocks on " << sms << " x "
                                        << perSM << " slots");
        std::vector<double> times(n, t);
        DispatchResult sim = simulate(times, sms, perSM);
        DispatchResult closed =
            llvm::cantFail(uniformDispatch(n, t, sms, perSM));
        uint64_t waves = (n + sms * perSM - 1) / (sms * perSM);
        EXPECT_EQ(sim.shape.waves, waves);
        EXPECT_EQ(closed.shape.waves, waves);
        // The simulation adds t wave by wave; the closed form multiplies.
        EXPECT_NEAR(sim.makespan, double(waves) * t, 1e-9 * t);
        EXPECT_NEAR(closed.makespan, double(waves) * t, 1e-9 * t);
        EXPECT_NEAR(sim.slotUtilization(), sim.shape.efficiency, 1e-9);
        ASSERT_EQ(sim.smBusy.size(), closed.smBusy.size());
        for (uint32_t sm = 0; sm < sms; ++sm)
          EXPECT_NEAR(sim.smBusy[sm], closed.smBusy[sm], 1e-9 * t)
              << "SM " << sm;
      }
}

TEST(GpuDispatch, NonUniformBlocksByHand) {
  // 2 SMs, 1 slot each, blocks of time 3, 1, 1, 1, 2 in launch order:
  //   t=0: b0 -> SM0 [0,3), b1 -> SM1 [0,1)
  //   t=1: b2 -> SM1 [1,2);  t=2: b3 -> SM1 [2,3)
  //   t=3: both free; the tie goes to SM0: b4 -> SM0 [3,5)
  DispatchResult r = simulate({3, 1, 1, 1, 2}, 2, 1, /*record=*/true);
  EXPECT_DOUBLE_EQ(r.makespan, 5);
  EXPECT_EQ(r.shape.waves, 3u); // ceil(5 / 2), the launch-order count
  ASSERT_EQ(r.blocks.size(), 5u);
  uint32_t sms[] = {0, 1, 1, 1, 0};
  double starts[] = {0, 0, 1, 2, 3};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(r.blocks[i].sm, sms[i]) << "block " << i;
    EXPECT_DOUBLE_EQ(r.blocks[i].start, starts[i]) << "block " << i;
  }
  EXPECT_DOUBLE_EQ(r.smBusy[0], 5);
  EXPECT_DOUBLE_EQ(r.smBusy[1], 3);
  EXPECT_DOUBLE_EQ(r.slotUtilization(), 8.0 / 10.0);
  // Uniform blocks of the mean time 1.6 would take ceil(5/2) * 1.6 = 4.8.
}

TEST(GpuDispatch, ConcurrentBlocksOnOneSmCountOnceInItsBusyTime) {
  // 1 SM with 2 slots, blocks 4, 1, 1: b0 slot 0 [0,4), b1 slot 1 [0,1),
  // b2 slot 1 [1,2). The SM is busy [0,4), not 4 + 1 + 1.
  DispatchResult r = simulate({4, 1, 1}, 1, 2, /*record=*/true);
  EXPECT_DOUBLE_EQ(r.makespan, 4);
  EXPECT_DOUBLE_EQ(r.smBusy[0], 4);
  EXPECT_DOUBLE_EQ(r.blockTimeSum, 6);
  EXPECT_EQ(r.blocks[2].slot, 1u);
  EXPECT_DOUBLE_EQ(r.blocks[2].start, 1);
}

TEST(GpuDispatch, PartialWaveSpreadsOverSmsFirst) {
  // 3 blocks on 2 SMs x 2 slots: SM0, SM1, then SM0's second slot.
  DispatchResult r = simulate({1, 1, 1}, 2, 2, /*record=*/true);
  EXPECT_EQ(r.blocks[0].sm, 0u);
  EXPECT_EQ(r.blocks[1].sm, 1u);
  EXPECT_EQ(r.blocks[2].sm, 0u);
  EXPECT_EQ(r.blocks[2].slot, 1u);
  EXPECT_DOUBLE_EQ(r.makespan, 1);
  EXPECT_DOUBLE_EQ(r.shape.tailFill, 3.0 / 4.0);
}

TEST(GpuDispatch, EmptyLaunch) {
  DispatchResult r = simulate({}, 4, 2);
  EXPECT_EQ(r.makespan, 0);
  EXPECT_EQ(r.shape.waves, 0u);
  EXPECT_EQ(r.slotUtilization(), 0);
  EXPECT_EQ(llvm::cantFail(uniformDispatch(0, 1.0, 4, 2)).makespan, 0);
}

TEST(GpuDispatch, InvalidLaunches) {
  EXPECT_EQ(errorOf(simulateDispatch({1.0}, 0, 1)), "dispatch: no SM");
  EXPECT_EQ(errorOf(uniformDispatch(8, 1.0, 4, 0)),
            "dispatch: 0 blocks per SM: the block does not fit on an SM");
  EXPECT_EQ(errorOf(simulateDispatch({1.0, -2.0}, 4, 1)),
            "dispatch: block 1 has time -2");
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(errorOf(simulateDispatch({nan}, 4, 1)), "<no error>");
  EXPECT_NE(errorOf(uniformDispatch(1, nan, 4, 1)), "<no error>");
}

} // namespace
