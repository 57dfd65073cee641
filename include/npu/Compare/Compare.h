//===- Compare.h - one workload on both kinds of target ---------*- C++ -*-===//
//
// npu-compare's analysis: the same module compiled by buildTpuPipeline and
// by buildGpuPipeline, and the kernels of the two results matched to each
// other (docs/compare.md). Matching follows the graph ops: before the
// pipelines run, every op of every function body gets an id
// (`npu_compare.id`); the kernels of the two sides that share an op belong
// to the same row, so a row is one kernel on each side when both targets
// fused alike, and several kernels on one side when their fusion decisions
// differ. Calls are rows of their own, matched the same way.
//
// A kernel of the input may carry a hand-written tile decision for one side
// only: `npu_compare.tpu_tiling = #npu.tiling<...>` becomes its `npu.tiling`
// in the TPU-like compile (and `npu_compare.gpu_tiling` in the GPU-like
// one); a plain `npu.tiling` is kept by both pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_COMPARE_COMPARE_H
#define NPU_COMPARE_COMPARE_H

#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

namespace mlir::npu {

/// Which target of the pair.
enum class CompareSide { Tpu = 0, Gpu = 1 };

/// One top-level kernel or call of a function on one side.
struct CompareItem {
  std::string label; ///< "gemm(matmul)" or "call @layer"
  std::string tile;  ///< "1x32x64x128", "-" for a call
  bool isCall = false;
  CostAttr cost; ///< the kernel's npu.cost, or the callee's total
  double startNs = 0, endNs = 0; ///< its npu.slot
  /// Useful matrix FLOPs of the kernel's body (the work interface), so that
  /// padding = padded_flops - matrixFlops.
  int64_t matrixFlops = 0;
  /// Kernel launches on a GPU-like target (getGpuKernelLaunches; 0 on a
  /// TPU-like one and for calls).
  int64_t launches = 0;
};

/// The items of one side of a row and their sum.
struct CompareGroup {
  std::vector<CompareItem> items;
  CostAttr cost; ///< sum of the items (times added: they run in sequence)
  std::string label() const;    ///< labels joined with " + "
  std::string tiles() const;    ///< tiles joined with " + "
  int64_t paddingFlops() const; ///< sum of padded_flops - matrixFlops
  bool empty() const { return items.empty(); }
};

/// Matched kernels (or calls) of one function: what the TPU-like target
/// runs for these ops and what the GPU-like target runs for them.
struct CompareRow {
  std::string function;
  int64_t calls = 1; ///< executions of the function per run of the root
  CompareGroup side[2];
  /// Time difference TPU minus GPU of one execution, in ns (an empty side
  /// of an unmatched row counts as 0).
  double deltaNs() const;
  double weightedDeltaNs() const { return deltaNs() * double(calls); }
  bool isCall() const;
  bool isMatched() const { return !side[0].empty() && !side[1].empty(); }
  /// Decisions that differ, each "fusion", "tile", "padding".
  std::vector<std::string> differences() const;
};

struct CompareFunction {
  std::string name;
  int64_t calls = 1; ///< executions per run of the roots (roots: 1)
  bool isRoot = false;
  CostAttr total[2];            ///< the function's npu.cost on each side
  std::vector<CompareRow> rows; ///< in program order of the TPU side
};

struct Comparison {
  TargetAttr target[2];
  /// The two compiled modules (kept for traces and pictures).
  OwningOpRef<ModuleOp> module[2];
  std::vector<CompareFunction> functions;
  /// The functions nobody calls, in module order (normally just @model).
  std::vector<std::string> roots;
  /// The roots' totals summed (one root: its total).
  CostAttr total[2];
  std::string entry; ///< "model" if there is a @model, else the first root
  std::string fusion = "cost"; ///< the pipelines' fusion option
  /// How the GPU-like side launched its kernels (usesGraphLaunches on the
  /// compiled module: from a CUDA graph, or one by one on a stream) and
  /// what one launch cost.
  bool gpuGraphLaunches = false;
  double gpuLaunchNs = 0;
  /// Every kernel row of every function (calls excluded), sorted by
  /// |weightedDeltaNs| descending.
  std::vector<const CompareRow *> rankedKernelRows() const;
  /// The function named `entry`, or null.
  const CompareFunction *getEntry() const;
};

/// Loads target `name` and checks it is of `kind`; `flag` ("--tpu") names
/// the option in errors, which are emitted at `loc`.
FailureOr<TargetAttr> loadCompareTarget(MLIRContext *ctx, StringRef name,
                                        TargetKind kind, StringRef flag,
                                        Location loc);

/// Runs one side's backend pipeline (--npu-tpu-pipeline or
/// --npu-gpu-pipeline) on `module` in place.
LogicalResult runBackendPipeline(ModuleOp module, CompareSide side,
                                 StringRef target, StringRef fusion = "cost",
                                 StringRef gpuLaunch = "auto");

/// A compiled model's step: @model's npu.cost time and the part of it in
/// attention kernels (kind attention or mla_absorbed, each times the runs
/// of its function per @model), capped at the total (the schedule's
/// makespan may hide a little of a kernel under another).
struct ModelTime {
  /// The step (@model's time), and of it the attention kernels' and the
  /// MoE expert kernels' (moe_ffn) times.
  double totalNs = 0, attentionNs = 0, moeNs = 0;
  /// @model's totals: FLOPs, FLOPs with the matrix units' padding, HBM
  /// bytes read and written.
  double flops = 0, paddedFlops = 0, hbmBytes = 0;
};

/// Compiles `module` in place with `side`'s pipeline for `target` and
/// prices it. Emits at `loc` (prefixed by `tool`) and fails when a pipeline
/// fails or there is no @model with a cost.
FailureOr<ModelTime> compileModelTime(ModuleOp module, CompareSide side,
                                      StringRef target, StringRef tool,
                                      Location loc);

/// Compiles a clone of `module` with buildTpuPipeline for `tpuTarget` and
/// one with buildGpuPipeline for `gpuTarget` (names or paths, as the
/// pipelines' `target` option; check them with loadCompareTarget first) and
/// matches the kernels. `fusion` is both pipelines' `fusion` option ("cost"
/// or "none"), `gpuLaunch` their `gpu-launch` one ("auto", "graph",
/// "stream"). `module` itself is left unchanged. Errors (a pipeline
/// failure) are emitted as diagnostics.
FailureOr<Comparison> compareModule(ModuleOp module, StringRef tpuTarget,
                                    StringRef gpuTarget,
                                    StringRef fusion = "cost",
                                    StringRef gpuLaunch = "auto");

} // namespace mlir::npu

#endif // NPU_COMPARE_COMPARE_H
