//===- MultiChip.h - one step of a model on a system, both sides -*- C++
//-*-===//
//
// npu-compare --systems=<tpu system>,<gpu system> --split=<split|auto>:
// each side compiles the model one chip runs under a split (Split.h) with
// its own backend pipeline, adds the collectives the split needs (priced by
// the collective model on the groups the split lays on the system's axes),
// and takes off what its way of deciding overlaps (docs/parallelism.md):
//
// Each collective is placed beside its kernel in every layer and the layer
// is scheduled (LayerSchedule.h); where the step splits in two (2 sequences,
// or a prefill's tokens in two chunks) both sides run two micro-batches, one's
// collectives beside the other's compute (the compiler's static schedule on
// the TPU-like side, DeepEP's two micro-batches on the GPU-like side):
//
//   TPU-like: every collective is asynchronous (XLA's async collectives);
//     with one micro-batch, each runs beside the kernel it is decomposed
//     with (collective matmul for the tensor-parallel all-reduces, a fused
//     expert-parallel MoE kernel for the dispatch and combine).
//   GPU-like: tensor-parallel all-reduces run on the stream between the
//     kernels (vLLM/SGLang's default): fully exposed; expert all-to-alls run
//     beside the other micro-batch's compute, and with one micro-batch the
//     MoE kernel waits for them. While they overlap, their kernels hold
//     `compute_units_per_collective` SMs (DeepEP's), so the compute beside
//     them runs on the rest: it takes 1/(1-f) as long, f the SMs' fraction.

// With --split=auto each side searches dp x tp x pp = chips (ep over a
// stage's chips where the model has routed experts) for the fastest
// feasible split (the chip's bill, every micro-batch's KV cache included,
// fits in its HBM), compiling the candidates on the context's threads.
// Pipeline stages: the chip runs the last stage; a prefill takes
// (m + pp - 1) micro-batch times, a decode step max(m, pp); stage-to-stage
// sends are copies beside the next micro-batch (no SM held).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_COMPARE_MULTICHIP_H
#define NPU_COMPARE_MULTICHIP_H

#include "npu/Compare/LayerSchedule.h"
#include "npu/Parallel/Collectives.h"
#include "npu/Parallel/Split.h"

