//===- TpuPipelining.h - npu-tpu-double-buffer internals -------*- C++ -*-===//
//
// What npu-tpu-double-buffer's steps share (TpuDoubleBuffer.cpp, the
// pipelining; TpuPipelining.cpp, the handoffs and predication).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_DIALECT_NPU_TRANSFORMS_TPUPIPELINING_H
#define NPU_LIB_DIALECT_NPU_TRANSFORMS_TPUPIPELINING_H

#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::npu::tpu_pipeline {

/// Trip counts of the kernel loops npu-tpu-double-buffer made from loops
/// with a static trip count (their bounds fold only in a later
/// canonicalization).
using KernelTrips = llvm::DenseMap<Operation *, int64_t>;

/// Whether some op in `loop` may write the buffer `root` (unknown ops: yes).
bool loopMayWrite(scf::ForOp loop, Value root);

/// The ops of `loop`'s body that `dma` (a DMA start or a loop of row copies)
/// needs, into `slice`; fails if it depends on a loop-carried value.
LogicalResult collectSlice(scf::ForOp loop, Operation *dma,
                           llvm::SetVector<Operation *> &slice);

/// Whether `op` or an op nested in it, other than `except` and views, has
/// an operand in the buffer `root`; with `apart`, a view provably disjoint
/// from it does not count.
bool usesBuffer(Operation *op, Value root, Operation *except = nullptr,
                Value apart = {});

/// Whether a stage-0 op of a loop with a run-time trip count can run under
/// a predicate as it is (a DMA takes one; pure ops need none).
bool canPredicate(Operation *op);

/// Predicates a stage-0 op (scf::PipeliningOption::predicateFn).
Operation *predicateStageZero(RewriterBase &rewriter, Operation *op,
                              Value pred);

/// What a loop issues one iteration ahead for its inner loops: their first
/// loads (`dmas`, with the ops they need: `slice`), emitted after `after`,
/// and, in a loop with a run-time trip count, its row `gathers`.
struct Handoffs {
  SmallVector<DmaStartOp> dmas;
  llvm::SetVector<Operation *> slice;
  Operation *after = nullptr;
  SmallVector<scf::ForOp> gathers;
};

/// The handoffs of `loop` (its `prefetchable` loads; `loadsEmpty`: it
/// prefetches no load of its own).
Handoffs selectHandoffs(scf::ForOp loop, ArrayRef<DmaStartOp> prefetchable,
                        const KernelTrips &kernelTrips, bool dynamic,
                        int64_t tripCount, bool loadsEmpty, int64_t buffers);

} // namespace mlir::npu::tpu_pipeline

#endif // NPU_LIB_DIALECT_NPU_TRANSFORMS_TPUPIPELINING_H
