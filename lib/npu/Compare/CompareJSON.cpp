//===- CompareJSON.cpp - npu-compare's report as JSON (npu-compare/1) -----===//

#include "npu/Analysis/CostReport.h"
#include "npu/Compare/CompareReport.h"
#include "npu/Support/JsonStream.h"
#include "npu/Support/JsonText.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;

static double ns(llvm::APFloat v) { return v.convertToDouble(); }

static const char *kSide[2] = {"tpu", "gpu"};

namespace {
llvm::json::Object targetToJSON(TargetAttr t) {
  llvm::json::Object o{
      {"name", jsonText(t.getName())},
      {"kind", stringifyTargetKind(t.getKind())},
      {"peak_bf16_flop_per_s", ns(t.getPeakBf16FlopPerS())},
      {"hbm_bandwidth_bytes_per_s", ns(t.getHbmBandwidthBytesPerS())},
      {"onchip_sram_bytes", t.getOnChipSramBytes()}};
  if (auto gpu = t.getGpu()) {
    o["launch_overhead_ns"] = ns(gpu.getLaunchOverheadNs());
    o["graph_launch_overhead_ns"] = ns(gpu.getGraphLaunchOverheadNs());
  }
  return o;
}

llvm::json::Value groupToJSON(const CompareGroup &g, const Comparison &cmp,
                              int side) {
  if (g.empty())
    return nullptr;
  llvm::json::Array items;
  for (const CompareItem &i : g.items) {
    llvm::json::Object k = costToJSON(i.cost);
    k["name"] = jsonText(i.label);
    k["tile"] = i.tile;
    k["call"] = i.isCall;
    k["start_ns"] = i.startNs;
    k["end_ns"] = i.endNs;
    if (!i.isCall) {
      k["matrix_flops"] = i.matrixFlops;
      k["padding_flops"] = i.cost.getPaddedFlops() - i.matrixFlops;
      k["launches"] = i.launches;
    }
    items.push_back(std::move(k));
  }
  llvm::json::Object o = costToJSON(g.cost);
  o["label"] = jsonText(g.label());
  o["tile"] = g.tiles();
  o["padding_flops"] = g.paddingFlops();
  o["launch_ns"] = getLaunchNs(g, cmp, side);
  if (auto w = g.cost.getWaves())
    o["tail_fraction"] = getTailFraction(ns(*w));
  o["items"] = std::move(items);
  return o;
}

llvm::json::Object rowToJSON(const CompareRow &r, const Comparison &cmp) {
  llvm::json::Array diff;
  for (const std::string &d : r.differences())
    diff.push_back(jsonText(d));
  llvm::json::Object o{{"call", r.isCall()},
                       {"matched", r.isMatched()},
                       {"delta_ns", r.deltaNs()},
                       {"weighted_delta_ns", r.weightedDeltaNs()},
                       {"differences", std::move(diff)}};
  for (int s = 0; s < 2; ++s)
    o[kSide[s]] = groupToJSON(r.side[s], cmp, s);
  return o;
}
} // namespace

void mlir::npu::writeComparisonJSON(
    JsonStream &js, const Comparison &cmp,
    llvm::function_ref<void(JsonStream &)> extra) {
  js.object([&] {
    js.attribute("schema", "npu-compare/1");
    js.attribute("tpu", targetToJSON(cmp.target[0]));
    js.attribute("gpu", targetToJSON(cmp.target[1]));
    js.attribute("fusion", cmp.fusion);
    js.attribute("gpu_launch", cmp.gpuGraphLaunches ? "graph" : "stream");
    js.attribute("gpu_launch_ns", cmp.gpuLaunchNs);
    js.attribute("entry", jsonText(cmp.entry));
    llvm::json::Array roots;
    for (const std::string &r : cmp.roots)
      roots.push_back(jsonText(r));
    js.attribute("roots", std::move(roots));
    js.attribute("total", llvm::json::Object{
                              {"tpu", costToJSON(cmp.total[0])},
                              {"gpu", costToJSON(cmp.total[1])},
                              {"delta_ns", ns(cmp.total[0].getTimeNs()) -
                                               ns(cmp.total[1].getTimeNs())}});
    // A function's rows one at a time: the report's size grows with the
    // kernels, the memory it takes does not.
    js.attributeArray("functions", [&] {
      for (const CompareFunction &f : cmp.functions)
        js.object([&] {
          double d = ns(f.total[0].getTimeNs()) - ns(f.total[1].getTimeNs());
          js.attribute("name", jsonText(f.name));
          js.attribute("calls", f.calls);
          js.attribute("root", f.isRoot);
          js.attribute("tpu", costToJSON(f.total[0]));
          js.attribute("gpu", costToJSON(f.total[1]));
          js.attribute("delta_ns", d);
          js.attribute("weighted_delta_ns", d * double(f.calls));
          js.attributeArray("rows", [&] {
            for (const CompareRow &r : f.rows)
              js.value(rowToJSON(r, cmp));
          });
        });
    });
    // The ranking refers to rows by function and index.
    js.attributeArray("ranking", [&] {
      for (const CompareRow *r : cmp.rankedKernelRows()) {
        for (const CompareFunction &f : cmp.functions) {
          if (f.name != r->function)
            continue;
          int64_t index = r - f.rows.data();
          js.value(llvm::json::Object{
              {"function", jsonText(f.name)},
              {"row", index},
              {"label", jsonText(r->side[r->side[0].empty() ? 1 : 0].label())},
              {"weighted_delta_ns", r->weightedDeltaNs()}});
        }
      }
    });
    extra(js);
  });
}
