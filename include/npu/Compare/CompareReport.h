//===- CompareReport.h - npu-compare's table and JSON -----------*- C++ -*-===//
//
// The side-by-side report of a Comparison (docs/compare.md): totals, one
// line per function and a block per matched kernel row, sorted by the
// absolute time difference times the function's executions; or the same
// numbers as JSON with the schema `npu-compare/1`.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_COMPARE_COMPAREREPORT_H
#define NPU_COMPARE_COMPAREREPORT_H

#include "npu/Compare/Compare.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::npu {

class JsonStream;

/// Launch overhead side `side` of `cmp` pays for `group`: its kernels'
/// launches (getGpuKernelLaunches: 2 for gated_mlp, 3 for moe_ffn (its dispatch
/// and two grouped GEMMs), else 1) at the GPU-like cost of one launch
/// (`Comparison::gpuLaunchNs`); 0 on the TPU-like side and for a call.
double getLaunchNs(const CompareGroup &group, const Comparison &cmp, int side);

/// The tail of a dispatch: the fraction of the last wave that is filled
/// (waves - floor(waves); 0 when the waves are whole).
double getTailFraction(double waves);

/// Prints the text report; `top` limits the kernel rows (0: all).
void printComparisonText(const Comparison &cmp, llvm::raw_ostream &os,
                         unsigned top = 0);

/// Writes the report as JSON, schema npu-compare/1, a kernel row at a time
/// (JsonStream); `extra` writes more attributes of the top-level object
/// (npu-compare's scenarios) before it closes.
void writeComparisonJSON(
    JsonStream &js, const Comparison &cmp,
    llvm::function_ref<void(JsonStream &)> extra = [](JsonStream &) {});

} // namespace mlir::npu

#endif // NPU_COMPARE_COMPAREREPORT_H
