//===- CostSum.h - adding up #npu.cost ---------------------------*- C++
//-*-===//
//
// Sums of kernel costs: a function's total is its kernels' and calls' costs
// added up (they run one after another on the chip), with the makespan of
// the static schedule as its time.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_ANALYSIS_COSTSUM_H
#define NPU_ANALYSIS_COSTSUM_H

#include "npu/Dialect/Npu/IR/NpuOps.h"

namespace mlir::npu {

/// A running sum of #npu.cost attributes (each added `times` times).
class CostSum {
public:
  void add(CostAttr cost, int64_t times = 1);
  /// The sum as an attribute, with `timeNs` as its time (the schedule's
  /// makespan); nullopt if a count overflowed.
  std::optional<CostAttr> get(MLIRContext *ctx, double timeNs) const;
  double getTimeNs() const { return timeNs; }

private:
  double timeNs = 0, computeNs = 0, memoryNs = 0, overheadNs = 0;
  double busyMatrixNs = 0; ///< sum of utilization x time
  Count read, written, flops, padded;
  int64_t onchip = 0;
  bool hasL2 = false, hasWaves = false;
  double l2Weighted = 0, l2Weight = 0, waves = 0;
};

} // namespace mlir::npu

#endif // NPU_ANALYSIS_COSTSUM_H
