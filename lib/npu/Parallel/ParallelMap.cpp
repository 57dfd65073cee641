//===- ParallelMap.cpp - how each cut of a model talks --------------------===//
//
// docs/parallelism.md derives every row. Notation: T tokens of the step, D
// the residual width, a its element bytes, L layers (L_moe with routed
// experts), k experts per token, d(p) the chips a token's k copies reach
// (expectedDestinationChips), p chips in the group, kv the K/V bytes one
// token keeps per layer, P parameters.
//
//===----------------------------------------------------------------------===//

#include "npu/Parallel/ParallelMap.h"
#include "npu/Import/HFConfig.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/bit.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::parallel;
using target::System;
using target::SystemAxis;

FailureOr<ModelShape> parallel::readModelShape(ModuleOp module,
                                               const ModelBill &bill) {
  auto model = module->getAttrOfType<DictionaryAttr>("npu.model");
  auto layers = model ? model.getAs<IntegerAttr>("layers") : IntegerAttr();
  auto phase = model ? model.getAs<StringAttr>("phase") : StringAttr();
  if (!layers || !phase)
    return module.emitError("the parallelism map needs an imported model: "
                            "an 'npu.model' description with 'layers' and "
                            "'phase' (npu-translate --import-hf-config)");
  ModelShape shape;
  shape.phase = phase.getValue().str();
  shape.layers = layers.getInt();
  shape.tokens = bill.tokens;
  shape.parameterCount = static_cast<int64_t>(bill.parameterCount.value());
  shape.kvBytesPerTokenPerLayer =
      static_cast<int64_t>(bill.kvCacheBytesPerToken.value()) /
      std::max<int64_t>(shape.layers, 1);
  llvm::StringMap<int64_t> calls;
  for (const FunctionBill &f : bill.functions)
    calls[f.name] = f.calls;
  module.walk([&](Operation *op) {
    auto func = op->getParentOfType<func::FuncOp>();
    int64_t runs = func ? calls.lookup(func.getSymName()) : 0;
    if (auto embedding = dyn_cast<EmbeddingOp>(op)) {
      auto type = cast<RankedTensorType>(embedding.getType());
      shape.hidden = type.getShape().back();
      shape.activationBytes = type.getElementTypeBitWidth() / 8;
    } else if (auto moe = dyn_cast<MoEExpertsOp>(op)) {
      shape.moeLayers += runs;
      shape.topK = moe.getTopK();
      shape.experts = moe.getNumExperts();
    } else if (auto router = dyn_cast<MoERouterOp>(op)) {
      if (router.hasGroups()) {
        shape.expertGroups = *router.getNGroup();
        shape.topkGroups = *router.getTopkGroup();
      }
    }
  });
  // A later pipeline stage (from_hidden) takes the residual stream itself:
  // @model's first argument, [B, S, D].
  if (!shape.hidden && model.get("from_hidden"))
    if (auto entry = module.lookupSymbol<func::FuncOp>("model");
        entry && entry.getNumArguments() > 0)
      if (auto type =
              dyn_cast<RankedTensorType>(entry.getArgumentTypes().front());
          type && type.getRank() == 3) {
        shape.hidden = type.getShape().back();
        shape.activationBytes = type.getElementTypeBitWidth() / 8;
      }
  if (!shape.hidden)
    return module.emitError("the parallelism map needs the model's "
                            "embedding (npu.embedding) or, for a later "
                            "pipeline stage, its residual-stream input for "
                            "the residual width");
  auto weights = model.getAs<StringAttr>("weight_dtype");
  shape.dispatchBytes = weights && expertsTakeFp8(weights.getValue())
                            ? kFp8DispatchBytes
                            : double(shape.activationBytes);
  return shape;
}

