//===- TpuRowDmas.h - loops of one-row copies -----------------*- C++ -*-===//
//
// What npu-tpu-pipeline-row-dmas pipelines and npu-tpu-double-buffer
// prefetches one iteration ahead: a loop that only gathers rows (or, for
// the former, scatters them).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_DIALECT_NPU_TRANSFORMS_TPUROWDMAS_H
#define NPU_LIB_DIALECT_NPU_TRANSFORMS_TPUROWDMAS_H

#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::npu::tpu_rows {

/// The DMA of a loop whose body is address arithmetic, scalar loads and
/// views, then `npu.dma_start` and its `npu.dma_wait`, the start's target a
/// view of a buffer from outside the loop that nothing else in the loop
/// touches, one row per iteration (at the induction variable; or, a scatter,
/// at an index table's entry for the source's row, the induction variable or
/// a clamp of it), and whose static trip count is at least two; null
/// otherwise.
DmaStartOp rowDmaLoop(scf::ForOp loop);

} // namespace mlir::npu::tpu_rows

#endif // NPU_LIB_DIALECT_NPU_TRANSFORMS_TPUROWDMAS_H
