//===- CompiledTable.h - a cost table from the backends ---------*- C++ -*-===//
//
// Fills a CostTable by importing a model at each shape the table needs and
// compiling it with one side's backend pipeline (the same pipelines as
// npu-opt and npu-compare): each point is the program's @model time and the
// part of it in attention kernels (kernel kind attention or mla_absorbed,
// times the runs of their function). The memory fields come from the
// model's bill: the weights, the KV cache per token, and the activation
// workspace of the largest prefill point. Shapes compile in parallel, each
// once.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SERVE_COMPILEDTABLE_H
#define NPU_SERVE_COMPILEDTABLE_H

#include "npu/Compare/Compare.h"
#include "npu/Import/HFConfig.h"
#include "npu/Parallel/Split.h"
#include "npu/Serve/CostTable.h"
#include "npu/Serve/Engine.h"

#include <vector>

namespace mlir::npu::serve {

/// The shapes to compile: prefill lengths (batch 1) and a decode grid.
struct TableShapes {
  std::vector<int64_t> prefillLengths;
  std::vector<int64_t> decodeBatches, decodeLengths;
};

/// Powers of two from `from` up to the first one >= `to`.
std::vector<int64_t> powersOfTwo(int64_t from, int64_t to);

/// The step sizes a continuous table compiles: the powers of two up to
/// the first one >= `to`, with 3 x 2^(k-1) between them from 64 on (the
/// kernels' tiles and waves step there, and linear interpolation over a
/// doubling misses them by up to ~14%: docs/serving.md).
std::vector<int64_t> stepGrid(int64_t to);

/// The continuous engine's grid: prefill (step) lengths stepGrid(budget),
/// decode batches the powers of two up to `maxSeqs`, decode lengths the
/// powers of two from 256 up to `maxContext`.
TableShapes continuousShapes(int64_t budget, int64_t maxSeqs,
                             int64_t maxContext);

/// The static engine's programs: its buckets, or with `candidates` every
/// step-grid length from 64 prompt tokens and 512 context tokens up to its
/// largest buckets (for designBuckets). With ragged attention the decode
/// lengths reach down to 64 tokens, since that attention is priced at the
/// slots' mean context, short when few slots are busy (a price below the
/// table's first point would be the first point's). Decode batches are left
/// to the caller (the slots).
TableShapes staticShapes(const StaticPolicy &policy, bool candidates);

/// The most slots, a power of two up to 256, whose KV cache at `longest`
/// tokens each fits what `utilization` of the table's HBM leaves; at
/// least 1.
int64_t autoSlots(const CostTable &table, int64_t longest, double utilization);

/// A table without points: the chip's HBM and the model's memory (weights,
/// KV cache per token, and the activations of a prefill of
/// `largestPrefill` tokens, the largest step the table will price) from the
/// bill of `config` imported with the dtypes of `base` for `target` (a name
/// or path, of `side`'s kind); `model` names the model in the table. Emits
/// at `loc` and fails on a bad target or import.
FailureOr<CostTable> describeMemory(MLIRContext *ctx, const ModelConfig &config,
                                    StringRef model, const ImportOptions &base,
                                    CompareSide side, StringRef target,
                                    int64_t largestPrefill, Location loc);

/// Compiles every shape of `shapes` (lengths and batches ascending) for
/// the table's target and adds the points to `table`, then verifies it.
LogicalResult compilePoints(MLIRContext *ctx, const ModelConfig &config,
                            const ImportOptions &base, CompareSide side,
                            StringRef target, const TableShapes &shapes,
                            CostTable &table, Location loc);

/// A table for a group of chips serving as one instance: `system` under
/// `split`, which cuts every step across its chips (tensor and pipeline
/// parallel: dp = 1 and no expert split, since a table point of one
/// sequence cannot be cut by data; data-parallel replicas serve as separate
/// instances). Each point is the system's step as npu-compare --systems
/// prices it (evaluateSplit: the chip's program, the split's collectives
/// and what the chip's kind overlaps), its attention the chip's. The memory
/// fields are the whole system's: per-chip weights, activations and KV per
/// token (from the largest prefill point's bill) times the chips. The link
/// is one chip's. Fails, with the split's reason, on a shape that does not
/// fit.
FailureOr<CostTable>
compileSystemTable(MLIRContext *ctx, const ModelConfig &config, StringRef model,
                   const ImportOptions &base, const target::System &system,
                   const parallel::Split &split, const TableShapes &shapes,
                   Location loc);

/// Adds the drafter's points to `table` (a single chip's or, with
/// `system`, a system's under `split`): for each prefill length of the
/// table up to `maxSequences`, the prefill program compiled with DeepSeek's
/// MTP module minus the one without it, i.e. the module's cost on that many
/// tokens (one per decoding sequence in a step). Fails, naming the field,
/// when the config has no MTP module (num_nextn_predict_layers).
LogicalResult compileDraftPoints(MLIRContext *ctx, const ModelConfig &config,
                                 const ImportOptions &base, CompareSide side,
                                 StringRef target, const target::System *system,
                                 const parallel::Split *split,
                                 int64_t maxSequences, CostTable &table,
                                 Location loc);

/// One shape between the table's points, compiled, beside what the engine
/// of the table's kind prices for it from the table.
struct InterpolationCheck {
  bool prefill = true;
  int64_t batch = 1, length = 1;
  double compiledNs = 0, predictedNs = 0;
  double error() const { return predictedNs / compiledNs - 1; }
};

/// Compiles the midpoint between each two consecutive prefill lengths
/// (predicted: dense + chunk attention at that length) and of each cell of
/// the decode grid (`continuous`: decodeDense(B) + decode attention at B
/// sequences of the mean context; static, whose table has one batch: the
/// program of the next context bucket with its attention at the actual
/// context, as the ragged static engine prices it). docs/serving.md reports
/// these errors.
FailureOr<std::vector<InterpolationCheck>>
checkInterpolation(MLIRContext *ctx, const ModelConfig &config,
                   const ImportOptions &base, CompareSide side,
                   StringRef target, const CostTable &table, bool continuous,
                   Location loc);

} // namespace mlir::npu::serve

#endif // NPU_SERVE_COMPILEDTABLE_H
