//===- RooflineSvg.cpp - a roofline per target, one dot per kernel --------===//

#include "Svg.h"
#include "npu/Compare/CompareSvg.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::npu;

static double ns(llvm::APFloat v) { return v.convertToDouble(); }

namespace {
struct Dot {
  double intensity, flopPerS;
  CostBound bound;
  std::string tooltip;
};

const char *boundColor(CostBound b) {
  switch (b) {
  case CostBound::Compute:
    return "#d62728";
  case CostBound::Memory:
    return "#1f77b4";
  case CostBound::Overhead:
    return "#7f7f7f";
  }
  return "black";
}
} // namespace

std::string mlir::npu::renderRooflineSvg(const Comparison &cmp,
                                         CompareSide side) {
  int s = int(side);
  TargetAttr target = cmp.target[s];
  double peak = ns(target.getPeakBf16FlopPerS());
  double bw = ns(target.getHbmBandwidthBytesPerS());
  double ridge = peak / bw;

  std::vector<Dot> dots;
  int64_t skipped = 0;
  for (const CompareFunction &f : cmp.functions)
    for (const CompareRow &r : f.rows)
      for (const CompareItem &i : r.side[s].items) {
        if (i.isCall)
          continue;
        double flops = double(i.cost.getFlops());
        double bytes = double(i.cost.getHbmReadBytes()) +
                       double(i.cost.getHbmWriteBytes());
        double t = ns(i.cost.getTimeNs()) * 1e-9;
        if (flops <= 0 || bytes <= 0 || t <= 0) {
          ++skipped;
          continue;
        }
        Dot d{flops / bytes, flops / t, i.cost.getBound(), ""};
        d.tooltip =
            llvm::formatv("@{0}: {1} tile {2}: {3:f2} FLOP/B, "
                          "{4:e3} FLOP/s, {5:f3} us, {6}",
                          f.name, i.label, i.tile, d.intensity, d.flopPerS,
                          t * 1e6, stringifyCostBound(d.bound))
                .str();
        dots.push_back(std::move(d));
      }

  // Axes: decades covering the ridge (x 1/100 .. x 100), the peak and every
  // dot.
  double xmin = ridge / 100, xmax = ridge * 100, ymin = peak / 1e4,
         ymax = peak * 2;
  for (const Dot &d : dots) {
    xmin = std::min(xmin, d.intensity);
    xmax = std::max(xmax, d.intensity);
    ymin = std::min(ymin, d.flopPerS);
    ymax = std::max(ymax, d.flopPerS);
  }
  double xlo = svg::decadeBelow(xmin), xhi = svg::decadeAbove(xmax);
  double ylo = svg::decadeBelow(ymin), yhi = svg::decadeAbove(ymax);
  const double left = 80, right = 700, top = 50, bottom = 430;
  auto X = [&](double x) {
    return left + (std::log10(x) - std::log10(xlo)) /
                      (std::log10(xhi) - std::log10(xlo)) * (right - left);
  };
  auto Y = [&](double y) {
    return bottom - (std::log10(y) - std::log10(ylo)) /
                        (std::log10(yhi) - std::log10(ylo)) * (bottom - top);
  };

  std::string title =
      llvm::formatv("roofline of {0} ({1}-like)", target.getName(),
                    stringifyTargetKind(target.getKind()))
          .str();
  svg::Canvas c(740, 500, title);
  c.text(left, 22, title, "title", "start", 14);
  c.text(left, 38,
         llvm::formatv("peak bf16 {0:e3} FLOP/s, HBM {1:e3} B/s, ridge "
                       "{2:f1} FLOP/B; {3} kernels, {4} without a point "
                       "(no FLOPs or no HBM bytes)",
                       peak, bw, ridge, dots.size(), skipped)
             .str(),
         "caption", "start", 10);
  for (double x = xlo; x <= xhi * 1.0001; x *= 10) {
    c.line(X(x), top, X(x), bottom, "grid", "#dddddd");
    c.text(X(x), bottom + 16, svg::decadeLabel(x), "tick", "middle", 10);
  }
  for (double y = ylo; y <= yhi * 1.0001; y *= 10) {
    c.line(left, Y(y), right, Y(y), "grid", "#dddddd");
    c.text(left - 6, Y(y) + 4, svg::decadeLabel(y), "tick", "end", 10);
  }
  c.line(left, bottom, right, bottom, "axis", "black");
  c.line(left, top, left, bottom, "axis", "black");
  c.text((left + right) / 2, bottom + 36,
         "arithmetic intensity (FLOP / HBM byte)", "label", "middle", 12);
  c.text(20, (top + bottom) / 2, "attained FLOP/s (FLOPs / modelled time)",
         "label", "middle", 12, -90);

  // The roof: the bandwidth slope up to the ridge, then the peak.
  double xstart = std::max(xlo, ylo / bw);
  std::string points = svg::point(X(xstart), Y(std::min(peak, xstart * bw)));
  if (ridge > xstart)
    points += " " + svg::point(X(ridge), Y(peak));
  points += " " + svg::point(X(xhi), Y(peak));
  c.polyline(points, "roof", "black", 2);

  for (const Dot &d : dots)
    c.circle(X(d.intensity), Y(d.flopPerS), 4, "kernel", boundColor(d.bound),
             d.tooltip);

  // Legend: the colours of the bounds.
  double ly = top + 10;
  for (CostBound b :
       {CostBound::Compute, CostBound::Memory, CostBound::Overhead}) {
    c.rect(right - 110, ly - 8, 10, 10, "legend", boundColor(b));
    c.text(right - 95, ly + 1, (stringifyCostBound(b) + "-bound").str(),
           "legend", "start", 10);
    ly += 16;
  }
  return c.finish();
}
