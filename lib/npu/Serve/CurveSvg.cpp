//===- CurveSvg.cpp - throughput against interactivity, as SVG ------------===//
//
// One curve per side: each point a load, at x its tokens/s per user and at
// y its output tokens/s per chip (the shape of InferenceMAX's and vLLM's
// throughput-vs-interactivity plots). Linear axes from 0 with round ticks.
//
//===----------------------------------------------------------------------===//

#include "npu/Serve/Metrics.h"

#include "../Compare/Svg.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir::npu;
using namespace mlir::npu::serve;

namespace {

std::string label(double v) {
  return llvm::formatv("{0}", llvm::format("%g", v)).str();
}

} // namespace

std::string
mlir::npu::serve::curvesToSvg(llvm::StringRef title,
                              llvm::ArrayRef<std::string> names,
                              llvm::ArrayRef<std::vector<CurvePoint>> curves) {
  const double w = 720, h = 440, left = 80, right = 180, top = 40, bottom = 60;
  double maxX = 0, maxY = 0;
  for (const std::vector<CurvePoint> &c : curves)
    for (const CurvePoint &p : c) {
      maxX = std::max(maxX, p.metrics.tokensPerSPerUser);
      maxY = std::max(maxY, p.metrics.outputTokensPerSPerChip);
    }
  // About five ticks on each axis.
  double stepX = svg::niceStep(maxX > 0 ? maxX : 1, 5),
         stepY = svg::niceStep(maxY > 0 ? maxY : 1, 5);
  maxX = stepX * std::ceil((maxX > 0 ? maxX : 1) / stepX);
  maxY = stepY * std::ceil((maxY > 0 ? maxY : 1) / stepY);
  double pw = w - left - right, ph = h - top - bottom;
  auto x = [&](double v) { return left + pw * v / maxX; };
  auto y = [&](double v) { return top + ph * (1 - v / maxY); };
  svg::Canvas canvas(w, h, title);
  canvas.text(left, 24, title, "title", "start", 14);
  for (double v = 0; v <= maxX * (1 + 1e-9); v += stepX) {
    canvas.line(x(v), top, x(v), top + ph, "grid", "#dddddd");
    canvas.text(x(v), top + ph + 16, label(v), "tick", "middle");
  }
  for (double v = 0; v <= maxY * (1 + 1e-9); v += stepY) {
    canvas.line(left, y(v), left + pw, y(v), "grid", "#dddddd");
    canvas.text(left - 6, y(v) + 4, label(v), "tick", "end");
  }
  canvas.text(left + pw / 2, h - 16, "tokens/s per user (1 / mean TPOT)",
              "axis", "middle", 12);
  canvas.text(18, top + ph / 2, "output tokens/s per chip", "axis", "middle",
              12, -90);
  static const char *colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};
  for (size_t c = 0; c < curves.size(); ++c) {
    const char *color = colors[c % 4];
    std::string points;
    for (const CurvePoint &p : curves[c]) {
      double px = x(p.metrics.tokensPerSPerUser),
             py = y(p.metrics.outputTokensPerSPerChip);
      points += svg::point(px, py) + " ";
      canvas.circle(px, py, 3.5, "point", color,
                    llvm::formatv("{0}: {1} req/s: {2} tok/s/user, {3} "
                                  "tok/s/chip, TTFT p50 {4} ms",
                                  names[c], label(p.rate),
                                  label(p.metrics.tokensPerSPerUser),
                                  label(p.metrics.outputTokensPerSPerChip),
                                  label(p.metrics.ttft.p50 * 1e3))
                        .str());
    }
    canvas.polyline(points, "curve", color, 2);
    canvas.rect(w - right + 16, top + 20 * double(c), 12, 12, "legend", color);
    canvas.text(w - right + 34, top + 10 + 20 * double(c), names[c], "legend");
  }
  return canvas.finish();
}
