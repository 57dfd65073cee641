//===- Collectives.h - the time of a collective on a system -----*- C++ -*-===//
//
// Prices one collective over some axes of a system (System.h) as the sum of
// a bandwidth term and a latency term per phase; docs/collectives.md derives
// every formula. Sizes follow nccl-tests' conventions, so a bus bandwidth can
// be set beside a published one:
//
//   all_reduce      V = the buffer each chip holds (in and out)
//   all_gather      V = the gathered output (each chip contributes V/p)
//   reduce_scatter  V = each chip's input (each keeps V/p)
//   all_to_all      V = what each chip sends in all (V/p to each chip)
//   send_recv       V = what each chip sends to its neighbour on one axis
//
//===----------------------------------------------------------------------===//

#ifndef NPU_PARALLEL_COLLECTIVES_H
#define NPU_PARALLEL_COLLECTIVES_H

#include "npu/Target/System.h"

namespace mlir::npu::parallel {

enum class CollectiveKind {
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  SendRecv
};

llvm::StringRef stringifyCollectiveKind(CollectiveKind kind);
/// "all_reduce" or "all-reduce", ...
std::optional<CollectiveKind> symbolizeCollectiveKind(llvm::StringRef name);

/// One phase: one algorithm on one network level.
struct CollectivePhase {
  std::string what;      ///< e.g. "reduce_scatter", "all_gather".
  std::string axes;      ///< e.g. "x,y,z".
  std::string algorithm; ///< e.g. "bidirectional rings, 3 axis orders".
  double bytes = 0;      ///< V of this phase, by the conventions above.
  int64_t chips = 0;     ///< chips taking part in one group.
  /// The busiest link's bytes, one direction.
  double linkBytes = 0;
  double bandwidthSeconds = 0;
  /// The same bytes at the links' quoted (line) rate: the roofline.
  double lineRateSeconds = 0;
  int64_t steps = 0; ///< latency-bound steps (hops or switch round trips).
  double latencySeconds = 0;
  /// The network level it runs on: "scale_up" or "scale_out".
  std::string level;
  double seconds() const { return bandwidthSeconds + latencySeconds; }
};

struct CollectiveCost {
  CollectiveKind kind = CollectiveKind::AllReduce;
  double bytes = 0;
  int64_t chips = 0; ///< chips in one group (product of the axes' sizes).
  std::vector<CollectivePhase> phases;
  /// The fixed cost of starting the collective, once (the largest of the
  /// levels' base_latency_ns).
  double baseLatencySeconds = 0;
  /// Phases on one level share its links and run one after another; the
  /// levels' links are disjoint and a collective is pipelined in chunks, so
  /// the levels overlap: the busiest level's summed bandwidth time.
  double bandwidthSeconds = 0;
  /// As bandwidthSeconds, at the quoted link rates and without latency: the
  /// collective's roofline.
  double lineRateSeconds = 0;
  /// The phases' latencies (a chunk still crosses every phase) plus the base.
  double latencySeconds = 0;
  double seconds = 0; ///< bandwidthSeconds + latencySeconds.

  /// nccl-tests' algbw = bytes / time.
  double algorithmBytesPerS() const { return bytes / seconds; }
  /// nccl-tests' busbw: algbw x 2(p-1)/p for all_reduce, x (p-1)/p for
  /// all_gather, reduce_scatter and all_to_all, x 1 for send_recv.
  double busBytesPerS() const;
};

/// An all_reduce algorithm on a switch: the fastest one, or one forced (as
/// NCCL_ALGO does), to compare with a measurement of that algorithm.
enum class SwitchAlgorithm { Fastest, Ring, Tree, InSwitch };

/// "ring", "tree", "in_switch" (or "fastest").
std::optional<SwitchAlgorithm> symbolizeSwitchAlgorithm(llvm::StringRef name);

/// Prices `kind` over the axes named in `axes` (all of the system's when
/// empty) for `bytes` bytes. Fails (naming the problem) on an unknown or
/// repeated axis, a send_recv over several axes, a size that is not a
/// positive finite number, or a forced algorithm the level cannot run.
/// `scaleOutBytes` (an all_to_all over both levels, when positive): what
/// the scale-out level moves instead of V, a MoE dispatch sent once per
/// node and forwarded inside it (DeepEP's internode kernels).
llvm::Expected<CollectiveCost>
priceCollective(const target::System &system, CollectiveKind kind,
                llvm::ArrayRef<std::string> axes, double bytes,
                SwitchAlgorithm algorithm = SwitchAlgorithm::Fastest,
                double scaleOutBytes = 0);

llvm::json::Value toJSON(const CollectiveCost &cost);

} // namespace mlir::npu::parallel

#endif // NPU_PARALLEL_COLLECTIVES_H
