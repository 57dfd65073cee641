//===- Split.h - one model cut over a system of chips -----------*- C++ -*-===//
//
// A split cuts a model over the chips of a system: data parallelism (dp
// replicas, each with batch/dp sequences), tensor parallelism (tp chips share
// each layer: heads, FFN columns, vocabulary, Megatron style) and expert
// parallelism (ep chips share the routed experts, attention data-parallel as
// DeepSeek-V3 is served). dp x tp is the chip count; ep divides it.
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
  int64_t dp = 1, tp = 1, ep = 1;
  int64_t chips() const { return dp * tp; }
  /// "dp=8,tp=1,ep=8".
  std::string str() const;
};

/// Parses "dp=2,tp=4,ep=1" (keys in any order, each at most once, missing
/// ones 1). "pp" is refused by name: pipeline stages are not modelled yet.
llvm::Expected<Split> parseSplit(llvm::StringRef text);

/// The config and options one chip compiles under `split`, for `global`
/// options whose batch is the whole system's. Fails, naming what does not
/// divide, when the split does not fit the model or the chips.
llvm::Error shardModel(const ModelConfig &config, const ImportOptions &global,
                       const Split &split, int64_t chips, ModelConfig &perChip,
                       ImportOptions &perChipOptions);

/// The group of `chips` chips taken from the system's innermost axes, as a
/// system of its own: whole axes first (keeping their wraparound), then a
/// part of the next one (a line on a torus, a smaller domain on a switch).
llvm::Expected<target::System> innerGroup(const target::System &system,
                                          int64_t chips);

} // namespace mlir::npu::parallel

#endif // NPU_PARALLEL_SPLIT_H
