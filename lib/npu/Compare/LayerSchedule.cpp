//===- LayerSchedule.cpp - a split's collectives scheduled per kernel -----===//

#include "npu/Compare/LayerSchedule.h"

#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"

#include <map>

using namespace mlir;
using namespace mlir::npu;

/// A kernel with the time its backend priced (0 without a cost).
static LayerKernel layerKernel(KernelOp kernel) {
  auto cost = kernel->getAttrOfType<CostAttr>("npu.cost");
  return {kernel.getKind(), cost ? cost.getTimeNs().convertToDouble() : 0.0};
}

/// Appends the kernels `f` runs, in order, those of its callees inlined.
static void appendKernels(func::FuncOp f, std::vector<LayerKernel> &kernels,
                          SymbolTable &symbols, int depth = 0) {
  f.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto kernel = dyn_cast<KernelOp>(op)) {
      kernels.push_back(layerKernel(kernel));
      return WalkResult::skip();
    }
    if (auto call = dyn_cast<func::CallOp>(op))
      if (auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
          callee && !callee.isExternal() && depth < 8)
        appendKernels(callee, kernels, symbols, depth + 1);
    return WalkResult::advance();
  });
}

FailureOr<ModelLayers> mlir::npu::readModelLayers(ModuleOp module,
                                                  StringRef tool) {
  SymbolTable symbols(module);
  auto model = symbols.lookup<func::FuncOp>("model");
  if (!model || model.isExternal())
    return module.emitError() << tool << ": the compiled model has no @model";
  ModelLayers layers;
  llvm::StringMap<int> index;
  bool inTopLevelRun = false;
  for (Operation &op : model.getBody().front()) {
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee || callee.isExternal())
        continue;
      inTopLevelRun = false;
      auto [it, inserted] =
          index.try_emplace(callee.getSymName(), layers.layers.size());
      if (inserted) {
        LayerProfile profile;
        profile.function = callee.getSymName().str();
        appendKernels(callee, profile.kernels, symbols);
        layers.layers.push_back(std::move(profile));
      }
      ++layers.layers[it->second].runs;
      layers.calls.push_back(it->second);
      continue;
    }
    auto kernel = dyn_cast<KernelOp>(op);
    if (!kernel)
      continue;
    // A run of @model's own kernels (the embedding, the head) is a layer of
    // its own, without collectives.
    if (!inTopLevelRun) {
      LayerProfile profile;
      profile.function = "@model";
      profile.runs = 1;
      layers.calls.push_back(layers.layers.size());
      layers.layers.push_back(std::move(profile));
      inTopLevelRun = true;
    }
    layers.layers.back().kernels.push_back(layerKernel(kernel));
  }
  return layers;
}

namespace {

/// One kernel at a time on the compute stream, one collective at a time on
/// each link.
struct Simulation {
  Simulation(const std::vector<LayerKernel> &kernels,
             const std::vector<LayerCollective> &collectives, int microBatches)
      : kernels(kernels), collectives(collectives), microBatches(microBatches) {
  }

  const std::vector<LayerKernel> &kernels;
  const std::vector<LayerCollective> &collectives;
  int microBatches;
  double compute = 0;
  std::map<std::string, double> links;
  std::vector<double> ready;
  std::vector<int> readyBy;
  LayerSchedule result;
  bool record = false;
  double origin = 0;

  void event(StringRef track, const Twine &name, double start, double dur) {
    if (record && dur > 0)
      result.events.push_back({track.str(), name.str(), start - origin, dur});
  }

