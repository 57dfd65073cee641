//===- TpuIssueLoadsEarly.cpp - the npu-tpu-issue-loads-early pass --------===//
//
// A pipelined loop's first loads (the prologue npu-tpu-double-buffer puts
// before it) are started as early as their block allows: above the ops
// before them that neither touch their buffers nor wait for a DMA that
// does. A MoE expert's M tile gathers its rows (a chain of one-row copies)
// and then starts its F loop; its first weight tiles now load during that
// chain, as the cost model's refill (the larger of the two) prices.
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/SramLiveness.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUTPUISSUELOADSEARLY
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
/// The ops of `dma`'s block that it needs (itself included; upstream's
/// backward slice, in an order that respects their uses); fails if one has
/// a region or memory effects other than an alloc's or a scalar load's
/// (`loaded` collects the roots such loads read).
LogicalResult collectMovable(DmaStartOp dma,
                             llvm::SetVector<Operation *> &slice,
                             llvm::SmallPtrSet<Value, 4> &loaded) {
  Block *block = dma->getBlock();
  BackwardSliceOptions options;
  options.inclusive = true;
  options.omitBlockArguments = true;
  options.filter = [block](Operation *op) { return op->getBlock() == block; };
  if (failed(getBackwardSlice(dma.getOperation(), &slice, options)))
    return failure();
  for (Operation *op : slice) {
    if (op == dma.getOperation())
      continue;
    if (op->getNumRegions() != 0)
      return failure();
    if (auto load = dyn_cast<memref::LoadOp>(op))
      loaded.insert(getRootBuffer(load.getMemRef()));
    else if (!isa<memref::AllocOp>(op) && !isMemoryEffectFree(op))
      return failure();
  }
  return success();
}

/// Adds to `dmas` the DMAs whose token may be `token`: its start, or, for a
/// loop's iteration argument or result, what its initial value and the
/// value yielded in its place may be (`seen`: the loop values followed).
/// False if one is not known here.
bool collectDmas(Value token, SmallVectorImpl<DmaStartOp> &dmas,
                 llvm::SmallPtrSetImpl<Value> &seen) {
  if (!seen.insert(token).second)
    return true;
  scf::ForOp loop;
  unsigned index = 0;
  if (auto arg = dyn_cast<BlockArgument>(token)) {
    loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg == loop.getInductionVar())
      return false;
    index = arg.getArgNumber() - loop.getNumInductionVars();
  } else if (auto dma = token.getDefiningOp<DmaStartOp>()) {
    dmas.push_back(dma);
    return true;
  } else {
    loop = token.getDefiningOp<scf::ForOp>();
    if (!loop)
      return false;
    index = cast<OpResult>(token).getResultNumber();
  }
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  return collectDmas(loop.getInitArgs()[index], dmas, seen) &&
         collectDmas(yield.getOperand(index), dmas, seen);
}

/// Whether the DMAs `wait` may wait for are all known and none touches one
/// of `roots`.
bool waitIsApart(DmaWaitOp wait, ArrayRef<Value> roots) {
  SmallVector<DmaStartOp> dmas;
  llvm::SmallPtrSet<Value, 8> seen;
  if (!collectDmas(wait.getToken(), dmas, seen))
    return false;
  return llvm::none_of(dmas, [&](DmaStartOp dma) {
    return !isVmem(dma.getTarget().getType()) ||
           llvm::is_contained(roots, getRootBuffer(dma.getSource())) ||
           llvm::is_contained(roots, getRootBuffer(dma.getTarget()));
  });
}

/// Whether `op` (not its nested ops) writes `source` or a buffer of
/// `loaded`, or has an operand in `target`.
bool touches(Operation *op, Value source, Value target,
             const llvm::SmallPtrSet<Value, 4> &loaded) {
  if (mayWriteBuffer(op, source) || llvm::any_of(loaded, [&](Value root) {
        return mayWriteBuffer(op, root);
      }))
    return true;
  return llvm::any_of(op->getOperands(), [&](Value operand) {
    return isa<BaseMemRefType>(operand.getType()) &&
           getRootBuffer(operand) == target;
  });
}

