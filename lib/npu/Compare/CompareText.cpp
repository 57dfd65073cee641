//===- CompareText.cpp - npu-compare's side-by-side table -----------------===//

#include "npu/Compare/CompareReport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::npu;

static double ns(llvm::APFloat v) { return v.convertToDouble(); }

static const char *kSide[2] = {"tpu", "gpu"};

double mlir::npu::getLaunchNs(const CompareGroup &group, const Comparison &cmp,
                              int side) {
  if (side != int(CompareSide::Gpu))
    return 0;
  double total = 0;
  for (const CompareItem &i : group.items)
    total += cmp.gpuLaunchNs * double(i.launches);
  return total;
}

double mlir::npu::getTailFraction(double waves) {
  return waves - std::floor(waves);
}

namespace {
std::string signedUs(double ns) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format("%+.3f", ns / 1e3);
  return s;
}

std::string optReal(std::optional<llvm::APFloat> v) {
  if (!v)
    return "-";
  return llvm::formatv("{0:f3}", ns(*v)).str();
}

/// One line of the totals table: a field on both sides and their difference.
void totalLine(llvm::raw_ostream &os, StringRef name, double tpu, double gpu,
               bool isTime) {
  if (isTime)
    os << llvm::formatv("  {0,-22} {1,18:f3} {2,18:f3} {3,18}\n", name,
                        tpu / 1e3, gpu / 1e3, signedUs(tpu - gpu));
  else
    os << llvm::formatv("  {0,-22} {1,18} {2,18} {3,18}\n", name, int64_t(tpu),
                        int64_t(gpu), int64_t(tpu - gpu));
}

void printTotals(const Comparison &cmp, llvm::raw_ostream &os) {
  CostAttr t = cmp.total[0], g = cmp.total[1];
  std::string what = "total (one run of @" + llvm::join(cmp.roots, ", @") + ")";
  os << llvm::formatv("{0,-24} {1,18} {2,18} {3,18}\n", what, "tpu", "gpu",
                      "tpu - gpu");
  totalLine(os, "time_us", ns(t.getTimeNs()), ns(g.getTimeNs()), true);
  totalLine(os, "compute_us", ns(t.getComputeNs()), ns(g.getComputeNs()), true);
  totalLine(os, "memory_us", ns(t.getMemoryNs()), ns(g.getMemoryNs()), true);
  totalLine(os, "overhead_us", ns(t.getOverheadNs()), ns(g.getOverheadNs()),
            true);
  totalLine(os, "hbm_read_B", double(t.getHbmReadBytes()),
            double(g.getHbmReadBytes()), false);
  totalLine(os, "hbm_write_B", double(t.getHbmWriteBytes()),
            double(g.getHbmWriteBytes()), false);
  totalLine(os, "onchip_B", double(t.getOnchipBytes()),
            double(g.getOnchipBytes()), false);
  totalLine(os, "flops", double(t.getFlops()), double(g.getFlops()), false);
  totalLine(os, "padded_flops", double(t.getPaddedFlops()),
            double(g.getPaddedFlops()), false);
  os << llvm::formatv("  {0,-22} {1,18:f3} {2,18:f3}\n", "matrix_utilization",
                      ns(t.getMatrixUtilization()),
                      ns(g.getMatrixUtilization()));
  os << llvm::formatv("  {0,-22} {1,18} {2,18}\n", "bound",
                      stringifyCostBound(t.getBound()),
                      stringifyCostBound(g.getBound()));
  os << llvm::formatv("  {0,-22} {1,18} {2,18}\n", "l2_hit_rate",
                      optReal(t.getL2HitRate()), optReal(g.getL2HitRate()));
  double ratio =
      ns(g.getTimeNs()) > 0 ? ns(t.getTimeNs()) / ns(g.getTimeNs()) : 0.0;
  os << llvm::formatv("  {0,-22} {1,18:f3}\n", "time tpu / gpu", ratio);
  os << "  (onchip_B: tpu = largest SRAM working set of a kernel, gpu = "
        "largest L2 traffic of a kernel)\n\n";
}

