//===- Dispatch.h - run-time thread-block dispatch over SMs -----*- C++ -*-===//
//
// The hardware block scheduler, modelled: a launch of n blocks runs on
// numSMs * blocksPerSM slots (blocksPerSM from the occupancy calculation).
// Blocks are handed out in launch order, each to the slot that frees up
// first; so the first wave fills every slot and later blocks follow as
// earlier ones finish. A block's time is its time while sharing its SM with
// the other resident blocks (the caller derives it from the SM's rates at
// that occupancy); times may differ from block to block.
//
// Placement of ties (NVIDIA does not document its scheduler): slots that are
// free at the same time are taken breadth-first across SMs, slot k of SM s
// before slot k of SM s+1 before slot k+1 of SM 0, which spreads a partial
// wave over as many SMs as possible.
//
// Closed forms for uniform blocks of time t (checked against the event
// simulation in the unit tests):
//   slots = numSMs * blocksPerSM,  waves = ceil(n / slots),
//   makespan = waves * t,  tail fill = (n - (waves - 1) * slots) / slots.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_GPUMODEL_DISPATCH_H
#define NPU_GPUMODEL_DISPATCH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace mlir::npu::gpumodel {

/// How n blocks divide into waves of `slots` concurrent blocks.
struct WaveShape {
  uint64_t slots = 0;
  /// ceil(n / slots); 0 for an empty launch.
  uint64_t waves = 0;
  /// Blocks in the last wave: n - (waves - 1) * slots, in [1, slots].
  uint64_t lastWaveBlocks = 0;
  /// lastWaveBlocks / slots: 1 for a full last wave, small for a bad tail.
  double tailFill = 0;
  /// n / (waves * slots): the fraction of slot time used when all blocks
  /// take the same time.
  double efficiency = 0;
};

WaveShape waveShape(uint64_t numBlocks, uint64_t numSMs, uint64_t blocksPerSM);

/// Where and when one block ran.
struct BlockRun {
  uint32_t sm = 0;
  /// The slot on that SM, in [0, blocksPerSM).
  uint32_t slot = 0;
  double start = 0, end = 0;
};

struct DispatchResult {
  WaveShape shape;
  /// Time from the launch until the last block ends.
  double makespan = 0;
  /// Sum of all block times.
  double blockTimeSum = 0;
  /// Per SM: the time at least one block is resident on it.
  std::vector<double> smBusy;
  /// Per block, in launch order (empty unless asked for).
  std::vector<BlockRun> blocks;

  /// blockTimeSum / (slots * makespan): the share of slot time doing work;
  /// for uniform blocks this is shape.efficiency.
  double slotUtilization() const;
};

/// The event simulation: a min-heap of slot free times, O(n log slots).
/// Fails for no SM, no slot per SM (a block that does not fit), or a block
/// time that is negative or not finite.
llvm::Expected<DispatchResult> simulateDispatch(llvm::ArrayRef<double> times,
                                                uint32_t numSMs,
                                                uint32_t blocksPerSM,
                                                bool recordBlocks = false);

/// The closed form for n blocks of time t each: what simulateDispatch returns
/// for that launch, in O(numSMs), with no per-block record.
llvm::Expected<DispatchResult> uniformDispatch(uint64_t numBlocks,
                                               double blockTime,
                                               uint32_t numSMs,
                                               uint32_t blocksPerSM);

} // namespace mlir::npu::gpumodel

#endif // NPU_GPUMODEL_DISPATCH_H
