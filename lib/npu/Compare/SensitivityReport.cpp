//===- SensitivityReport.cpp - npu-compare --sensitivity as text/JSON/SVG -===//

#include "Svg.h"
#include "npu/Compare/Sensitivity.h"
#include "npu/Target/Target.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::npu;

namespace {
std::string ratioText(bool valid, double ratio) {
  return valid ? llvm::formatv("{0:f3}", ratio).str() : std::string("invalid");
}

std::string ratioText(const SensitivityVariant &v) {
  return ratioText(v.invalid.empty(), v.times.ratio());
}

std::string valueText(double v) { return target::formatReal(v); }

/// "tpu-v7 faster" / "gb300 faster" for a ratio.
std::string verdict(const Sensitivity &s, double ratio) {
  return s.target[ratio > 1 ? 1 : 0] + " faster";
}

/// The TPU/GPU ratio of kernel kind `kind` in `t` (0: a side without it).
double kindRatio(const SensitivityTimes &t, StringRef kind) {
  for (const auto &[k, ns] : t.perKind)
    if (k == kind)
      return ns.first > 0 && ns.second > 0 ? ns.first / ns.second : 0;
  return 0;
}

/// Per kernel kind, how the three widest fields move its ratio: the kinds
/// that move, most first (at most four per field).
void printKindMoves(const Sensitivity &s, llvm::raw_ostream &os) {
  double base = s.base.ratio();
  unsigned shown = 0;
  for (const SensitivityRow &r : s.rows) {
    if (shown == 3 || r.swing(base) <= 0)
      break;
    ++shown;
    if (shown == 1)
      os << "per kernel kind, ratio tpu/gpu at x0.5 .. x2 (the kinds that "
            "move, most first):\n";
    std::vector<std::pair<double, std::string>> moves;
    for (const auto &[kind, ns] : s.base.perKind) {
      double b = kindRatio(s.base, kind);
      double lo = r.low.invalid.empty() ? kindRatio(r.low.times, kind) : b;
      double hi = r.high.invalid.empty() ? kindRatio(r.high.times, kind) : b;
      if (b <= 0 || std::fabs(hi - lo) <= 0.005 * b)
        continue;
      moves.push_back({std::fabs(hi - lo),
                       llvm::formatv("{0} {1} .. {2}", kind,
                                     ratioText(r.low.invalid.empty(), lo),
                                     ratioText(r.high.invalid.empty(), hi))
                           .str()});
    }
    llvm::stable_sort(
        moves, [](const auto &a, const auto &b) { return a.first > b.first; });
    if (moves.size() > 4)
      moves.resize(4);
    os << "  " << r.field << " (" << r.target << "): ";
    if (moves.empty())
      os << "no kind moves by more than 0.5%";
    for (const auto &[delta, text] : moves)
      os << (&text == &moves.front().second ? "" : ", ") << text;
    os << "\n";
  }
}

llvm::json::Value timesToJSON(const SensitivityTimes &t) {
  llvm::json::Array kinds;
  for (const auto &[kind, ns] : t.perKind)
    kinds.push_back(llvm::json::Object{
        {"kind", kind},
        {"tpu_ns", ns.first},
        {"gpu_ns", ns.second},
        {"ratio", ns.second > 0 ? ns.first / ns.second : 0.0}});
  return llvm::json::Object{{"tpu_ns", t.ns[0]},
                            {"gpu_ns", t.ns[1]},
                            {"ratio", t.ratio()},
                            {"per_kind", std::move(kinds)}};
}

llvm::json::Value variantToJSON(const SensitivityVariant &v) {
  llvm::json::Object o{{"factor", v.factor}, {"value", v.value}};
  if (v.invalid.empty())
    o["times"] = timesToJSON(v.times);
  else
    o["invalid"] = v.invalid;
  return o;
}
} // namespace