namespace {

/// The rows before pricing: what moves and how often, given the group size.
struct RowSpec {
  MapRow row;
  /// V of one occurrence and occurrences per step for a group of p chips.
  std::function<std::pair<double, int64_t>(int64_t p)> volume;
};

std::vector<RowSpec> rowSpecs(const ModelShape &s) {
  double T = static_cast<double>(s.tokens), D = static_cast<double>(s.hidden);
  double a = static_cast<double>(s.activationBytes);
  std::vector<RowSpec> specs;
  auto add = [&](StringRef dimension, StringRef when, CollectiveKind kind,
                 StringRef what, StringRef frequency,
                 std::function<std::pair<double, int64_t>(int64_t)> volume) {
    MapRow row;
    row.dimension = dimension.str();
    row.when = when.str();
    row.kind = kind;
    row.what = what.str();
    row.frequency = frequency.str();
    specs.push_back({std::move(row), std::move(volume)});
  };
  // Batch: replicas need no collective to serve; training sums the
  // gradients (bf16, 2 bytes per parameter) once per step.
  add("batch (DP)", "training", CollectiveKind::AllReduce,
      "gradients, 2 bytes per parameter", "1 per step", [=](int64_t) {
        return std::make_pair(2.0 * static_cast<double>(s.parameterCount),
                              int64_t(1));
      });
  // Hidden / heads (Megatron): attention's output projection and the FFN's
  // down projection are row-parallel; their partial sums of [T, D] are
  // summed twice per layer.
  add("hidden, heads (TP)", "inference", CollectiveKind::AllReduce,
      "partial sums of the residual [T, D]",
      "2 per layer (attention out, FFN out)",
      [=](int64_t) { return std::make_pair(T * D * a, 2 * s.layers); });
  // Sequence (ring attention): each chip keeps T/p tokens; their K/V go
  // round the ring, p-1 hops per layer.
  if (s.phase == "prefill")
    add("sequence (CP, ring attention)", "prefill", CollectiveKind::SendRecv,
        "K/V of T/p tokens (kv bytes per token per layer)", "p-1 per layer",
        [=](int64_t p) {
          return std::make_pair(
              T / static_cast<double>(p) *
                  static_cast<double>(s.kvBytesPerTokenPerLayer),
              s.layers * (p - 1));
        });
  // Experts (attention data-parallel, as DeepSeek-V3 is served): each of
  // the p chips holds T/p tokens and E/p experts; it sends each token once
  // to every chip holding one of its k experts (dispatch, in fp8 where the
  // experts take fp8; expectedDestinationChips of them on average) and
  // takes the chips' sums back (combine, at the activations' precision),
  // once each per MoE layer.
  if (s.moeLayers) {
    auto routed = [=](double bytes) {
      return [=](int64_t p) {
        double destinations = expectedDestinationChips(
            s.experts, s.topK, s.expertGroups, s.topkGroups, p);
        return std::make_pair(
            T / static_cast<double>(p) * destinations * D * bytes, s.moeLayers);
      };
    };
    add("experts (EP), dispatch", "inference", CollectiveKind::AllToAll,
        "the chip's T/p tokens, once per destination chip [T/p, d(p), D]",
        "1 per MoE layer", routed(s.dispatchBytes));
    add("experts (EP), combine", "inference", CollectiveKind::AllToAll,
        "each destination chip's sum for the chip's T/p tokens "
        "[T/p, d(p), D]",
        "1 per MoE layer", routed(a));
  }
  // Layers (pipeline): the residual crosses each stage boundary once per
  // step (split into micro-batches, the same bytes).
  add("layers (PP)", "inference", CollectiveKind::SendRecv,
      "the residual [T, D] at a stage boundary", "p-1 per step (boundaries)",
      [=](int64_t p) { return std::make_pair(T * D * a, p - 1); });
  return specs;
}

} // namespace

