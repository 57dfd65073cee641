//===- Report.h - npu-serve's report of one side --------------*- C++ -*-===//
//
// What npu-serve prints for each side: its table's chip and memory, its
// engine and policy, the runs (one per load of a sweep), and when asked the
// interpolation check, the bucket design and every step; as text or as
// JSON (`npu-serve/1`, docs/serving.md).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SERVE_REPORT_H
#define NPU_SERVE_REPORT_H

#include "npu/Serve/CompiledTable.h"
#include "npu/Serve/Metrics.h"

namespace mlir::npu::serve {

/// One side of a run: its table, its engine, and what it delivered.
struct SideRun {
  CostTable table;
  bool continuous = false;
  ContinuousPolicy cpolicy;
  StaticPolicy spolicy;
  std::vector<CurvePoint> curve;
  SimResult last;                   ///< the run at --rate (or the sweep's last)
  DisaggregatedPlan split{0, 0};    ///< prefillChips = 0: not disaggregated
  std::vector<BucketChoice> design; ///< --design-buckets
  std::vector<InterpolationCheck> checks; ///< --check-interpolation
};

/// Runs `trace` through the side's engine (disaggregated when its split
/// says so); `recordSteps` keeps every step.
llvm::Expected<SimResult>
simulateSide(const SideRun &s, llvm::ArrayRef<Request> trace, bool recordSteps);

/// --design-buckets on a static side: designBuckets over its table, then
/// the best design becomes its policy.
llvm::Error designSide(SideRun &s, llvm::ArrayRef<Request> trace,
                       int64_t maxPrograms, const Slo &slo);

/// Chips the side runs on (prefill and decode ones when disaggregated).
int64_t chipsOf(const SideRun &s);
/// Its metrics: per chip of all its chips, busy share per instance.
Metrics sideMetrics(const SimResult &run, const SideRun &s, const Slo &slo);

/// The text report; `steps`: every step and request of the last run.
void printSideRun(llvm::raw_ostream &os, const SideRun &s, const Slo &slo,
                  bool steps);

llvm::json::Array sideRunsToJSON(const std::vector<SideRun> &sides);

} // namespace mlir::npu::serve

#endif // NPU_SERVE_REPORT_H
