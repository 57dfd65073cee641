//===- Dispatch.cpp - run-time thread-block dispatch over SMs -------------===//

#include "npu/GpuModel/Dispatch.h"

#include "llvm/ADT/Twine.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <queue>
#include <string>
#include <utility>

using namespace mlir::npu::gpumodel;

static llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "dispatch: " + msg);
}

/// %g: "-2", "nan", "1.5e-06".
static std::string str(double x) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%g", x);
  return buf;
}

static llvm::Error checkMachine(uint32_t numSMs, uint32_t blocksPerSM) {
  if (numSMs == 0)
    return fail("no SM");
  if (blocksPerSM == 0)
    return fail("0 blocks per SM: the block does not fit on an SM");
  return llvm::Error::success();
}

WaveShape mlir::npu::gpumodel::waveShape(uint64_t numBlocks, uint64_t numSMs,
                                         uint64_t blocksPerSM) {
  WaveShape s;
  s.slots = numSMs * blocksPerSM;
  if (s.slots == 0 || numBlocks == 0)
    return s;
  s.waves = (numBlocks + s.slots - 1) / s.slots;
  s.lastWaveBlocks = numBlocks - (s.waves - 1) * s.slots;
  s.tailFill = double(s.lastWaveBlocks) / double(s.slots);
  s.efficiency = double(numBlocks) / (double(s.waves) * double(s.slots));
  return s;
}

double DispatchResult::slotUtilization() const {
  if (makespan <= 0 || shape.slots == 0)
    return 0;
  return blockTimeSum / (double(shape.slots) * makespan);
}

llvm::Expected<DispatchResult>
mlir::npu::gpumodel::simulateDispatch(llvm::ArrayRef<double> times,
                                      uint32_t numSMs, uint32_t blocksPerSM,
                                      bool recordBlocks) {
  if (llvm::Error err = checkMachine(numSMs, blocksPerSM))
    return std::move(err);
  for (auto [i, t] : llvm::enumerate(times))
    if (!std::isfinite(t) || t < 0)
      return fail("block " + llvm::Twine(i) + " has time " + str(t));

  DispatchResult r;
  r.shape = waveShape(times.size(), numSMs, blocksPerSM);
  r.smBusy.assign(numSMs, 0.0);
  if (recordBlocks)
    r.blocks.reserve(times.size());

  // (free time, slot order); slot order k * numSMs + sm is the breadth-first
  // tie break. Pops come in non-decreasing time, so the blocks placed on one
  // SM start in non-decreasing time and its busy time (the union of its
  // blocks' intervals) grows incrementally past coveredUntil.
  using Slot = std::pair<double, uint64_t>;
  std::priority_queue<Slot, std::vector<Slot>, std::greater<Slot>> free;
  for (uint64_t order = 0; order < r.shape.slots; ++order)
    free.push({0.0, order});
  std::vector<double> coveredUntil(numSMs, 0.0);

  for (double t : times) {
    auto [start, order] = free.top();
    free.pop();
    uint32_t sm = order % numSMs;
    double end = start + t;
    free.push({end, order});
    r.blockTimeSum += t;
    r.makespan = std::max(r.makespan, end);
    double &covered = coveredUntil[sm];
    r.smBusy[sm] += std::max(0.0, end - std::max(start, covered));
    covered = std::max(covered, end);
    if (recordBlocks)
      r.blocks.push_back({sm, uint32_t(order / numSMs), start, end});
  }
  return r;
}

llvm::Expected<DispatchResult>
mlir::npu::gpumodel::uniformDispatch(uint64_t numBlocks, double blockTime,
                                     uint32_t numSMs, uint32_t blocksPerSM) {
  if (llvm::Error err = checkMachine(numSMs, blocksPerSM))
    return std::move(err);
  if (!std::isfinite(blockTime) || blockTime < 0)
    return fail("block time " + str(blockTime));

  DispatchResult r;
  r.shape = waveShape(numBlocks, numSMs, blocksPerSM);
  r.makespan = double(r.shape.waves) * blockTime;
  r.blockTimeSum = double(numBlocks) * blockTime;
  // Every SM holds a block in every full wave; the last wave's blocks take
  // slots in breadth-first order, so SM s holds one iff s < lastWaveBlocks.
  r.smBusy.assign(numSMs, 0.0);
  if (numBlocks == 0)
    return r;
  for (uint32_t sm = 0; sm < numSMs; ++sm) {
    uint64_t waves = r.shape.waves - (sm < r.shape.lastWaveBlocks ? 0 : 1);
    r.smBusy[sm] = double(waves) * blockTime;
  }
  return r;
}
