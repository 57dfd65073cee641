//===- Split.h - one model cut over a system of chips -----------*- C++ -*-===//
//
// A split cuts a model over the chips of a system: data parallelism (dp
// replicas, each with batch/dp sequences), tensor parallelism (tp chips share
// each layer: heads, FFN columns, vocabulary, Megatron style), expert
// parallelism (ep chips share the routed experts, attention data-parallel as
// DeepSeek-V3 is served), context parallelism (cp chips share each prompt
// of a prefill, ring attention) and pipeline parallelism (pp stages of
// consecutive layers, the replica's batch cut in micro-batches). dp x tp x cp
// x pp is the chip count; ep divides dp x tp x cp.
// shardModel() gives the config one chip compiles; groups are laid on the
// system's axes innermost first (tp, then ep), so the most frequent
// collectives get the fastest links. docs/parallelism.md.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_PARALLEL_SPLIT_H
#define NPU_PARALLEL_SPLIT_H

#include "npu/Import/HFConfig.h"
#include "npu/Target/System.h"

namespace mlir::npu::parallel {

struct Split {
  int64_t dp = 1, tp = 1, ep = 1, pp = 1;
  /// Context parallelism (prefill): cp chips share each sequence, T/cp
  /// tokens each, the K/V passed round a ring (ring attention).
  int64_t cp = 1;
  int64_t chips() const { return dp * tp * cp * pp; }
  /// "dp=8,tp=1,ep=8,pp=1" (",cp=4" appended where cp > 1).
  std::string str() const;
};

/// Parses "dp=2,tp=4,ep=1,pp=2,cp=1" (keys in any order, each at most
/// once, missing ones 1).
llvm::Expected<Split> parseSplit(llvm::StringRef text);

/// What one chip compiles under a split.
struct ChipModel {
  ModelConfig config;
  /// One micro-batch of the chip's replica (the whole replica without
  /// pipeline stages).
  ImportOptions options;
  /// Micro-batches of the replica's step: 1 without pipeline stages; with
  /// pp stages, one sequence each in a prefill, and up to pp in a decode
  /// (enough to keep every stage busy).
  int64_t microBatches = 1;
};

/// The model one chip compiles under `split`, for `global` options whose
/// batch is the whole system's. With pp stages the chip runs the last stage
/// (ceil(L/pp) layers, the dense ones only where the stage reaches back to
/// them, and the head): the slowest. It takes the residual stream from the
/// stage before it (ImportOptions::fromHidden: no embedding table). Fails,
/// naming what does not divide, when the split does not fit the model or
/// the chips.
llvm::Expected<ChipModel> shardModel(const ModelConfig &config,
                                     const ImportOptions &global,
                                     const Split &split, int64_t chips);

/// The group of `chips` chips taken from the system's innermost axes, as a
/// system of its own: whole axes first (keeping their wraparound), then a
/// part of the next one (a line on a torus, a smaller domain on a switch).
/// With `outermost`, taken from the outermost axes instead (pipeline stages
/// live there: they cross a boundary once per micro-batch).
llvm::Expected<target::System>
innerGroup(const target::System &system, int64_t chips, bool outermost = false);

} // namespace mlir::npu::parallel

#endif // NPU_PARALLEL_SPLIT_H