llvm::Expected<std::vector<MapRow>>
parallel::buildParallelMap(const ModelShape &shape, const System &system) {
  // The groups: every scale-up axis together, and the scale-out axis.
  struct Group {
    StringRef level;
    std::vector<std::string> axes;
    int64_t chips = 1;
  };
  std::vector<Group> groups;
  for (const SystemAxis &axis : system.axes) {
    StringRef level = axis.scaleOut ? target::kScaleOut : target::kScaleUp;
    if (groups.empty() || groups.back().level != level)
      groups.push_back({level, {}, 1});
    groups.back().axes.push_back(axis.name);
    groups.back().chips *= axis.size;
  }
  std::vector<MapRow> rows;
  for (RowSpec &spec : rowSpecs(shape)) {
    MapRow row = spec.row;
    for (const Group &group : groups) {
      MapRow::Level level;
      level.level = group.level.str();
      level.chips = group.chips;
      auto [bytes, perStep] = spec.volume(group.chips);
      level.bytes = bytes;
      level.perStep = perStep;
      // A send_recv goes to the next chip along one axis.
      std::vector<std::string> axes = group.axes;
      if (row.kind == CollectiveKind::SendRecv)
        axes.resize(1);
      level.axes = llvm::join(axes, ",");
      if (bytes > 0) {
        llvm::Expected<CollectiveCost> cost =
            priceCollective(system, row.kind, axes, bytes);
        if (!cost)
          return cost.takeError();
        level.occurrence = *cost;
        level.stepSeconds = cost->seconds * static_cast<double>(perStep);
      }
      row.levels.push_back(std::move(level));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

llvm::json::Value parallel::toJSON(const ModelShape &shape,
                                   const std::vector<MapRow> &rows) {
  llvm::json::Object model{
      {"phase", shape.phase},
      {"tokens", shape.tokens},
      {"hidden", shape.hidden},
      {"activation_bytes", shape.activationBytes},
      {"layers", shape.layers},
      {"moe_layers", shape.moeLayers},
      {"top_k", shape.topK},
      {"experts", shape.experts},
      {"kv_bytes_per_token_per_layer", shape.kvBytesPerTokenPerLayer},
      {"parameters", shape.parameterCount},
      {"dispatch_bytes", shape.dispatchBytes},
      {"expert_groups", shape.expertGroups},
      {"topk_groups", shape.topkGroups}};
  llvm::json::Array array;
  for (const MapRow &row : rows) {
    llvm::json::Array levels;
    for (const MapRow::Level &l : row.levels)
      levels.push_back(
          llvm::json::Object{{"level", l.level},
                             {"axes", l.axes},
                             {"chips", l.chips},
                             {"bytes", l.bytes},
                             {"per_step", l.perStep},
                             {"seconds_per_occurrence", l.occurrence.seconds},
                             {"seconds_per_step", l.stepSeconds}});
    array.push_back(llvm::json::Object{
        {"dimension", row.dimension},
        {"when", row.when},
        {"collective", stringifyCollectiveKind(row.kind).str()},
        {"what", row.what},
        {"frequency", row.frequency},
        {"levels", std::move(levels)}});
  }
  return llvm::json::Object{{"model", std::move(model)},
                            {"rows", std::move(array)}};
}

/// log C(n, m) (n, m up to 2^20: group counts).
static double logChoose(int64_t n, int64_t m) {
  if (m < 0 || m > n)
    return -std::numeric_limits<double>::infinity();
  return std::lgamma(double(n) + 1) - std::lgamma(double(m) + 1) -
         std::lgamma(double(n - m) + 1);
}

double mlir::npu::parallel::expectedDestinationChips(int64_t experts,
                                                     int64_t topK,
                                                     int64_t groups,
                                                     int64_t topkGroups,
                                                     int64_t chips) {
  if (experts <= 0 || topK <= 0 || chips <= 0)
    return 0;
  groups = std::max<int64_t>(groups, 1);
  topkGroups = std::clamp<int64_t>(topkGroups, 1, groups);
  double E = double(experts), perChip = E / double(chips),
         perGroup = E / double(groups);
  // The experts the picks are drawn from once the groups are picked.
  double pool = double(topkGroups) * perGroup;
  // prod_{i<k} (pool - held - i) / (pool - i): a product for a few picks, a
  // ratio of gamma functions for many.
  auto missChance = [&](double held) {
    double left = pool - held;
    if (left - double(topK - 1) <= 0)
      return 0.0;
    if (topK <= 1024) {
      double miss = 1;
      for (int64_t i = 0; i < topK; ++i)
        miss *= (left - double(i)) / (pool - double(i));
      return miss;
    }
    double k = double(topK);
    return std::exp(std::lgamma(left + 1) - std::lgamma(left - k + 1) -
                    std::lgamma(pool + 1) + std::lgamma(pool - k + 1));
  };
  // The sum over which of a chip's groups are picked costs 2^met per chip:
  // past a budget (a very large system), each chip holds its expected
  // share of the picked groups instead.
  constexpr int64_t kMaxMet = 12, kBudget = int64_t(1) << 22;
  int64_t metBound = std::min<int64_t>(
      groups, int64_t(std::ceil(double(groups) / double(chips))) + 1);
  bool exact = metBound <= kMaxMet &&
               double(chips) * double(int64_t(1) << metBound) <= kBudget;
  double total = 0, allGroups = logChoose(groups, topkGroups);
  for (int64_t c = 0; c < chips; ++c) {
    double lo = perChip * double(c), hi = lo + perChip;
    // The chip's share of each group its range meets.
    llvm::SmallVector<double> shares;
    for (int64_t g = int64_t(lo / perGroup); g < groups; ++g) {
      double share = std::min(hi, perGroup * double(g + 1)) -
                     std::max(lo, perGroup * double(g));
      if (share <= 0)
        break;
      shares.push_back(share);
    }
    int64_t met = shares.size();
    double miss = 0;
    if (!exact || met > kMaxMet) {
      miss = missChance(perChip * double(topkGroups) / double(groups));
    } else {
      // Over which of the met groups are picked: the rest of the
      // topkGroups come from the groups the chip does not meet.
      for (uint32_t subset = 0; subset < (1u << met); ++subset) {
        int64_t picked = llvm::popcount(subset);
        double p =
            std::exp(logChoose(groups - met, topkGroups - picked) - allGroups);
        if (p == 0)
          continue;
        double held = 0;
        for (int64_t g = 0; g < met; ++g)
          if (subset & (1u << g))
            held += shares[g];
        miss += p * missChance(held);
      }
    }
    total += 1 - miss;
  }
  return total;
}

RoutedDestinations parallel::routedDestinations(const System &system,
                                                ArrayRef<std::string> axes,
                                                int64_t experts, int64_t topK,
                                                int64_t groups,
                                                int64_t topkGroups) {
  int64_t up = 1, out = 1;
  for (const SystemAxis &axis : system.axes)
    if (axes.empty() || llvm::is_contained(axes, axis.name))
      (axis.scaleOut ? out : up) *= axis.size;
  RoutedDestinations d;
  d.chips =
      expectedDestinationChips(experts, topK, groups, topkGroups, up * out);
  if (up > 1 && out > 1)
    d.nodes = expectedDestinationChips(experts, topK, groups, topkGroups, out);
  return d;
}