namespace mlir::npu {

/// What a split's collective does: its kind, where it sits in a layer
/// (placeCollectives), how it overlaps.
enum class CollectiveRole {
  TpAllReduce,
  EpDispatch,
  EpCombine,
  CpRing,
  PpSend
};

/// One collective of a split, per step.
struct StepCollective {
  CollectiveRole role = CollectiveRole::TpAllReduce;
  /// "TP all-reduce", "EP dispatch", "EP combine", "CP ring", "PP send".
  StringRef what() const;
  parallel::CollectiveKind kind = parallel::CollectiveKind::AllReduce;
  int64_t chips = 0;   ///< the group
  std::string axes;    ///< where it lies, e.g. "gpu[4]" or "x,y"
  double bytes = 0;    ///< V of one occurrence
  int64_t perStep = 0; ///< occurrences
  /// One occurrence: each of the layer's micro-batches in flight sends its
  /// share of V (SplitStep::inFlight), microBatchSeconds each.
  double seconds = 0, microBatchSeconds = 0;
  double stepSeconds() const { return seconds * double(perStep); }
  /// Runs beside compute where the schedule lets it (false: on the
  /// compute stream, between kernels).
  bool overlapped = false;
  /// Fraction of the chip's cores its kernel occupies while it runs.
  double coreFraction = 0;
  /// Of stepSeconds(), the part the schedule leaves on the critical path.
  double exposedSeconds = 0;
  /// Its trace track: "EP group, 16 chips (x,y)".
  std::string track() const;
};

/// One collective beside one kernel of one layer function (LayerSchedule.h).
struct KernelComm {
  std::string function; ///< the layer function
  std::string kernel;   ///< the kernel it is placed beside, e.g. "moe_ffn"
  double kernelNs = 0;  ///< that kernel's time, one run of one micro-batch
  std::string what;     ///< the collective
  double ns = 0;        ///< one occurrence, every micro-batch in flight's share
  double exposedNs = 0, overlappedNs = 0;
  int64_t perStep = 0; ///< occurrences per step
};

/// One side, one split.
struct SplitStep {
  parallel::Split split;
  std::string infeasible; ///< why not, or empty
  /// The chip's step on its backend: its stage's micro-batches, with the
  /// pipeline's fill and drain.
  double computeSeconds = 0;
  double bubbleSeconds = 0; ///< the part of computeSeconds a stage waits
  /// The part of computeSeconds in the chip's attention kernels.
  double attentionSeconds = 0;
  std::vector<StepCollective> collectives;
  /// Micro-batches one layer runs at once: 2 where the step splits in two
  /// (one's collectives beside the other's compute), else 1.
  int inFlight = 1;
  /// The layer functions, their schedules (parallel to layers.layers) and
  /// the collectives beside each kernel.
  ModelLayers layers;
  std::vector<LayerSchedule> schedules;
  std::vector<KernelComm> perKernel;
  double commSeconds = 0;    ///< every collective, in full
  double exposedSeconds = 0; ///< what stays on the critical path
  /// Compute slowed by the cores an overlapped collective occupies (SMs
  /// running DeepEP's kernels; 0 where DMA engines move the data).
  double sharedCoresSeconds = 0;
  double stepSeconds() const {
    return computeSeconds + exposedSeconds + sharedCoresSeconds;
  }
  double tokensPerSecondPerChip = 0;
  /// The chip's bill under the split: its weights, KV cache and peak live
  /// activations, and their sum.
  int64_t parameterBytes = 0, kvCacheBytes = 0, activationBytes = 0;
  int64_t hbmNeededBytes = 0;
};

struct MultiChipSide {
  std::string systemName;
  int64_t chips = 0;
  int64_t batch = 0;        ///< sequences of the system's step
  int64_t globalTokens = 0; ///< tokens of the system's step
  std::string chip;
  std::vector<SplitStep> candidates; ///< in search order
  int best = -1;                     ///< index of the fastest feasible one
};

struct MultiChipComparison {
  MultiChipSide side[2];
};

/// Runs both sides. `split` is "auto" or a split for both sides. A side's
/// step has `global.batch` sequences, or `batchPerChip` x its chips when that
/// is not 0 (systems of different sizes at the same load per chip). Emits an
/// error at `loc` and fails on bad input or when no split is feasible.
FailureOr<MultiChipComparison>
compareMultiChip(MLIRContext *ctx, StringRef configPath,
                 const ImportOptions &global, int64_t batchPerChip,
                 StringRef tpuSystem, StringRef gpuSystem, StringRef split,
                 Location loc);

/// One side (the system's chip kind) under one split: the chip's model
/// imported, its bill checked against its HBM, compiled, and the split's
/// collectives added with that side's overlap (as compareMultiChip does for
/// each candidate). `global.batch` is the whole system's. Infeasible:
/// `infeasible` says why. `checkHbm` false skips the check of the bill
/// against the chip's HBM (the step is still priced).
SplitStep evaluateSplit(MLIRContext *ctx, const ModelConfig &config,
                        const ImportOptions &global,
                        const target::System &system,
                        const parallel::Split &split, bool checkHbm = true);

void printMultiChip(llvm::raw_ostream &os, const MultiChipComparison &cmp);
/// Writes `<dir>/systems-tpu-trace.json` and `systems-gpu-trace.json`: each
/// side's best split as a Chrome/Perfetto trace, one track for the chip's
/// compute and one per collective group (link), the layers in @model's
/// order, each as its steady-state schedule.
LogicalResult writeMultiChipTraces(const MultiChipComparison &cmp,
                                   StringRef dir, Location loc);
llvm::json::Value multiChipToJSON(const MultiChipComparison &cmp);

} // namespace mlir::npu

#endif // NPU_COMPARE_MULTICHIP_H