  /// Kernels [begin, end) of micro-batch `mb`, then the collectives after
  /// kernel end - 1.
  void runSegment(int begin, int end, int mb) {
    std::string prefix =
        microBatches > 1 ? (mb == 0 ? "A: " : "B: ") : std::string();
    // Wait for the micro-batch's last collective.
    if (ready[mb] > compute && readyBy[mb] >= 0) {
      if (record)
        result.exposedNs[readyBy[mb]] += ready[mb] - compute;
      event("compute", prefix + "waits for " + collectives[readyBy[mb]].what,
            compute, ready[mb] - compute);
      compute = ready[mb];
    }
    for (int k = begin; k < end; ++k) {
      double ns = kernels[k].ns;
      event("compute", prefix + stringifyKernelKind(kernels[k].kind), compute,
            ns);
      // The collectives that run beside the kernel.
      double along = 0, sent = 0;
      for (const LayerCollective &c : collectives)
        if (c.beside && c.anchor == k) {
          double &link = links[c.track];
          double start = std::max(compute, link);
          link = start + c.ns;
          event(c.track, prefix + c.what, start, c.ns);
          along = std::max(along, link - compute);
          sent += c.ns;
        }
      if (along > ns) {
        for (auto [c, collective] : llvm::enumerate(collectives))
          if (record && collective.beside && collective.anchor == k)
            result.exposedNs[c] += (along - ns) * collective.ns / sent;
        event("compute", prefix + "waits for its collectives", compute + ns,
              along - ns);
      }
      compute += std::max(ns, along);
    }
    for (auto [c, collective] : llvm::enumerate(collectives)) {
      if (collective.beside || collective.after != end - 1)
        continue;
      if (collective.blocking) {
        event("compute", prefix + collective.what, compute, collective.ns);
        event(collective.track, prefix + collective.what, compute,
              collective.ns);
        if (record)
          result.exposedNs[c] += collective.ns;
        compute += collective.ns;
        continue;
      }
      double &link = links[collective.track];
      double start = std::max(compute, link);
      link = start + collective.ns;
      event(collective.track, prefix + collective.what, start, collective.ns);
      if (link > ready[mb]) {
        ready[mb] = link;
        readyBy[mb] = static_cast<int>(c);
      }
    }
  }

  void run() {
    int n = static_cast<int>(kernels.size());
    // Segment ends: after every kernel a collective follows, and the last.
    std::vector<int> ends;
    for (const LayerCollective &c : collectives)
      if (!c.beside)
        ends.push_back(std::clamp(c.after, 0, n - 1) + 1);
    ends.push_back(n);
    llvm::sort(ends);
    ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
    ready.assign(microBatches, 0);
    readyBy.assign(microBatches, -1);
    result.exposedNs.assign(collectives.size(), 0);
    const int repeats = 3;
    double previousEnd = 0;
    for (int r = 0; r < repeats; ++r) {
      record = r == repeats - 1;
      origin = compute;
      previousEnd = compute;
      int begin = 0;
      for (int end : ends) {
        for (int mb = 0; mb < microBatches; ++mb)
          runSegment(begin, end, mb);
        begin = end;
      }
    }
    result.layerNs = compute - previousEnd;
  }
};

} // namespace

LayerSchedule
mlir::npu::scheduleLayer(const std::vector<LayerKernel> &kernels,
                         const std::vector<LayerCollective> &collectives,
                         int microBatches, bool decompose) {
  LayerSchedule result;
  for (const LayerKernel &k : kernels)
    result.computeNs += k.ns * std::max(microBatches, 1);
  if (kernels.empty())
    return result;
  // Decomposed (one micro-batch): every collective not on the stream runs
  // beside the kernel it is decomposed with.
  std::vector<LayerCollective> placed(collectives);
  if (decompose && microBatches <= 1)
    for (LayerCollective &c : placed)
      c.beside = c.beside || !c.blocking;
  Simulation sim(kernels, placed, std::max(microBatches, 1));
  sim.run();
  result.layerNs = sim.result.layerNs;
  result.exposedNs = std::move(sim.result.exposedNs);
  result.events = std::move(sim.result.events);
  // Each micro-batch in flight sends its own.
  int sends = std::max(microBatches, 1);
  result.overlappedNs.resize(collectives.size());
  for (auto [c, collective] : llvm::enumerate(collectives))
    result.overlappedNs[c] =
        hiddenPart(collective.ns * sends, result.exposedNs[c]);
  return result;
}
