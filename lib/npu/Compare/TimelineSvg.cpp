//===- TimelineSvg.cpp - the entry function's two timelines ---------------===//

#include "Svg.h"
#include "npu/Compare/CompareSvg.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::npu;

static double ns(llvm::APFloat v) { return v.convertToDouble(); }

namespace {
/// A colour per kind of bar ("gemm", "call @layer"), stable across runs.
const char *colorOf(StringRef label) {
  static const char *palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                  "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                  "#bcbd22", "#17becf"};
  StringRef key = label.take_until([](char c) { return c == '('; });
  uint32_t h = 2166136261u; // FNV-1a
  for (char c : key)
    h = (h ^ uint8_t(c)) * 16777619u;
  return palette[h % 10];
}
} // namespace

std::string mlir::npu::renderTimelineSvg(const Comparison &cmp) {
  const CompareFunction *entry = cmp.getEntry();
  std::string title =
      llvm::formatv("timeline of @{0}: {1} (TPU-like) vs {2} (GPU-like)",
                    cmp.entry, cmp.target[0].getName(), cmp.target[1].getName())
          .str();
  const double left = 60, right = 980, laneH = 40;
  const double laneY[2] = {60, 120};
  svg::Canvas c(1000, 210, title);
  c.text(left, 22, title, "title", "start", 14);
  if (!entry)
    return c.finish();
  double span = std::max(ns(entry->total[0].getTimeNs()),
                         ns(entry->total[1].getTimeNs()));
  if (span <= 0)
    span = 1;
  auto X = [&](double t) { return left + t / span * (right - left); };
  c.text(left, 40,
         llvm::formatv("tpu {0:f3} us, gpu {1:f3} us; one bar per kernel or "
                       "call of @{2} (hover for its cost)",
                       ns(entry->total[0].getTimeNs()) / 1e3,
                       ns(entry->total[1].getTimeNs()) / 1e3, cmp.entry)
             .str(),
         "caption", "start", 10);
  const char *names[2] = {"tpu", "gpu"};
  for (int s = 0; s < 2; ++s) {
    c.text(left - 8, laneY[s] + laneH / 2 + 4, names[s], "lane", "end", 12);
    c.rect(left, laneY[s], right - left, laneH, "lane", "#f4f4f4");
    for (const CompareRow &r : entry->rows)
      for (const CompareItem &i : r.side[s].items) {
        double w = std::max(0.5, X(i.endNs) - X(i.startNs));
        c.rect(X(i.startNs), laneY[s], w, laneH, "bar", colorOf(i.label),
               llvm::formatv("{0} [{1}]: {2:f3} .. {3:f3} us ({4:f3} us, {5})",
                             i.label, i.tile, i.startNs / 1e3, i.endNs / 1e3,
                             (i.endNs - i.startNs) / 1e3,
                             stringifyCostBound(i.cost.getBound()))
                   .str());
      }
  }
  double axisY = laneY[1] + laneH + 10;
  c.line(left, axisY, right, axisY, "axis", "black");
  double step = svg::niceStep(span / 1e3, 5) * 1e3;
  for (double t = 0; t <= span * 1.0001; t += step) {
    c.line(X(t), axisY, X(t), axisY + 5, "tick", "black");
    // Whole microseconds when the step allows, else as many decimals as it
    // has.
    int decimals = std::max(0, int(std::ceil(-std::log10(step / 1e3))));
    c.text(X(t), axisY + 18,
           llvm::formatv("{0}", llvm::format("%.*f", decimals, t / 1e3)).str(),
           "tick", "middle", 10);
  }
  c.text(right, axisY + 34, "time (us)", "label", "end", 11);
  return c.finish();
}
