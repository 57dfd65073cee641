//===- DynamicMoE.h - MoE routing known only at run time ---------*- C++
//-*-===//
//
// How many tokens reach each expert is decided by the router at run time.
// The compile-time-decided path must plan for it statically -- every expert
// gets a capacity of ceil(capacity_factor * T * k / E) token slots, slots
// left empty are computed anyway (wasted FLOPs) and assignments beyond the
// capacity are dropped -- while the run-time-decided path runs each expert on
// the tokens it actually got (a ragged grouped GEMM). This prices both on a
// seeded sample of the routing (docs/compare.md, "Dynamic MoE").
//
//===----------------------------------------------------------------------===//

#ifndef NPU_COMPARE_DYNAMICMOE_H
#define NPU_COMPARE_DYNAMICMOE_H

#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::npu {

/// The distribution of routed assignments over experts.
struct LoadModel {
  enum class Shape { Uniform, Zipf, Hot } shape = Shape::Uniform;
  /// Zipf exponent: expert i has weight 1 / (i + 1)^s.
  double zipfS = 1.0;
  /// Hot: expert 0 has this share of the weight, the others share the rest.
  double hotShare = 1.0;
};

/// "uniform", "zipf:<s>" (s > 0) or "hot:<share>" (share in (0, 1]).
/// Fails with a message in `error`.
std::optional<LoadModel> parseLoadModel(llvm::StringRef text,
                                        std::string &error);

/// Tokens per expert of one step: each of `tokens` tokens picks `topK`
/// distinct experts, each drawn with the model's weights among the experts
/// it has not picked yet; seeded, so a scenario is reproducible.
std::vector<int64_t> sampleExpertLoads(int64_t tokens, int64_t topK,
                                       int64_t experts, const LoadModel &model,
                                       uint64_t seed);

/// The static plan: capacity and what it costs on `loads`.
struct CapacityPlan {
  int64_t capacity = 0;      ///< ceil(factor * T * k / E) slots per expert
  int64_t assignments = 0;   ///< T * k
  int64_t paddedSlots = 0;   ///< sum over experts of max(0, C - n_e)
  int64_t droppedTokens = 0; ///< sum over experts of max(0, n_e - C)
};
CapacityPlan planCapacity(llvm::ArrayRef<int64_t> loads, int64_t tokens,
                          int64_t topK, double capacityFactor);

/// Both ways of running the routed experts of one step.
struct MoEScenarioCost {
  double staticNs = 0; ///< every expert at M = capacity, on the TPU-like target
  double dynamicNs = 0; ///< every expert with tokens at M = n_e, GPU-like
  Count wastedFlops;    ///< 6 * paddedSlots * F * D
  int64_t droppedTokens = 0;
  int64_t activeExperts = 0; ///< experts with at least one token
};
/// Prices `plan` on `tpu` (static) and `loads` on `gpu` (dynamic) with the
/// two cost models' expert FFN (gate and up, SwiGLU, down: F x D weights of
/// `weightType`, activations of `actType`; or, given `weight`, as that
/// value describes: a stored format's bytes and path, describeRhs). nullopt
/// if a tile does not fit. `graphLaunches`: the GPU-like launches are
/// replayed from a CUDA graph.
std::optional<MoEScenarioCost>
priceMoEScenario(llvm::ArrayRef<int64_t> loads, const CapacityPlan &plan,
                 int64_t ffnDim, int64_t modelDim, Type actType,
                 Type weightType, TargetAttr tpu, TargetAttr gpu,
                 bool graphLaunches = false, Value weight = {});

/// One routing scenario of one `npu.moe_experts` op.
struct MoEScenario {
  std::string load; ///< as given ("zipf:1.2")
  int64_t tokens = 0, topK = 0, experts = 0, ffnDim = 0, modelDim = 0;
  double capacityFactor = 0;
  uint64_t seed = 0;
  int64_t maxLoad = 0; ///< tokens of the busiest expert in the sample
  CapacityPlan plan;
  MoEScenarioCost cost;
};

/// Runs each load model on the first `npu.moe_experts` op of `module` (the
/// layers share it): sample, static plan, both costs. Emits an error and
/// fails on a bad load string or a module without MoE.
FailureOr<std::vector<MoEScenario>>
runMoEScenarios(ModuleOp module, llvm::ArrayRef<std::string> loads,
                double capacityFactor, uint64_t seed, TargetAttr tpu,
                TargetAttr gpu);

void printMoEScenarios(llvm::ArrayRef<MoEScenario> scenarios,
                       llvm::raw_ostream &os);
llvm::json::Value moeScenariosToJSON(llvm::ArrayRef<MoEScenario> scenarios);

} // namespace mlir::npu

#endif // NPU_COMPARE_DYNAMICMOE_H
