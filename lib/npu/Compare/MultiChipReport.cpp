//===- MultiChipReport.cpp - npu-compare --systems as text and JSON -------===//

#include "npu/Compare/MultiChip.h"
#include "npu/Support/FormatReal.h"
#include "npu/Support/JsonStream.h"
#include "npu/Support/OutputFiles.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::npu;

/// Four significant digits (formatSignificant).
static std::string num(double v) { return formatSignificant(v, 4); }

/// The collectives beside each kernel of each layer function, one run.
static void printPerKernel(llvm::raw_ostream &os, const SplitStep &step) {
  if (step.perKernel.empty())
    return;
  os << "  per kernel (one layer run; " << step.inFlight
     << (step.inFlight > 1 ? " micro-batches in flight):\n"
                           : " micro-batch in flight):\n");
  const char *row = "    {0,-28} {1,-10} {2,10} {3,-14} {4,10} {5,10} {6,10} "
                    "{7,8}\n";
  os << llvm::formatv(row, "layer", "beside", "kernel_us", "collective",
                      "comm_us", "hidden_us", "exposed_us", "per_step");
  for (const KernelComm &k : step.perKernel)
    os << llvm::formatv(row, k.function, k.kernel, num(k.kernelNs / 1e3),
                        k.what, num(k.ns / 1e3), num(k.overlappedNs / 1e3),
                        num(k.exposedNs / 1e3), k.perStep);
}

void mlir::npu::printMultiChip(llvm::raw_ostream &os,
                               const MultiChipComparison &cmp) {
  static const char *sideName[2] = {"TPU", "GPU"};
  os << "one step of each system, split each side's best way "
        "(docs/parallelism.md)\n\n";
  const char *row = "{0,-4} {1,-16} {2,6} {3,-8} {4,7} {5,8} {6,-18} {7,11} "
                    "{8,9} {9,11} {10,10} {11,9} {12,14} {13,9}\n";
  os << llvm::formatv(row, "side", "system", "chips", "chip", "batch", "tokens",
                      "best split", "compute_ms", "comm_ms", "exposed_ms",
                      "shared_ms", "step_ms", "tokens/s/chip", "HBM_GB");
  for (int s = 0; s < 2; ++s) {
    const MultiChipSide &side = cmp.side[s];
    const SplitStep &best = side.candidates[side.best];
    os << llvm::formatv(
        row, sideName[s], side.systemName, side.chips, side.chip, side.batch,
        side.globalTokens, best.split.str(), num(best.computeSeconds * 1e3),
        num(best.commSeconds * 1e3), num(best.exposedSeconds * 1e3),
        num(best.sharedCoresSeconds * 1e3), num(best.stepSeconds() * 1e3),
        num(best.tokensPerSecondPerChip), num(best.hbmNeededBytes / 1e9));
  }
  for (int s = 0; s < 2; ++s) {
    const MultiChipSide &side = cmp.side[s];
    os << "\n"
       << sideName[s] << "-like, " << side.systemName << ": the collectives of "
       << side.candidates[side.best].split.str() << "\n";
    for (const StepCollective &c : side.candidates[side.best].collectives)
      os << llvm::formatv("  {0,-14} over {1,-6} ({2} chips): V {3} bytes x "
                          "{4} per step, {5} us each = {6} ms, {7} ms "
                          "exposed{8}\n",
                          c.what(), c.axes, c.chips, num(c.bytes), c.perStep,
                          num(c.seconds * 1e6), num(c.stepSeconds() * 1e3),
                          num(c.exposedSeconds * 1e3),
                          c.overlapped ? "" : " (on the compute stream)");
    printPerKernel(os, side.candidates[side.best]);
    if (side.candidates[side.best].sharedCoresSeconds > 0)
      os << llvm::formatv(
          "  the overlapped kernels hold cores: compute "
          "beside them is {0} ms longer\n",
          num(side.candidates[side.best].sharedCoresSeconds * 1e3));
    const SplitStep &best = side.candidates[side.best];
    os << llvm::formatv("  per chip: weights {0} GB, KV cache {1} GB, "
                        "activations {2} GB\n",
                        num(best.parameterBytes / 1e9),
                        num(best.kvCacheBytes / 1e9),
                        num(best.activationBytes / 1e9));
    os << sideName[s] << "-like candidates:\n";
    for (const SplitStep &step : side.candidates) {
      if (!step.infeasible.empty())
        os << "  " << step.split.str() << ": " << step.infeasible << "\n";
      else
        os << llvm::formatv(
            "  {0}: step {1} ms (compute {2} with bubble {7}, exposed {3}, "
            "cores shared {4}), {5} tokens/s/chip, {6} GB HBM\n",
            step.split.str(), num(step.stepSeconds() * 1e3),
            num(step.computeSeconds * 1e3), num(step.exposedSeconds * 1e3),
            num(step.sharedCoresSeconds * 1e3),
            num(step.tokensPerSecondPerChip), num(step.hbmNeededBytes / 1e9),
            num(step.bubbleSeconds * 1e3));
    }
  }
}

