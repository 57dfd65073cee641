//===- ParallelMap.h - how each cut of a model talks ------------*- C++ -*-===//
//
// The course's map of parallelism: for each dimension a model can be cut
// along (batch, hidden/heads, sequence, layers, experts, data centres), the
// collective the cut needs, its volume, how often it runs in one step, and
// what it costs on each network level of a system. The volumes come from the
// imported model (its bill and its ops), the costs from Collectives.h;
// docs/parallelism.md derives each row.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_PARALLEL_PARALLELMAP_H
#define NPU_PARALLEL_PARALLELMAP_H

#include "npu/Analysis/Bill.h"
#include "npu/Parallel/Collectives.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::npu::parallel {

/// What the map reads from a model: one step as imported.
struct ModelShape {
  std::string phase;           ///< "prefill" or "decode"
  int64_t tokens = 0;          ///< tokens of the step (batch x seq, or batch)
  int64_t hidden = 0;          ///< residual stream width
  int64_t activationBytes = 0; ///< bytes of one residual element
  int64_t layers = 0;
  int64_t moeLayers = 0; ///< layers with routed experts
  int64_t topK = 0;      ///< experts per token (0: dense)
  int64_t experts = 0;   ///< routed experts per MoE layer
  int64_t kvBytesPerTokenPerLayer = 0;
  int64_t parameterCount = 0;
  /// Bytes of one element an expert-parallel dispatch sends: 1 where the
  /// experts take fp8 (DeepEP quantizes before sending), else the
  /// activations'.
  int64_t dispatchBytes = 0;
};

/// Reads the shape of `module` (an imported model with an `npu.model`
/// description) from its ops and `bill` (computeBill of the same module);
/// emits an error and fails if it has no description.
FailureOr<ModelShape> readModelShape(ModuleOp module, const ModelBill &bill);

/// One row of the map.
struct MapRow {
  std::string dimension; ///< "batch (DP)", "hidden, heads (TP)", ...
  std::string when;      ///< "inference", "training", "prefill"
  CollectiveKind kind = CollectiveKind::AllReduce;
  std::string what;      ///< what moves, e.g. "partial sums of x [T, D]"
  std::string frequency; ///< e.g. "2 per layer"
  /// One per network level of the system: the group (axes), V of one
  /// occurrence and how many run in a step (both may depend on the group's
  /// size), the cost of one, and the time per step.
  struct Level {
    std::string level; ///< "scale_up" or "scale_out"
    std::string axes;  ///< e.g. "x,y,z"
    int64_t chips = 0;
    double bytes = 0;
    int64_t perStep = 0;
    CollectiveCost occurrence;
    double stepSeconds = 0;
  };
  std::vector<Level> levels;
};

/// The map of `shape` on `system`: each row priced over all the scale-up
/// axes, and over the scale-out axis where the system has one.
llvm::Expected<std::vector<MapRow>>
buildParallelMap(const ModelShape &shape, const target::System &system);

llvm::json::Value toJSON(const ModelShape &shape,
                         const std::vector<MapRow> &rows);

} // namespace mlir::npu::parallel

#endif // NPU_PARALLEL_PARALLELMAP_H
