//===- CostSum.cpp - adding up #npu.cost ----------------------------------===//

#include "npu/Analysis/CostSum.h"
#include "npu/Analysis/KernelModel.h"

using namespace mlir;
using namespace mlir::npu;

void CostSum::add(CostAttr c, int64_t times) {
  double n = double(times);
  double t = c.getTimeNs().convertToDouble();
  timeNs += n * t;
  computeNs += n * c.getComputeNs().convertToDouble();
  memoryNs += n * c.getMemoryNs().convertToDouble();
  overheadNs += n * c.getOverheadNs().convertToDouble();
  busyMatrixNs += n * t * c.getMatrixUtilization().convertToDouble();
  Count k = Count::fromSigned(times);
  read += Count::fromSigned(c.getHbmReadBytes()) * k;
  written += Count::fromSigned(c.getHbmWriteBytes()) * k;
  flops += Count::fromSigned(c.getFlops()) * k;
  padded += Count::fromSigned(c.getPaddedFlops()) * k;
  onchip = std::max(onchip, c.getOnchipBytes());
  if (auto hit = c.getL2HitRate()) {
    hasL2 = true;
    // Weighted by the kernel's bytes: the hit rate of all accesses.
    double w = n * double(c.getHbmReadBytes() + c.getHbmWriteBytes() + 1);
    l2Weighted += w * hit->convertToDouble();
    l2Weight += w;
  }
  if (auto w = c.getWaves()) {
    hasWaves = true;
    waves += n * w->convertToDouble();
  }
}

std::optional<CostAttr> CostSum::get(MLIRContext *ctx, double makespan) const {
  std::optional<int64_t> r = read.toInt64(), w = written.toInt64(),
                         f = flops.toInt64(), p = padded.toInt64();
  if (!r || !w || !f || !p)
    return std::nullopt;
  CostBound bound = classifyBound(computeNs, memoryNs, overheadNs);
  double util = makespan > 0 ? std::min(1.0, busyMatrixNs / makespan) : 0;
  std::optional<llvm::APFloat> hit, wv;
  if (hasL2)
    hit = llvm::APFloat(l2Weight > 0 ? l2Weighted / l2Weight : 0);
  if (hasWaves)
    wv = llvm::APFloat(waves);
  return CostAttr::get(ctx, llvm::APFloat(makespan), llvm::APFloat(computeNs),
                       llvm::APFloat(memoryNs), llvm::APFloat(overheadNs), *r,
                       *w, onchip, *f, *p, bound, llvm::APFloat(util), hit, wv,
                       /*cross_core_bytes=*/std::nullopt);
}
