//===- CompareSvg.h - npu-compare's pictures as SVG -------------*- C++ -*-===//
//
// Three pictures of a Comparison, each a standalone SVG document written as
// text (docs/compare.md):
//  * a roofline per target: log-log, arithmetic intensity (FLOP / HBM byte)
//    against attained FLOP/s, the roof min(peak bf16, intensity x HBM
//    bandwidth), one dot per kernel of every function;
//  * the two timelines of the entry function on a shared time axis, one bar
//    per top-level kernel or call;
//  * the time difference (TPU minus GPU, times the function's executions)
//    of the kernel rows with the largest ones, as horizontal bars.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_COMPARE_COMPARESVG_H
#define NPU_COMPARE_COMPARESVG_H

#include "npu/Compare/Compare.h"

#include <string>

namespace mlir::npu {

/// The roofline of side `side`. Kernels with no FLOPs, no HBM bytes or no
/// time have no point on it (they are counted in the picture's caption).
std::string renderRooflineSvg(const Comparison &cmp, CompareSide side);

/// The entry function's timelines, TPU above GPU.
std::string renderTimelineSvg(const Comparison &cmp);

/// The `maxBars` kernel rows with the largest |delta| x calls.
std::string renderDeltaSvg(const Comparison &cmp, unsigned maxBars = 30);

/// Writes roofline-tpu.svg, roofline-gpu.svg, timeline.svg and delta.svg
/// into `dir` (created if missing). Emits at `loc` and fails on an I/O
/// error.
LogicalResult writeComparisonSvgs(const Comparison &cmp, StringRef dir,
                                  Location loc);

/// Writes tpu-trace.json and gpu-trace.json (Chrome traces of the two
/// compiled modules, as npu-report-cost's trace option) into `dir`.
LogicalResult writeComparisonTraces(const Comparison &cmp, StringRef dir,
                                    Location loc);

} // namespace mlir::npu

#endif // NPU_COMPARE_COMPARESVG_H
