//===- ProgramMeasure.h - what a lowered TPU memory program does -*- C++
//-*-===//
//
// Measures a function of the TPU-like memory program (after
// npu-tpu-lower-pipeline): the bytes its DMAs move between HBM and VMEM and
// how many it starts, counted over the loops that run them, and its VMEM
// plan's peak. npu-tpu-check-plan compares these with what the cost model
// claims for the kernel the function was lowered from.
//
// Loops with static bounds are counted exactly: a DMA whose size and
// predicate do not depend on a loop's induction variable counts trip-count
// times; otherwise the loop is enumerated (bounded by an iteration budget).
// A DMA under a loop or branch whose bounds are known only at run time (a
// MoE expert's rows) makes the bytes unmeasurable: the result says why.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_ANALYSIS_PROGRAMMEASURE_H
#define NPU_ANALYSIS_PROGRAMMEASURE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdint>
#include <string>

namespace mlir::npu {

struct ProgramMeasure {
  /// Bytes DMAs copy from HBM into VMEM, and from VMEM into HBM.
  int64_t dmaReadBytes = 0;
  int64_t dmaWriteBytes = 0;
  /// DMAs started (a predicated one only when its predicate holds).
  int64_t dmas = 0;
  /// memref.copy ops left between HBM buffers: bytes read (= written).
  int64_t hbmCopyBytes = 0;
  /// The VMEM plan's peak (`npu.sram_peak`); -1 when the function has none.
  int64_t vmemPeakBytes = -1;
  /// Compute ops (linalg) with an operand in HBM: a TPU-like core computes
  /// on VMEM only, so a program with any is not one it can run. The first
  /// is described in `hbmComputeOp`.
  int64_t hbmComputeOps = 0;
  std::string hbmComputeOp;
  /// Empty when the counts above are exact; otherwise why they are not
  /// (the counts then hold what was counted before the first unknown).
  std::string unmeasured;
};

/// Measures `func`. Enumerates at most `iterationBudget` loop iterations in
/// all; beyond that the result is unmeasured.
ProgramMeasure measureTpuProgram(func::FuncOp func,
                                 int64_t iterationBudget = 10'000'000);

} // namespace mlir::npu

#endif // NPU_ANALYSIS_PROGRAMMEASURE_H
