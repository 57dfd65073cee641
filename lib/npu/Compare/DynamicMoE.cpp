//===- DynamicMoE.cpp - MoE routing known only at run time ----------------===//

#include "npu/Compare/DynamicMoE.h"
#include "npu/Analysis/GpuCostModel.h"
#include "npu/Analysis/KernelCost.h"
#include "npu/Analysis/TpuCostModel.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <random>

using namespace mlir;
using namespace mlir::npu;

std::optional<LoadModel> mlir::npu::parseLoadModel(StringRef text,
                                                   std::string &error) {
  LoadModel m;
  auto [kind, arg] = text.split(':');
  double value = 0;
  if (kind == "uniform" && arg.empty())
    return m;
  bool parsed = !arg.empty() && !arg.getAsDouble(value) && std::isfinite(value);
  if (kind == "zipf" && parsed && value > 0) {
    m.shape = LoadModel::Shape::Zipf;
    m.zipfS = value;
    return m;
  }
  if (kind == "hot" && parsed && value > 0 && value <= 1) {
    m.shape = LoadModel::Shape::Hot;
    m.hotShare = value;
    return m;
  }
  error = ("unknown load '" + text +
           "' (expected 'uniform', 'zipf:<s>' with s > 0, or 'hot:<share>' "
           "with share in (0, 1])")
              .str();
  return std::nullopt;
}

static std::vector<double> weights(int64_t experts, const LoadModel &m) {
  std::vector<double> w(experts, 1.0);
  if (m.shape == LoadModel::Shape::Zipf)
    for (int64_t i = 0; i < experts; ++i)
      w[i] = 1.0 / std::pow(double(i + 1), m.zipfS);
  if (m.shape == LoadModel::Shape::Hot) {
    w[0] = m.hotShare;
    for (int64_t i = 1; i < experts; ++i)
      w[i] = (1.0 - m.hotShare) / double(experts - 1);
  }
  return w;
}

std::vector<int64_t> mlir::npu::sampleExpertLoads(int64_t tokens, int64_t topK,
                                                  int64_t experts,
                                                  const LoadModel &model,
                                                  uint64_t seed) {
  std::vector<int64_t> loads(experts, 0);
  std::vector<double> w = weights(experts, model);
  std::mt19937_64 rng(seed);
  int64_t k = std::min(topK, experts);
  std::vector<int64_t> picked;
  for (int64_t t = 0; t < tokens; ++t) {
    picked.clear();
    std::vector<double> left = w;
    for (int64_t j = 0; j < k; ++j) {
      double total = 0;
      for (double v : left)
        total += v;
      int64_t e = 0;
      if (total > 0) {
        std::uniform_real_distribution<double> u(0.0, total);
        double r = u(rng), acc = 0;
        for (e = 0; e < experts - 1; ++e) {
          acc += left[e];
          if (r < acc)
            break;
        }
        while (left[e] == 0 && e > 0) // landed past the mass: last nonzero
          --e;
      } else {
        // Only zero-weight experts left (a hot share of 1): the remaining
        // choices are uniform over the experts not picked yet.
        std::uniform_int_distribution<int64_t> u(0, experts - 1 - j);
        int64_t skip = u(rng);
        for (e = 0;; ++e)
          if (!llvm::is_contained(picked, e) && skip-- == 0)
            break;
      }
      picked.push_back(e);
      left[e] = 0;
      ++loads[e];
    }
  }
  return loads;
}

CapacityPlan mlir::npu::planCapacity(ArrayRef<int64_t> loads, int64_t tokens,
                                     int64_t topK, double capacityFactor) {
  CapacityPlan plan;
  plan.assignments = tokens * topK;
  int64_t experts = int64_t(loads.size());
  plan.capacity = int64_t(
      std::ceil(capacityFactor * double(plan.assignments) / double(experts)));
  for (int64_t n : loads) {
    plan.paddedSlots += std::max<int64_t>(0, plan.capacity - n);
    plan.droppedTokens += std::max<int64_t>(0, n - plan.capacity);
  }
  return plan;
}

