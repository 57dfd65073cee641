//===- LayerScheduleTest.cpp - collectives scheduled beside kernels -------===//
//
// scheduleLayer on layers small enough to schedule by hand (the timelines
// are written out in each test).
//
//===----------------------------------------------------------------------===//

#include "npu/Compare/LayerSchedule.h"

#include <gtest/gtest.h>

using namespace mlir::npu;

namespace {

std::vector<LayerKernel> kernels(std::initializer_list<double> ns) {
  std::vector<LayerKernel> k;
  for (double t : ns)
    k.push_back({KernelKind::Gemm, t});
  return k;
}

LayerCollective collective(double ns, int after, int anchor,
                           bool blocking = false) {
  return {"C", "link", ns, after, anchor, blocking};
}

// One micro-batch, no decomposition: kernel 1 waits for the collective after
// kernel 0. 10 + 5 (wait) + 20 + 30 = 65.
TEST(LayerScheduleTest, OneMicroBatchWaits) {
  LayerSchedule s =
      scheduleLayer(kernels({10, 20, 30}), {collective(5, 0, 0)}, 1, false);
  EXPECT_DOUBLE_EQ(s.computeNs, 60);
  EXPECT_DOUBLE_EQ(s.layerNs, 65);
  EXPECT_DOUBLE_EQ(s.exposedNs[0], 5);
  EXPECT_DOUBLE_EQ(s.overlappedNs[0], 0);
}

// Decomposed with kernel 1 (collective matmul): 25 beside 20 leaves 5
// exposed. 10 + max(20, 25) + 30 = 65, 20 hidden.
TEST(LayerScheduleTest, DecomposedBesideItsKernel) {
  LayerSchedule s =
      scheduleLayer(kernels({10, 20, 30}), {collective(25, 0, 1)}, 1, true);
  EXPECT_DOUBLE_EQ(s.layerNs, 65);
  EXPECT_DOUBLE_EQ(s.exposedNs[0], 5);
  EXPECT_DOUBLE_EQ(s.overlappedNs[0], 20);
  // Shorter than its kernel: all hidden.
  s = scheduleLayer(kernels({10, 20, 30}), {collective(15, 0, 1)}, 1, true);
  EXPECT_DOUBLE_EQ(s.layerNs, 60);
  EXPECT_DOUBLE_EQ(s.exposedNs[0], 0);
}

// On the compute stream: 10 + 7 + 20, all exposed, whatever the mode.
TEST(LayerScheduleTest, BlockingRunsOnTheStream) {
  for (bool decompose : {false, true}) {
    LayerSchedule s = scheduleLayer(kernels({10, 20}),
                                    {collective(7, 0, 0, true)}, 1, decompose);
    EXPECT_DOUBLE_EQ(s.layerNs, 37);
    EXPECT_DOUBLE_EQ(s.exposedNs[0], 7);
  }
}

// Two micro-batches, each with kernels of 5 and 10 (half of a 10 and a 20),
// a collective of 8 per micro-batch after kernel 0, on one link. The steady
// state (the second and later layers): A0 runs 0-5 and sends 5-13; B0 5-10, its
// send waits for the link, 13-21; A1 waits 10-13 for A's send, runs 13-23; B1
// 23-33 (B's send ended at 21). The layer takes 33: 30 of compute and 3
// exposed; of the 16 sent, 13 beside compute.
TEST(LayerScheduleTest, TwoMicroBatchesAlternate) {
  LayerSchedule s =
      scheduleLayer(kernels({5, 10}), {collective(8, 0, 0)}, 2, false);
  EXPECT_DOUBLE_EQ(s.layerNs, 33);
  EXPECT_DOUBLE_EQ(s.computeNs, 30);
  EXPECT_DOUBLE_EQ(s.exposedNs[0], 3);
  EXPECT_DOUBLE_EQ(s.overlappedNs[0], 13);
  // The timeline of the kept run: A0, A's send, B0, B's send, the wait, A1,
  // B1 (link events where they start).
  double compute = 0;
  for (const ScheduleEvent &e : s.events)
    if (e.track == "compute")
      compute += e.durNs;
  EXPECT_DOUBLE_EQ(compute, 33);
}

// A collective after the last kernel delays the next layer (steady state):
// one micro-batch, 10 then 4 after it: 14 per layer.
TEST(LayerScheduleTest, TrailingCollectiveDelaysTheNextLayer) {
  LayerSchedule s =
      scheduleLayer(kernels({10}), {collective(4, 0, 0)}, 1, false);
  EXPECT_DOUBLE_EQ(s.layerNs, 14);
  EXPECT_DOUBLE_EQ(s.exposedNs[0], 4);
}

// Ring attention's K/V run beside the attention on either side, even
// without decomposition: 10 + max(20, 25) = 35, 5 exposed, 20 hidden.
TEST(LayerScheduleTest, BesideItsKernelOnBothSides) {
  LayerCollective ring = collective(25, 0, 1);
  ring.beside = true;
  for (bool decompose : {false, true}) {
    LayerSchedule s = scheduleLayer(kernels({10, 20}), {ring}, 1, decompose);
    EXPECT_DOUBLE_EQ(s.layerNs, 35);
    EXPECT_DOUBLE_EQ(s.exposedNs[0], 5);
    EXPECT_DOUBLE_EQ(s.overlappedNs[0], 20);
  }
  // Two micro-batches (kernels of 5 and 10 each), each sending 25 beside
  // its 10 of attention: each waits 15 (the link is free again when the
  // next starts): 5 + 10 + 15 + 5 + 10 + 15 = 60 per layer, 30 exposed.
  LayerSchedule s = scheduleLayer(kernels({5, 10}), {ring}, 2, false);
  EXPECT_DOUBLE_EQ(s.layerNs, 60);
  EXPECT_DOUBLE_EQ(s.exposedNs[0], 30);
  EXPECT_DOUBLE_EQ(s.overlappedNs[0], 20);
}

} // namespace
