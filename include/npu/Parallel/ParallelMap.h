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
  /// The router's group-limited routing (n_group, topk_group); 1, 1
  /// without groups.
  int64_t expertGroups = 1, topkGroups = 1;
  int64_t kvBytesPerTokenPerLayer = 0;
  int64_t parameterCount = 0;
  /// Bytes of one element an expert-parallel dispatch sends: where the
  /// experts take fp8, the fp8 byte and its share of one f32 scale per 128
  /// elements (DeepEP quantizes before sending: 1 + 4/128), else the
  /// activations'.
  double dispatchBytes = 0;
};

/// Bytes per element of an fp8 dispatch: the e4m3 byte and one f32 scale
/// per 128 elements, as DeepEP sends it (its tests' `fp8_factor`).
inline constexpr double kFp8DispatchBytes = 1.0 + 4.0 / 128.0;

/// How many of `chips` chips one token's routed copies reach, on average,
/// when the chips hold the `experts` routed experts in equal contiguous
/// ranges (expert e on chip floor(e * chips / experts); a fractional share
/// where they do not divide, as redundant experts fill the slots) and the
/// router picks `topK` experts among the `topkGroups` of `groups` contiguous
/// groups it picks (group-limited routing; 1, 1 without groups), each pick
/// uniform: the balanced load a router's balancing aims at. A dispatch that
/// sends each token once per destination chip (DeepEP's normal kernels:
/// the copies a chip's experts need are made on arrival) moves T x this
/// rows, not T x topK. Per chip: 1 - P(no pick on it), the miss chance
/// summed over which of the groups the chip's range meets are picked
/// (hypergeometric), each a product over the topK picks without
/// replacement. docs/parallelism.md.
double expectedDestinationChips(int64_t experts, int64_t topK, int64_t groups,
                                int64_t topkGroups, int64_t chips);

/// A routed all-to-all (a MoE dispatch or combine) over the axes of
/// `system` named in `axes` (all when empty): the chips a token reaches
/// (`chips`), and where the axes span both levels, the scale-out nodes (the
/// chips of the scale-up axes together) it reaches (`nodes`: DeepEP's
/// internode kernels send once per node and forward inside it), else 0.
struct RoutedDestinations {
  double chips = 0, nodes = 0;
};
RoutedDestinations routedDestinations(const target::System &system,
                                      llvm::ArrayRef<std::string> axes,
                                      int64_t experts, int64_t topK,
                                      int64_t groups, int64_t topkGroups);

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
