//===- DeltaSvg.cpp - where the two targets differ most, as bars ----------===//

#include "Svg.h"
#include "npu/Compare/CompareSvg.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::npu;

std::string mlir::npu::renderDeltaSvg(const Comparison &cmp, unsigned maxBars) {
  std::vector<const CompareRow *> rows = cmp.rankedKernelRows();
  if (rows.size() > maxBars)
    rows.resize(maxBars);
  std::string title =
      llvm::formatv("time difference per kernel x calls: {0} (TPU-like) "
                    "minus {1} (GPU-like)",
                    cmp.target[0].getName(), cmp.target[1].getName())
          .str();
  const double labelRight = 470, zero = 720, half = 200, barH = 14, pitch = 20,
               top = 60;
  double height = top + pitch * double(rows.size()) + 40;
  svg::Canvas c(1000, height, title);
  c.text(10, 22, title, "title", "start", 14);
  c.text(10, 40,
         "right (red): the TPU-like target is slower; left (blue): the "
         "GPU-like target is slower; in us per run of @" +
             cmp.entry,
         "caption", "start", 10);
  double scale = 0;
  for (const CompareRow *r : rows)
    scale = std::max(scale, std::fabs(r->weightedDeltaNs()));
  if (scale <= 0)
    scale = 1;
  double y = top;
  for (const CompareRow *r : rows) {
    double d = r->weightedDeltaNs();
    double w = std::max(0.5, std::fabs(d) / scale * half);
    std::string label = r->side[r->side[0].empty() ? 1 : 0].label();
    if (label.size() > 56)
      label = label.substr(0, 53) + "...";
    std::string text =
        llvm::formatv("@{0} x{1}: {2}", r->function, r->calls, label).str();
    c.text(labelRight, y + barH - 3, text, "name", "end", 10);
    c.rect(d >= 0 ? zero : zero - w, y, w, barH, "delta",
           d >= 0 ? "#d62728" : "#1f77b4",
           llvm::formatv("{0}: tpu - gpu = {1:f3} us x {2} = {3:f3} us",
                         r->side[0].label(), r->deltaNs() / 1e3, r->calls,
                         d / 1e3)
               .str());
    c.text(d >= 0 ? zero + w + 4 : zero - w - 4, y + barH - 3,
           llvm::formatv("{0:f1}", d / 1e3).str(), "value",
           d >= 0 ? "start" : "end", 9);
    y += pitch;
  }
  c.line(zero, top - 6, zero, y, "axis", "black");
  return c.finish();
}
