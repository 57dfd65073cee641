//===- Collectives.cpp - the time of a collective on a system -------------===//
//
// docs/collectives.md derives each formula; the comments give the result.
// Notation: k chips on an axis, V bytes (Collectives.h), b one link's bytes/s
// in one direction, B a switch-attached chip's bytes/s in one direction (all
// its links), h the latency of one hop or switch step.
//
//===----------------------------------------------------------------------===//

#include "npu/Parallel/Collectives.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::parallel;
using target::LinkLevel;
using target::LinkTopology;
using target::System;
using target::SystemAxis;

StringRef parallel::stringifyCollectiveKind(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce:
    return "all_reduce";
  case CollectiveKind::AllGather:
    return "all_gather";
  case CollectiveKind::ReduceScatter:
    return "reduce_scatter";
  case CollectiveKind::AllToAll:
    return "all_to_all";
  case CollectiveKind::SendRecv:
    return "send_recv";
  }
  llvm_unreachable("unknown CollectiveKind");
}

std::optional<CollectiveKind>
parallel::symbolizeCollectiveKind(StringRef name) {
  std::string canonical = name.str();
  std::replace(canonical.begin(), canonical.end(), '-', '_');
  for (CollectiveKind kind :
       {CollectiveKind::AllReduce, CollectiveKind::AllGather,
        CollectiveKind::ReduceScatter, CollectiveKind::AllToAll,
        CollectiveKind::SendRecv})
    if (canonical == stringifyCollectiveKind(kind))
      return kind;
  return std::nullopt;
}

std::optional<SwitchAlgorithm>
parallel::symbolizeSwitchAlgorithm(StringRef name) {
  return llvm::StringSwitch<std::optional<SwitchAlgorithm>>(name)
      .Case("fastest", SwitchAlgorithm::Fastest)
      .Case("ring", SwitchAlgorithm::Ring)
      .Case("tree", SwitchAlgorithm::Tree)
      .Case("in_switch", SwitchAlgorithm::InSwitch)
      .Default(std::nullopt);
}

double CollectiveCost::busBytesPerS() const {
  double p = static_cast<double>(chips);
  switch (kind) {
  case CollectiveKind::AllReduce:
    return algorithmBytesPerS() * 2 * (p - 1) / p;
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllToAll:
    return algorithmBytesPerS() * (p - 1) / p;
  case CollectiveKind::SendRecv:
    return algorithmBytesPerS();
  }
  llvm_unreachable("unknown CollectiveKind");
}