void printFunctions(const Comparison &cmp, llvm::raw_ostream &os) {
  std::vector<const CompareFunction *> fs;
  for (const CompareFunction &f : cmp.functions)
    fs.push_back(&f);
  auto weighted = [](const CompareFunction *f) {
    return std::fabs(ns(f->total[0].getTimeNs()) -
                     ns(f->total[1].getTimeNs())) *
           double(f->calls);
  };
  std::stable_sort(fs.begin(), fs.end(),
                   [&](const CompareFunction *a, const CompareFunction *b) {
                     return weighted(a) > weighted(b);
                   });
  os << "functions (sorted by |delta| x calls; delta = tpu - gpu)\n";
  os << llvm::formatv("  {0,-32} {1,6} {2,14} {3,14} {4,14} {5,16} {6,-9} "
                      "{7,-9}\n",
                      "function", "calls", "tpu_us", "gpu_us", "delta_us",
                      "x_calls_us", "tpu", "gpu");
  for (const CompareFunction *f : fs) {
    double d = ns(f->total[0].getTimeNs()) - ns(f->total[1].getTimeNs());
    os << llvm::formatv(
        "  {0,-32} {1,6} {2,14:f3} {3,14:f3} {4,14} {5,16} {6,-9} {7,-9}\n",
        "@" + f->name, f->calls, ns(f->total[0].getTimeNs()) / 1e3,
        ns(f->total[1].getTimeNs()) / 1e3, signedUs(d),
        signedUs(d * double(f->calls)),
        stringifyCostBound(f->total[0].getBound()),
        stringifyCostBound(f->total[1].getBound()));
  }
  os << "\n";
}

void printSideLine(llvm::raw_ostream &os, const Comparison &cmp, int s,
                   const CompareGroup &g) {
  if (g.empty()) {
    os << llvm::formatv("    {0,-4} (no kernel)\n", kSide[s]);
    return;
  }
  CostAttr c = g.cost;
  std::string waves = "-", tail = "-", launch = "-";
  if (auto w = c.getWaves()) {
    waves = llvm::formatv("{0:f3}", ns(*w)).str();
    tail = llvm::formatv("{0:f3}", getTailFraction(ns(*w))).str();
  }
  if (cmp.target[s] && cmp.target[s].getGpu())
    launch = llvm::formatv("{0:f3}", getLaunchNs(g, cmp, s) / 1e3).str();
  os << llvm::formatv(
      "    {0,-4} {1,12:f3} {2,11:f3} {3,11:f3} {4,11:f3} "
      "{5,-8} {6,14} {7,14} {8,12} {9,5:f3} {10,-18} {11,14} "
      "{12,6} {13,6} {14,5} {15,9}  {16}\n",
      kSide[s], ns(c.getTimeNs()) / 1e3, ns(c.getComputeNs()) / 1e3,
      ns(c.getMemoryNs()) / 1e3, ns(c.getOverheadNs()) / 1e3,
      stringifyCostBound(c.getBound()), c.getHbmReadBytes(),
      c.getHbmWriteBytes(), c.getOnchipBytes(), ns(c.getMatrixUtilization()),
      g.tiles(), g.paddingFlops(), optReal(c.getL2HitRate()), waves, tail,
      launch, g.label());
}

void printKernels(const Comparison &cmp, llvm::raw_ostream &os, unsigned top) {
  std::vector<const CompareRow *> rows = cmp.rankedKernelRows();
  os << "kernels (sorted by |delta| x calls; onchip_B: tpu = SRAM working "
        "set, gpu = L2 traffic; pad_flops = padded_flops - matrix flops)\n";
  os << llvm::formatv("    {0,-4} {1,12} {2,11} {3,11} {4,11} {5,-8} {6,14} "
                      "{7,14} {8,12} {9,5} {10,-18} {11,14} {12,6} {13,6} "
                      "{14,5} {15,9}  {16}\n",
                      "side", "time_us", "compute_us", "memory_us",
                      "overhead_us", "bound", "hbm_read_B", "hbm_write_B",
                      "onchip_B", "util", "tile", "pad_flops", "l2_hit",
                      "waves", "tail", "launch_us", "kernel");
  unsigned index = 0;
  for (const CompareRow *r : rows) {
    if (top && index >= top) {
      os << "  ... " << rows.size() - top << " more rows (--top=0 shows all)\n";
      break;
    }
    ++index;
    std::vector<std::string> diff = r->differences();
    os << llvm::formatv("#{0} @{1} x{2}: delta {3} us, x{2} = {4} us", index,
                        r->function, r->calls, signedUs(r->deltaNs()),
                        signedUs(r->weightedDeltaNs()));
    if (!diff.empty())
      os << "; differs: " << llvm::join(diff, ", ");
    os << "\n";
    for (int s = 0; s < 2; ++s)
      printSideLine(os, cmp, s, r->side[s]);
  }
}
} // namespace

void mlir::npu::printComparisonText(const Comparison &cmp,
                                    llvm::raw_ostream &os, unsigned top) {
  os << "npu-compare: tpu = " << cmp.target[0].getName()
     << " (TPU-like: compiler decides), gpu = " << cmp.target[1].getName()
     << " (GPU-like: hardware decides)";
  if (cmp.fusion != "cost")
    os << "; fusion=" << cmp.fusion;
  os << llvm::formatv("; gpu kernels launched {0} ({1} us each)\n\n",
                      cmp.gpuGraphLaunches ? "from a CUDA graph"
                                           : "on a stream",
                      cmp.gpuLaunchNs / 1e3);
  printTotals(cmp, os);
  printFunctions(cmp, os);
  printKernels(cmp, os, top);
}
