//===- PipelinedLoop.h - Double-buffered tile loops in closed form -*- C++ -*-//
//
// The loop every TPU kernel runs after tiling: for each of N tiles, load the
// tile's inputs (DMA in), compute on them, store the result (DMA out), with B
// SRAM buffers per direction so that tile i+1's load and tile i-1's store
// overlap tile i's compute. The cost model prices a loop nest by the closed
// form below, never by scheduling every tile; buildTiledLoop() builds the
// same loop as a Problem so that unit tests can check the closed form
// against the list scheduler on small N.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SCHEDULING_PIPELINEDLOOP_H
#define NPU_SCHEDULING_PIPELINEDLOOP_H

#include "npu/Scheduling/Problem.h"

namespace mlir::npu::sched {

struct TiledLoop {
  /// Number of tiles N >= 0.
  int64_t numTiles;
  /// Per-tile latencies (>= 0) of the three stages, each on its own unit.
  Time dmaIn;
  Time compute;
  Time dmaOut;
  /// SRAM buffers per direction, B >= 1 (2: double buffering).
  int64_t numBuffers = 2;
};

/// The loop as a scheduling problem. Resources: "dma_in" x1 and "dma_out" x1
/// (loads and stores on separate DMA queues) and "compute" x1. Operations
/// in(i), compute(i), out(i) for i < N, non-pipelined. Dependences:
///   in(i) -> compute(i) -> out(i)          the tile's data flow;
///   compute(i) -> in(i+B)                  in(i+B) overwrites the input
///                                          buffer compute(i) reads;
///   out(i) -> compute(i+B)                 compute(i+B) overwrites the output
///                                          buffer out(i) reads.
struct TiledLoopProblem {
  Problem problem;
  std::vector<OpId> dmaIn, compute, dmaOut;
};
llvm::Expected<TiledLoopProblem> buildTiledLoop(const TiledLoop &loop);

/// Steady-state time per tile (the initiation interval) P:
///   B >= 2: P = max(dmaIn, compute, dmaOut): the busiest unit;
///   B == 1: P = compute + max(dmaIn, dmaOut): a tile's load must wait for
///           the previous compute, and its compute for the previous store.
llvm::Expected<Time> tiledLoopPeriod(const TiledLoop &loop);

/// Makespan of the loop in O(1):
///   N == 0: 0;
///   N >= 1: dmaIn + compute + dmaOut + (N - 1) * P
///         = fill + N * P + drain, where fill + drain = dmaIn + compute +
///           dmaOut - P are the stages other than the bottleneck.
/// Equal to the list scheduler's makespan on buildTiledLoop(loop) (the unit
/// tests check it). Fails on invalid parameters or if the result overflows.
llvm::Expected<Time> tiledLoopMakespan(const TiledLoop &loop);

} // namespace mlir::npu::sched

#endif // NPU_SCHEDULING_PIPELINEDLOOP_H