static llvm::json::Value stepToJSON(const SplitStep &step) {
  llvm::json::Object o{{"split", step.split.str()},
                       {"dp", step.split.dp},
                       {"tp", step.split.tp},
                       {"ep", step.split.ep},
                       {"pp", step.split.pp}};
  if (!step.infeasible.empty()) {
    o["infeasible"] = step.infeasible;
    return llvm::json::Value(std::move(o));
  }
  llvm::json::Array collectives;
  for (const StepCollective &c : step.collectives)
    collectives.push_back(llvm::json::Object{
        {"what", c.what()},
        {"collective", parallel::stringifyCollectiveKind(c.kind).str()},
        {"chips", c.chips},
        {"axes", c.axes},
        {"bytes", c.bytes},
        {"per_step", c.perStep},
        {"seconds", c.seconds},
        {"overlapped", c.overlapped},
        {"exposed_seconds", c.exposedSeconds},
        {"core_fraction", c.coreFraction}});
  llvm::json::Array perKernel;
  for (const KernelComm &k : step.perKernel)
    perKernel.push_back(
        llvm::json::Object{{"function", k.function},
                           {"kernel", k.kernel},
                           {"kernel_seconds", k.kernelNs * 1e-9},
                           {"collective", k.what},
                           {"seconds", k.ns * 1e-9},
                           {"hidden_seconds", k.overlappedNs * 1e-9},
                           {"exposed_seconds", k.exposedNs * 1e-9},
                           {"per_step", k.perStep}});
  o["compute_seconds"] = step.computeSeconds;
  o["comm_seconds"] = step.commSeconds;
  o["exposed_seconds"] = step.exposedSeconds;
  o["bubble_seconds"] = step.bubbleSeconds;
  o["shared_cores_seconds"] = step.sharedCoresSeconds;
  o["step_seconds"] = step.stepSeconds();
  o["tokens_per_second_per_chip"] = step.tokensPerSecondPerChip;
  o["hbm_needed_bytes"] = step.hbmNeededBytes;
  o["parameter_bytes"] = step.parameterBytes;
  o["kv_cache_bytes"] = step.kvCacheBytes;
  o["activation_bytes"] = step.activationBytes;
  o["collectives"] = std::move(collectives);
  o["micro_batches_in_flight"] = step.inFlight;
  o["per_kernel"] = std::move(perKernel);
  return llvm::json::Value(std::move(o));
}

llvm::json::Value mlir::npu::multiChipToJSON(const MultiChipComparison &cmp) {
  llvm::json::Object root{{"schema", "npu-compare-systems/1"}};
  static const char *key[2] = {"tpu", "gpu"};
  for (int s = 0; s < 2; ++s) {
    const MultiChipSide &side = cmp.side[s];
    llvm::json::Array candidates;
    for (const SplitStep &step : side.candidates)
      candidates.push_back(stepToJSON(step));
    root[key[s]] =
        llvm::json::Object{{"system", side.systemName},
                           {"chips", side.chips},
                           {"chip", side.chip},
                           {"batch", side.batch},
                           {"global_tokens", side.globalTokens},
                           {"best", stepToJSON(side.candidates[side.best])},
                           {"candidates", std::move(candidates)}};
  }
  return llvm::json::Value(std::move(root));
}

/// One side's best split as trace events: the layers in @model's order, each
/// its steady-state schedule; pid = the side, one tid per track.
static void writeSideTrace(JsonStream &js, const MultiChipSide &side, int pid) {
  const SplitStep &step = side.candidates[side.best];
  auto metadata = [&](StringRef what, std::optional<int> tid, StringRef name) {
    llvm::json::Object event{{"ph", "M"},
                             {"name", what},
                             {"pid", pid},
                             {"args", llvm::json::Object{{"name", name}}}};
    if (tid)
      event["tid"] = *tid;
    js.value(std::move(event));
  };
  llvm::StringMap<int> tids;
  auto tid = [&](StringRef track) {
    auto inserted = tids.try_emplace(track, int(tids.size()));
    if (inserted.second)
      metadata("thread_name", inserted.first->second, track);
    return inserted.first->second;
  };
  auto slice = [&](StringRef track, StringRef name, StringRef cat,
                   double startNs, double durNs) {
    int t = tid(track);
    js.value(llvm::json::Object{{"ph", "X"},
                                {"name", name},
                                {"cat", cat},
                                {"pid", pid},
                                {"tid", t},
                                {"ts", startNs / 1e3},
                                {"dur", durNs / 1e3}});
  };
  metadata("process_name", std::nullopt,
           (pid == 0 ? "TPU-like " : "GPU-like ") + side.systemName + " " +
               step.split.str() + ", one chip");
  tid("compute");
  double offsetNs = 0;
  for (int index : step.layers.calls) {
    const LayerProfile &layer = step.layers.layers[index];
    const LayerSchedule &schedule = step.schedules[index];
    for (const ScheduleEvent &e : schedule.events)
      slice(e.track, e.name, layer.function, offsetNs + e.startNs, e.durNs);
    offsetNs += schedule.layerNs;
  }
  // A pipeline stage's send of its micro-batch's residual to the next
  // stage, after its last layer (beside the next micro-batch's compute).
  for (const StepCollective &c : step.collectives)
    if (c.role == CollectiveRole::PpSend)
      slice(c.track(), c.what(), "send", offsetNs, c.microBatchSeconds * 1e9);
}

LogicalResult mlir::npu::writeMultiChipTraces(const MultiChipComparison &cmp,
                                              StringRef dir, Location loc) {
  if (failed(createOutputDirectory(dir, loc)))
    return failure();
  static const char *file[2] = {"systems-tpu-trace.json",
                                "systems-gpu-trace.json"};
  for (int s = 0; s < 2; ++s) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, file[s]);
    // A non-finite time fails the trace (JsonStream::finish), which is then
    // not written.
    LogicalResult written = success();
    LogicalResult staged = writeOutputFile(
        path,
        [&](llvm::raw_ostream &os) {
          JsonStream js(os, 0);
          js.object([&] {
            js.attribute("displayTimeUnit", "ns");
            js.attributeArray("traceEvents",
                              [&] { writeSideTrace(js, cmp.side[s], s); });
          });
          written = js.finish(loc, "npu-compare --trace-dir");
        },
        loc);
    if (failed(written) || failed(staged))
      return failure();
  }
  return success();
}