/// The expert FFN as both cost models see it.
static KernelDesc expertFfn(int64_t m, int64_t f, int64_t d, Type actType,
                            Type weightType, Value weight) {
  KernelDesc k;
  k.kind = KernelKind::GatedMlp;
  k.loops = MlpNest<>{m, f, d}.list();
  k.matrixType = getProductType(actType, weightType);
  k.lhsBytes = k.outBytes = int64_t(getElementBytes(actType));
  k.rhsBytes = double(getElementBytes(weightType));
  if (weight)
    describeRhs(k, actType, weight);
  Count mm = Count::fromSigned(m) * Count::fromSigned(f);
  k.work.matrixFlops = Count(6) * mm * Count::fromSigned(d);
  k.work.transcendentalFlops = mm;
  k.work.vectorFlops = Count(3) * mm;
  return k;
}

std::optional<MoEScenarioCost>
mlir::npu::priceMoEScenario(ArrayRef<int64_t> loads, const CapacityPlan &plan,
                            int64_t ffnDim, int64_t modelDim, Type actType,
                            Type weightType, TargetAttr tpu, TargetAttr gpu,
                            bool graphLaunches, Value weight) {
  FailureOr<TpuParams> tp = TpuParams::get(tpu);
  FailureOr<GpuParams> gp = GpuParams::get(gpu, {graphLaunches});
  if (failed(tp) || failed(gp) || plan.capacity < 1)
    return std::nullopt;
  MoEScenarioCost cost;
  cost.droppedTokens = plan.droppedTokens;
  cost.wastedFlops = Count(6) * Count::fromSigned(plan.paddedSlots) *
                     Count::fromSigned(ffnDim) * Count::fromSigned(modelDim);
  // Static: every expert runs its full capacity, whatever it got.
  std::optional<TpuTileChoice> s = chooseTpuTile(
      expertFfn(plan.capacity, ffnDim, modelDim, actType, weightType, weight),
      *tp);
  if (!s)
    return std::nullopt;
  cost.staticNs = s->cost.timeNs * double(loads.size());
  // Dynamic: each expert with tokens runs on exactly those, in one grouped
  // launch (two for the gated MLP's two GEMMs), not one per expert. The
  // experts' GEMMs are priced without the L2 simulation (each expert's
  // weights are read once; its few tokens are the reuse), which keeps a
  // scenario with hundreds of distinct loads fast.
  // The grouped launches' overhead and first-wave DRAM fill are paid once,
  // not per expert.
  llvm::DenseMap<int64_t, double> byTokens;
  double launches = 2 * gp->launchNs, fill = 0;
  for (int64_t n : loads) {
    if (n == 0)
      continue;
    ++cost.activeExperts;
    auto it = byTokens.find(n);
    if (it == byTokens.end()) {
      KernelDesc k =
          expertFfn(n, ffnDim, modelDim, actType, weightType, weight);
      std::optional<SmallVector<int64_t, 4>> tile = chooseGpuTile(k, *gp);
      std::optional<GpuCost> c =
          tile ? getGpuPhaseCost(k, *tile, *gp, /*simulateL2=*/false,
                                 chooseGpuLaunches(k, *tile, *gp))
               : std::nullopt;
      if (!c)
        return std::nullopt;
      double expertFill = c->fillNs();
      fill = std::max(fill, expertFill);
      it = byTokens.insert({n, c->timeNs - launches - expertFill}).first;
    }
    cost.dynamicNs += it->second;
  }
  if (cost.activeExperts)
    cost.dynamicNs += launches + fill;
  return cost;
}