void mlir::npu::printSensitivityText(const Sensitivity &s,
                                     llvm::raw_ostream &os) {
  double base = s.base.ratio();
  os << "\nSensitivity: every assumed ([A]) number of the two target files "
        "halved and doubled, one at a time\n";
  os << llvm::formatv("base: {0} {1:f3} us, {2} {3:f3} us, ratio tpu/gpu "
                      "{4:f3} ({5})\n",
                      s.target[0], s.base.ns[0] / 1e3, s.target[1],
                      s.base.ns[1] / 1e3, base, verdict(s, base));
  os << llvm::formatv("{0,-42} {1,-16} {2,12} {3,10} {4,10} {5,8}  {6}\n",
                      "field", "target", "value", "ratio x0.5", "ratio x2",
                      "swing", "flips");
  std::vector<const SensitivityRow *> flippers;
  for (const SensitivityRow &r : s.rows) {
    os << llvm::formatv("{0,-42} {1,-16} {2,12} {3,10} {4,10} {5,8:f3}  {6}\n",
                        r.field, r.target, valueText(r.value), ratioText(r.low),
                        ratioText(r.high), r.swing(base),
                        r.flips(base) ? "yes" : "-");
    if (r.flips(base))
      flippers.push_back(&r);
  }
  for (const SensitivityRow &r : s.rows)
    for (const SensitivityVariant *v : {&r.low, &r.high})
      if (!v->invalid.empty())
        os << llvm::formatv("  {0} x{1} ({2}) is not a valid target: {3}\n",
                            r.field, valueText(v->factor), valueText(v->value),
                            v->invalid);
  if (s.rows.empty()) {
    os << "no number of either target is marked as assumed\n";
    return;
  }
  os << "can flip the verdict: ";
  if (flippers.empty())
    os << "none (each assumption alone, within x0.5 .. x2)";
  for (const SensitivityRow *r : flippers)
    os << (r == flippers.front() ? "" : ", ") << r->field << " (" << r->target
       << ")";
  os << "\n";
  printKindMoves(s, os);
}

llvm::json::Value mlir::npu::sensitivityToJSON(const Sensitivity &s) {
  double base = s.base.ratio();
  llvm::json::Array rows;
  for (const SensitivityRow &r : s.rows)
    rows.push_back(
        llvm::json::Object{{"field", r.field},
                           {"target", r.target},
                           {"side", r.side == CompareSide::Tpu ? "tpu" : "gpu"},
                           {"source", r.source},
                           {"value", r.value},
                           {"low", variantToJSON(r.low)},
                           {"high", variantToJSON(r.high)},
                           {"swing", r.swing(base)},
                           {"flips", r.flips(base)}});
  return llvm::json::Object{{"tpu", s.target[0]},
                            {"gpu", s.target[1]},
                            {"base", timesToJSON(s.base)},
                            {"rows", std::move(rows)}};
}

std::string mlir::npu::renderSensitivitySvg(const Sensitivity &s) {
  double base = s.base.ratio();
  std::string title =
      llvm::formatv("sensitivity of the time ratio {0} / {1} to each "
                    "assumed number (x0.5, x2)",
                    s.target[0], s.target[1])
          .str();
  const double left = 430, right = 960, barH = 14, pitch = 22, top = 70;
  double height = top + pitch * double(s.rows.size()) + 50;
  svg::Canvas c(1000, height, title);
  c.text(10, 22, title, "title", "start", 14);
  c.text(10, 40,
         llvm::formatv("log scale; black line: the base ratio {0:f3}; grey "
                       "line: 1, where the verdict flips; blue: the number "
                       "halved, red: doubled",
                       base)
             .str(),
         "caption", "start", 10);
  // The ratio axis: every valid ratio, the base and 1, a decade around.
  double lo = std::min(base, 1.0), hi = std::max(base, 1.0);
  for (const SensitivityRow &r : s.rows)
    for (const SensitivityVariant *v : {&r.low, &r.high})
      if (v->invalid.empty() && v->times.ratio() > 0) {
        lo = std::min(lo, v->times.ratio());
        hi = std::max(hi, v->times.ratio());
      }
  lo = lo > 0 ? lo / 1.25 : 0.1;
  hi *= 1.25;
  auto x = [&](double ratio) {
    return left + (std::log(ratio) - std::log(lo)) /
                      (std::log(hi) - std::log(lo)) * (right - left);
  };
  double y = top;
  for (const SensitivityRow &r : s.rows) {
    c.text(
        left - 8, y + barH - 3,
        llvm::formatv("{0} ({1}) = {2}", r.field, r.target, valueText(r.value))
            .str(),
        "name", "end", 10);
    for (const SensitivityVariant *v : {&r.low, &r.high}) {
      if (!v->invalid.empty() || v->times.ratio() <= 0)
        continue;
      double a = x(base), b = x(v->times.ratio());
      c.rect(std::min(a, b), y, std::max(0.5, std::fabs(b - a)), barH, "bar",
             v == &r.low ? "#1f77b4" : "#d62728",
             llvm::formatv("{0} x{1} = {2}: ratio {3:f3}", r.field,
                           valueText(v->factor), valueText(v->value),
                           v->times.ratio())
                 .str());
    }
    y += pitch;
  }
  c.line(x(base), top - 8, x(base), y, "axis", "black", 1.5);
  c.line(x(1.0), top - 8, x(1.0), y, "verdict", "#555555", 1);
  c.text(x(1.0), top - 12, "1", "value", "middle", 9);
  for (double tick : {lo, hi})
    c.text(x(tick), y + 16, llvm::formatv("{0:f2}", tick).str(), "value",
           "middle", 9);
  return c.finish();
}
