//===- CostReport.h - reading #npu.cost back out of a module ----*- C++ -*-===//
//
// What the reports of modelled cost share: the label of a kernel, its tile
// as text, a cost as JSON (the fields of schema npu-cost/1), how often each
// function is called, and the Chrome trace of the static timeline. Used by
// the npu-report-cost pass and by npu-compare, so that both name kernels and
// write traces the same way.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_ANALYSIS_COSTREPORT_H
#define NPU_ANALYSIS_COSTREPORT_H

#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace mlir::npu {

/// "gemm(rms_norm,matmul)": the kernel's kind and the names of the compute
/// ops of its body, in order.
std::string getKernelLabel(KernelOp kernel);

/// The tile of `op`'s `npu.tiling` as "1x32x64x128", or "-" if it has none,
/// then "/k8" for a TPU GEMM loading its K steps in 8 chunks, or its launch
/// arrangements when not the default (`npu.launch`: "/c4x2g4" cluster 4 x 2
/// and raster group 4, "/s64" 64 KV splits; one per launch, comma-separated,
/// "-" for a default one).
std::string getTileString(Operation *op);

/// The fields of a cost as in npu-cost/1: time_ns, compute_ns, memory_ns,
/// overhead_ns, hbm_read_bytes, hbm_write_bytes, onchip_bytes, flops,
/// padded_flops, bound, matrix_utilization and, if present, l2_hit_rate and
/// waves.
llvm::json::Object costToJSON(CostAttr cost);

/// The cost of a top-level op of a function body: a kernel's `npu.cost`, or
/// for a call the callee's total; null for anything else.
CostAttr getItemCost(Operation *op);

/// Writes the timeline (`npu.slot` of kernels and calls) as a Chrome trace
/// to `path`: one process per root function, its calls on track 1 and the
/// kernels (callees' kernels shifted to the call's start) on track 2, each
/// with its cost as arguments. Emits an error at the module and fails if the
/// file cannot be written.
LogicalResult writeCostTrace(ModuleOp module, StringRef path);

} // namespace mlir::npu

#endif // NPU_ANALYSIS_COSTREPORT_H