namespace {

using Axes = SmallVector<const SystemAxis *>;

std::string joinNames(ArrayRef<const SystemAxis *> axes) {
  return llvm::join(
      llvm::map_range(axes,
                      [](const SystemAxis *a) { return StringRef(a->name); }),
      ",");
}

double seconds(double ns) { return ns * 1e-9; }

/// Hops from a chip to the farthest one of a torus axis: a ring's farthest
/// chip is k/2 hops away either way; a line's end is k-1 hops from the other.
int64_t torusSteps(const SystemAxis &axis) {
  return axis.wraparound ? axis.size / 2 : axis.size - 1;
}

/// Directions data can flow towards a chip along a torus axis: both around a
/// ring; a line's end chip receives everything through its one link.
double torusDirections(const SystemAxis &axis) {
  return axis.wraparound ? 2.0 : 1.0;
}

CollectivePhase makePhase(StringRef what, ArrayRef<const SystemAxis *> axes,
                          double bytes) {
  CollectivePhase phase;
  phase.what = what.str();
  phase.axes = joinNames(axes);
  phase.bytes = bytes;
  phase.chips = 1;
  for (const SystemAxis *axis : axes)
    phase.chips *= axis->size;
  return phase;
}

/// all_gather (or reduce_scatter, its mirror) over torus axes. With m axes
/// the data is cut in m parts; part r runs the axes in the order rotated by
/// r, gathering one axis after another (a bidirectional ring per wrapped
/// axis). The parts run at once on disjoint links, so axis a carries
///   load(a) = sum over orders of (k_a - 1)/k_a x (V/m) / prod(k of the axes
///             gathered after a in that order)
/// and the time is max_a load(a) / (directions(a) b). For one axis this is
/// (k-1)/k V / (2b) on a ring and (k-1)/k V / b on a line; for m equal axes
/// it is (p-1)/p V / (2 m b), the bound set by the chip's 2m links.
CollectivePhase torusGather(StringRef what, ArrayRef<const SystemAxis *> axes,
                            const LinkLevel &level, double bytes) {
  CollectivePhase phase = makePhase(what, axes, bytes);
  size_t m = axes.size();
  std::vector<double> load(m, 0.0);
  for (size_t r = 0; r < m; ++r) {
    double after = 1; // product of the sizes gathered after position i
    for (size_t i = m; i-- > 0;) {
      size_t a = (r + i) % m;
      double k = static_cast<double>(axes[a]->size);
      load[a] += (k - 1) / k * (bytes / m) / after;
      after *= k;
    }
  }
  for (size_t a = 0; a < m; ++a) {
    double perLink = load[a] / torusDirections(*axes[a]);
    phase.linkBytes = std::max(phase.linkBytes, perLink);
    phase.steps += torusSteps(*axes[a]);
  }
  phase.bandwidthSeconds =
      phase.linkBytes / level.sustainedLinkBytesPerSPerDirection;
  phase.latencySeconds = phase.steps * seconds(level.latencyNs);
  bool wrapped = llvm::all_of(axes, [](auto *a) { return a->wraparound; });
  if (m == 1)
    phase.algorithm =
        wrapped ? "bidirectional ring" : "bidirectional line (no wraparound)";
  else
    phase.algorithm =
        std::to_string(m) + " axis orders at once, a ring per axis";
  if (m > 1 && !wrapped)
    phase.algorithm += " (a line where no wraparound)";
  return phase;
}

/// all_to_all over torus axes, dimension-order routed. Every ordered pair of
/// chips in a line along axis a carries V/k_a (the flows of the other axes'
/// chips routed through it), so a directed link of a ring carries
/// V floor(k^2/4) / (2k) (V k / 8 for even k) and the middle link of a line
/// V floor(k^2/4) / k. Axes use disjoint links: the time is the largest.
CollectivePhase torusAllToAll(ArrayRef<const SystemAxis *> axes,
                              const LinkLevel &level, double bytes) {
  CollectivePhase phase = makePhase("all_to_all", axes, bytes);
  for (const SystemAxis *axis : axes) {
    double k = static_cast<double>(axis->size);
    double pairsAcross = std::floor(k * k / 4);
    double perLink = bytes * pairsAcross / (k * torusDirections(*axis));
    phase.linkBytes = std::max(phase.linkBytes, perLink);
    phase.steps += torusSteps(*axis);
  }
  phase.bandwidthSeconds =
      phase.linkBytes / level.sustainedLinkBytesPerSPerDirection;
  phase.latencySeconds = phase.steps * seconds(level.latencyNs);
  phase.algorithm = "dimension-order routed, shortest way round";
  return phase;
}

/// One collective on one switch domain of k chips (or over the scale-out
/// fabric). Rings: (k-1)/k V / B per direction for all_gather and
/// reduce_scatter in k-1 steps; all_reduce is both, 2(k-1) steps. A double
/// binary tree all_reduce moves 2V / B per direction in 2 ceil(log2 k) steps.
/// In-switch reduction (NVLS) sends V (k+1)/k per chip and receives as much
/// (the switch reads each chip's V and its reduced share is written back
/// once, then each chip multicasts its V/k share and receives all k), at
/// the fraction e of the links' rate the switch's reduction keeps:
/// V (k+1)/k / (e B), 2 steps. The fastest
/// all_reduce is taken, as NCCL's tuner does. all_to_all: (k-1)/k V / B in
/// one step (every peer at once); send_recv: V / B.
CollectivePhase switchPhase(CollectiveKind kind, const SystemAxis *axis,
                            const LinkLevel &level, double bytes,
                            SwitchAlgorithm algorithm) {
  CollectivePhase phase =
      makePhase(stringifyCollectiveKind(kind), {axis}, bytes);
  double k = static_cast<double>(axis->size);
  double chipRate = level.chipBytesPerSPerDirection();
  double hop = seconds(level.latencyNs);
  auto set = [&](StringRef name, double linkBytes, int64_t steps,
                 double efficiency = 1.0) {
    phase.algorithm = name.str();
    phase.linkBytes = linkBytes;
    phase.bandwidthSeconds = linkBytes / (efficiency * chipRate);
    phase.steps = steps;
    phase.latencySeconds = steps * hop;
  };
  switch (kind) {
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter:
    set("ring", (k - 1) / k * bytes, axis->size - 1);
    break;
  case CollectiveKind::AllReduce: {
    int64_t depth = llvm::Log2_64_Ceil(static_cast<uint64_t>(axis->size));
    struct Candidate {
      SwitchAlgorithm which;
      StringRef name;
      double linkBytes;
      int64_t steps;
      double efficiency = 1.0;
    };
    SmallVector<Candidate, 3> candidates = {
        {SwitchAlgorithm::Ring, "ring", 2 * (k - 1) / k * bytes,
         2 * (axis->size - 1)},
        {SwitchAlgorithm::Tree, "double binary tree", 2 * bytes, 2 * depth}};
    // The reduction's rate is a fraction of the links' (the switch's
    // arithmetic and multicast): the same bytes over a slower pipe.
    if (level.canReduceInNetwork())
      candidates.push_back({SwitchAlgorithm::InSwitch, "in-switch reduction",
                            bytes * (k + 1) / k, 2,
                            level.inNetworkReductionEfficiency});
    double best = std::numeric_limits<double>::infinity();
    for (const Candidate &c : candidates) {
      double time = c.linkBytes / (c.efficiency * chipRate) + c.steps * hop;
      bool chosen = algorithm == SwitchAlgorithm::Fastest
                        ? time < best
                        : algorithm == c.which;
      if (chosen) {
        set(c.name, c.linkBytes, c.steps, c.efficiency);
        best = time;
      }
    }
    break;
  }
  case CollectiveKind::AllToAll:
    set("pairwise, all peers at once", (k - 1) / k * bytes, 1);
    break;
  case CollectiveKind::SendRecv:
    set("to the next chip", bytes, 1);
    break;
  }
  return phase;
}

/// `kind` over axes of one level.
std::vector<CollectivePhase> levelPhasesAtSustainedRate(
    CollectiveKind kind, ArrayRef<const SystemAxis *> axes,
    const LinkLevel &level, double bytes, SwitchAlgorithm algorithm) {
  if (level.topology == LinkTopology::Switch)
    return {switchPhase(kind, axes.front(), level, bytes, algorithm)};
  switch (kind) {
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter:
    return {torusGather(stringifyCollectiveKind(kind), axes, level, bytes)};
  case CollectiveKind::AllReduce: {
    CollectivePhase scatter = torusGather("reduce_scatter", axes, level, bytes);
    return {scatter, torusGather("all_gather", axes, level, bytes)};
  }
  case CollectiveKind::AllToAll:
    return {torusAllToAll(axes, level, bytes)};
  case CollectiveKind::SendRecv: {
    CollectivePhase phase = makePhase("send_recv", axes, bytes);
    phase.algorithm = "to the next chip";
    phase.linkBytes = bytes;
    phase.bandwidthSeconds = bytes / level.sustainedLinkBytesPerSPerDirection;
    phase.steps = 1;
    phase.latencySeconds = seconds(level.latencyNs);
    return {phase};
  }
  }
  llvm_unreachable("unknown CollectiveKind");
}

/// `kind` over axes of one level, with each phase's line-rate time.
std::vector<CollectivePhase> levelPhases(CollectiveKind kind,
                                         ArrayRef<const SystemAxis *> axes,
                                         const LinkLevel &level, double bytes,
                                         SwitchAlgorithm algorithm) {
  std::vector<CollectivePhase> phases =
      levelPhasesAtSustainedRate(kind, axes, level, bytes, algorithm);
  for (CollectivePhase &phase : phases)
    phase.lineRateSeconds = phase.bandwidthSeconds *
                            level.sustainedLinkBytesPerSPerDirection /
                            level.linkBytesPerSPerDirection;
  return phases;
}

/// Appends `phases`, run on `level`, after those of `cost`.
void append(CollectiveCost &cost, std::vector<CollectivePhase> phases,
            StringRef level) {
  for (CollectivePhase &phase : phases) {
    phase.level = level.str();
    cost.phases.push_back(std::move(phase));
  }
}

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace

llvm::Expected<CollectiveCost>
parallel::priceCollective(const System &system, CollectiveKind kind,
                          ArrayRef<std::string> axisNames, double bytes,
                          SwitchAlgorithm algorithm, double scaleOutBytes) {
  if (!std::isfinite(bytes) || bytes <= 0)
    return fail("the size must be a positive finite number of bytes, got " +
                target::formatReal(bytes));
  Axes up, out;
  for (const std::string &name : axisNames) {
    const SystemAxis *axis = system.lookupAxis(name);
    if (!axis)
      return fail("system '" + system.name + "' has no axis '" + name +
                  "' (axes: " +
                  joinNames(llvm::to_vector(llvm::map_range(
                      system.axes, [](const SystemAxis &a) { return &a; }))) +
                  ")");
    if (llvm::is_contained(up, axis) || llvm::is_contained(out, axis))
      return fail("axis '" + name + "' is named twice");
    (axis->scaleOut ? out : up).push_back(axis);
  }
  if (axisNames.empty())
    for (const SystemAxis &axis : system.axes)
      (axis.scaleOut ? out : up).push_back(&axis);
  // The system's order of axes: the pointers are into system.axes.
  llvm::sort(up);
  if (kind == CollectiveKind::SendRecv && up.size() + out.size() != 1)
    return fail("send_recv goes along one axis; name exactly one");

  const target::Interconnect &ic = *system.chip.interconnect;
  if (algorithm != SwitchAlgorithm::Fastest) {
    const LinkLevel &level = up.empty() ? *ic.scaleOut : ic.scaleUp;
    if (kind != CollectiveKind::AllReduce)
      return fail("an algorithm can be forced for all_reduce only; the other "
                  "collectives run one algorithm");
    if (level.topology != LinkTopology::Switch)
      return fail("an algorithm can be forced on a switch only; a torus runs "
                  "rings");
    if (algorithm == SwitchAlgorithm::InSwitch && !level.canReduceInNetwork())
      return fail("chip '" + system.chip.attr.getName() +
                  "' cannot reduce in the switch "
                  "(in_network_reduction_efficiency is 0)");
  }

  CollectiveCost cost;
  cost.kind = kind;
  cost.bytes = bytes;
  double upChips = 1;
  for (const SystemAxis *axis : up)
    upChips *= static_cast<double>(axis->size);
  cost.chips = static_cast<int64_t>(upChips) * (out.empty() ? 1 : out[0]->size);

  const LinkLevel &upLevel = ic.scaleUp;
  using target::kScaleOut;
  using target::kScaleUp;
  if (out.empty() || up.empty()) {
    bool onlyOut = up.empty();
    append(cost,
           levelPhases(kind, onlyOut ? out : up,
                       onlyOut ? *ic.scaleOut : upLevel, bytes, algorithm),
           onlyOut ? kScaleOut : kScaleUp);
  } else {
    const LinkLevel &outLevel = *ic.scaleOut;
    // Hierarchical: the scale-up level works on V, the scale-out level on
    // the 1/p_up share each chip owns after (or before) it.
    double share = bytes / upChips;
    auto onUp = [&](CollectiveKind k, double v) {
      append(cost, levelPhases(k, up, upLevel, v, algorithm), kScaleUp);
    };
    auto onOut = [&](CollectiveKind k, double v) {
      append(cost, levelPhases(k, out, outLevel, v, algorithm), kScaleOut);
    };
    switch (kind) {
    case CollectiveKind::AllReduce:
      onUp(CollectiveKind::ReduceScatter, bytes);
      onOut(CollectiveKind::AllReduce, share);
      onUp(CollectiveKind::AllGather, bytes);
      break;
    case CollectiveKind::AllGather:
      onOut(kind, share);
      onUp(kind, bytes);
      break;
    case CollectiveKind::ReduceScatter:
      onUp(kind, bytes);
      onOut(kind, share);
      break;
    case CollectiveKind::AllToAll:
      if (scaleOutBytes > 0) {
        // Routed (a MoE dispatch): each token crosses to each destination
        // node once, then every copy is forwarded inside the node.
        onOut(kind, scaleOutBytes);
        onUp(kind, bytes);
        break;
      }
      // Each chip sends V/p_out to its own scale-up group and the rest
      // through its NIC.
      onUp(kind, bytes / static_cast<double>(out[0]->size));
      onOut(kind, bytes);
      break;
    case CollectiveKind::SendRecv:
      llvm_unreachable("checked above");
    }
  }
  double upBase = up.empty() ? 0 : upLevel.baseLatencyNs;
  double outBase = out.empty() ? 0 : ic.scaleOut->baseLatencyNs;
  cost.baseLatencySeconds = seconds(std::max(upBase, outBase));
  std::map<std::string, std::pair<double, double>> levelSeconds;
  cost.latencySeconds = cost.baseLatencySeconds;
  for (const CollectivePhase &phase : cost.phases) {
    levelSeconds[phase.level].first += phase.bandwidthSeconds;
    levelSeconds[phase.level].second += phase.lineRateSeconds;
    cost.latencySeconds += phase.latencySeconds;
  }
  for (const auto &[level, time] : levelSeconds) {
    cost.bandwidthSeconds = std::max(cost.bandwidthSeconds, time.first);
    cost.lineRateSeconds = std::max(cost.lineRateSeconds, time.second);
  }
  cost.seconds = cost.bandwidthSeconds + cost.latencySeconds;
  return cost;
}

llvm::json::Value parallel::toJSON(const CollectiveCost &cost) {
  llvm::json::Object root;
  root["collective"] = stringifyCollectiveKind(cost.kind).str();
  root["bytes"] = cost.bytes;
  root["chips"] = cost.chips;
  root["seconds"] = cost.seconds;
  root["bandwidth_seconds"] = cost.bandwidthSeconds;
  root["latency_seconds"] = cost.latencySeconds;
  root["line_rate_seconds"] = cost.lineRateSeconds;
  root["base_latency_seconds"] = cost.baseLatencySeconds;
  root["algorithm_bytes_per_s"] = cost.algorithmBytesPerS();
  root["bus_bytes_per_s"] = cost.busBytesPerS();
  llvm::json::Array phases;
  for (const CollectivePhase &phase : cost.phases) {
    llvm::json::Object p;
    p["what"] = phase.what;
    p["axes"] = phase.axes;
    p["algorithm"] = phase.algorithm;
    p["chips"] = phase.chips;
    p["bytes"] = phase.bytes;
    p["link_bytes"] = phase.linkBytes;
    p["bandwidth_seconds"] = phase.bandwidthSeconds;
    p["line_rate_seconds"] = phase.lineRateSeconds;
    p["steps"] = phase.steps;
    p["latency_seconds"] = phase.latencySeconds;
    p["seconds"] = phase.seconds();
    p["level"] = phase.level;
    phases.push_back(std::move(p));
  }
  root["phases"] = std::move(phases);
  return llvm::json::Value(std::move(root));
}