/// Whether `dma` (reading `source`, writing `target`, with scalar loads of
/// `loaded`) may start before `op`: `op` and the ops nested in it only move
/// data (DMAs, scalar loads, allocs, fills, loops of them and pure ops:
/// the load then starts beside other transfers, and no buffer's life grows
/// over compute), write none of `source` and `loaded`, do not use
/// `target`, and wait only for DMAs apart from both buffers.
bool canStartBefore(Operation *op, Value source, Value target,
                    const llvm::SmallPtrSet<Value, 4> &loaded) {
  WalkResult result = op->walk([&](Operation *nested) {
    if (auto wait = dyn_cast<DmaWaitOp>(nested))
      return waitIsApart(wait, {source, target}) ? WalkResult::advance()
                                                 : WalkResult::interrupt();
    // Loads only: a store's wait frees its buffer, which a load moved
    // above it would then live beside.
    if (auto other = dyn_cast<DmaStartOp>(nested);
        other && !isVmem(other.getTarget().getType()))
      return WalkResult::interrupt();
    if (!isa<DmaStartOp, memref::LoadOp, memref::AllocOp, linalg::FillOp,
             scf::ForOp, scf::YieldOp>(nested) &&
        !isMemoryEffectFree(nested))
      return WalkResult::interrupt();
    return touches(nested, source, target, loaded) ? WalkResult::interrupt()
                                                   : WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// Whether `loop` is a pipelined loop (it carries DMA tokens).
bool isPipelined(Operation *op) {
  auto loop = dyn_cast<scf::ForOp>(op);
  return loop && llvm::any_of(loop.getInitArgs(), [](Value v) {
           return isa<DmaTokenType>(v.getType());
         });
}

/// Whether `dma` (reading `source`, writing `target`, with scalar loads of
/// `loaded`) may start before `op`, an op between the pipelined loop before
/// it and itself: that loop's peeled last step (its waits and compute) and
/// what follows (an activation). `op` and the ops nested in it compute or
/// wait only, do not use `target`, write none of `source` and `loaded`, and
/// wait only for DMAs apart from both buffers: the load then runs while
/// that step computes, instead of after it with nothing beside it.
bool canStartBeforeStep(Operation *op, Value source, Value target,
                        const llvm::SmallPtrSet<Value, 4> &loaded) {
  WalkResult result = op->walk([&](Operation *nested) {
    if (auto wait = dyn_cast<DmaWaitOp>(nested))
      return waitIsApart(wait, {source, target}) ? WalkResult::advance()
                                                 : WalkResult::interrupt();
    if (isa<DmaStartOp>(nested) ||
        (nested->getNumRegions() != 0 && !isa<linalg::LinalgOp>(nested)))
      return WalkResult::interrupt();
    return touches(nested, source, target, loaded) ? WalkResult::interrupt()
                                                   : WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// Moves the prologue load `dma` of a pipelined loop, with the ops of its
/// block it needs, above every earlier op it may start before; or, if
/// that is further, above the last step of the pipelined loop before it
/// (canStartBeforeStep: a D-tiled gated MLP's down loop loads its first
/// chunk while the gate and up loop's last chunk computes), never above
/// that loop itself.
void issueEarly(DmaStartOp dma) {
  llvm::SetVector<Operation *> slice;
  llvm::SmallPtrSet<Value, 4> loaded;
  if (failed(collectMovable(dma, slice, loaded)))
    return;
  Value source = getRootBuffer(dma.getSource());
  Value target = getRootBuffer(dma.getTarget());
  Operation *before = nullptr;
  llvm::SmallPtrSet<Operation *, 16> passed;
  for (Operation *op = dma->getPrevNode(); op; op = op->getPrevNode()) {
    if (slice.contains(op))
      continue;
    if (!canStartBefore(op, source, target, loaded))
      break;
    // A buffer allocated here is passed only if the ops passed fill it (a
    // chain's rows, an accumulator's zeros): one used only later keeps its
    // place before the load's, as the VMEM planner placed them.
    if (auto alloc = dyn_cast<memref::AllocOp>(op);
        alloc && llvm::none_of(alloc->getUsers(), [&](Operation *user) {
          Operation *at = dma->getBlock()->findAncestorOpInBlock(*user);
          return at && passed.contains(at);
        }))
      break;
    passed.insert(op);
    before = op;
  }
  // The last step of the pipelined loop before, if every op since it may
  // be passed.
  for (Operation *op = dma->getPrevNode(); op; op = op->getPrevNode()) {
    if (slice.contains(op))
      continue;
    if (isPipelined(op)) {
      Operation *after = op->getNextNode();
      while (after != dma.getOperation() && slice.contains(after))
        after = after->getNextNode();
      if (after != dma.getOperation() &&
          (!before || after->isBeforeInBlock(before)))
        before = after;
      break;
    }
    if (!canStartBeforeStep(op, source, target, loaded))
      break;
  }
  if (!before)
    return;
  for (Operation *op : slice)
    if (before->isBeforeInBlock(op))
      op->moveBefore(before);
}

struct NpuTpuIssueLoadsEarlyPass
    : public npu::impl::NpuTpuIssueLoadsEarlyBase<NpuTpuIssueLoadsEarlyPass> {
  void runOnOperation() override {
    SmallVector<DmaStartOp> prologue;
    getOperation().walk([&](scf::ForOp loop) {
      for (Value init : loop.getInitArgs())
        if (auto dma = init.getDefiningOp<DmaStartOp>())
          if (dma->getBlock() == loop->getBlock() &&
              isHbm(dma.getSource().getType()) &&
              isVmem(dma.getTarget().getType()))
            prologue.push_back(dma);
    });
    // Last first: each moves above the ones before it moved, so a loop's
    // first loads keep their order (the first one consumed starts first).
    for (DmaStartOp dma : llvm::reverse(prologue))
      issueEarly(dma);
  }
};
} // namespace