FailureOr<std::vector<MoEScenario>>
mlir::npu::runMoEScenarios(ModuleOp module, ArrayRef<std::string> loads,
                           double capacityFactor, uint64_t seed, TargetAttr tpu,
                           TargetAttr gpu) {
  MoEExpertsOp moe;
  module.walk([&](MoEExpertsOp op) {
    if (!moe)
      moe = op;
  });
  if (!moe)
    return emitError(module.getLoc(),
                     "--moe-load: the module has no npu.moe_experts op");
  // Above E, the capacity (factor x T x k / E slots per expert) exceeds
  // every assignment of the step, and its slot count could overflow.
  int64_t experts = moe.getNumExperts();
  if (!(capacityFactor > 0) || !(capacityFactor <= double(experts)))
    return emitError(module.getLoc(), "--capacity-factor must be in (0, ")
           << experts << "] (E = " << experts
           << " experts: a factor of E gives one expert room for every "
              "assignment of the step), got "
           << capacityFactor;
  std::vector<MoEScenario> out;
  for (const std::string &text : loads) {
    std::string error;
    std::optional<LoadModel> model = parseLoadModel(text, error);
    if (!model)
      return emitError(module.getLoc(), "--moe-load: ") << error;
    MoEScenario s;
    s.load = text;
    s.tokens = moe.getNumTokens();
    s.topK = moe.getTopK();
    s.experts = moe.getNumExperts();
    s.ffnDim = moe.getFfnDim();
    s.modelDim = moe.getModelDim();
    s.capacityFactor = capacityFactor;
    s.seed = seed;
    std::vector<int64_t> sample =
        sampleExpertLoads(s.tokens, s.topK, s.experts, *model, seed);
    s.maxLoad = *std::max_element(sample.begin(), sample.end());
    s.plan = planCapacity(sample, s.tokens, s.topK, capacityFactor);
    std::optional<MoEScenarioCost> cost =
        priceMoEScenario(sample, s.plan, s.ffnDim, s.modelDim,
                         moe.getX().getType().getElementType(),
                         moe.getWGate().getType().getElementType(), tpu, gpu,
                         usesGraphLaunches(module), moe.getWGate());
    if (!cost)
      return moe.emitError("--moe-load: no tile of the expert FFN fits");
    s.cost = *cost;
    out.push_back(s);
  }
  return out;
}

void mlir::npu::printMoEScenarios(ArrayRef<MoEScenario> scenarios,
                                  raw_ostream &os) {
  if (scenarios.empty())
    return;
  const MoEScenario &f = scenarios.front();
  os << llvm::formatv(
      "\ndynamic MoE routing (first npu.moe_experts: T = {0} tokens, k = {1}, "
      "E = {2} experts, F = {3}, D = {4}; capacity factor {5}, seed {6})\n"
      "  static (tpu): every expert computes C = ceil(factor * T * k / E) "
      "slots, padded or dropped; dynamic (gpu): each expert its actual "
      "tokens, one grouped launch\n",
      f.tokens, f.topK, f.experts, f.ffnDim, f.modelDim, f.capacityFactor,
      f.seed);
  os << llvm::formatv("  {0,-12} {1,9} {2,9} {3,12} {4,14} {5,16} {6,8} "
                      "{7,14} {8,14}\n",
                      "load", "max n_e", "capacity", "padded", "wasted GFLOP",
                      "dropped (of T*k)", "active", "static_us", "dynamic_us");
  for (const MoEScenario &s : scenarios)
    os << llvm::formatv(
        "  {0,-12} {1,9} {2,9} {3,12} {4,14:f3} {5,9} ({6,5:f1}%) {7,8} "
        "{8,14:f3} {9,14:f3}\n",
        s.load, s.maxLoad, s.plan.capacity, s.plan.paddedSlots,
        double(s.cost.wastedFlops.value()) / 1e9, s.plan.droppedTokens,
        100.0 * double(s.plan.droppedTokens) / double(s.plan.assignments),
        s.cost.activeExperts, s.cost.staticNs / 1e3, s.cost.dynamicNs / 1e3);
}

llvm::json::Value
mlir::npu::moeScenariosToJSON(ArrayRef<MoEScenario> scenarios) {
  llvm::json::Array rows;
  for (const MoEScenario &s : scenarios)
    rows.push_back(llvm::json::Object{
        {"load", s.load},
        {"tokens", s.tokens},
        {"top_k", s.topK},
        {"experts", s.experts},
        {"capacity_factor", s.capacityFactor},
        {"seed", int64_t(s.seed)},
        {"max_tokens_per_expert", s.maxLoad},
        {"capacity", s.plan.capacity},
        {"assignments", s.plan.assignments},
        {"padded_slots", s.plan.paddedSlots},
        {"dropped_tokens", s.plan.droppedTokens},
        {"wasted_flops", int64_t(s.cost.wastedFlops.value())},
        {"active_experts", s.cost.activeExperts},
        {"static_tpu_ns", s.cost.staticNs},
        {"dynamic_gpu_ns", s.cost.dynamicNs}});
  return rows;
}
