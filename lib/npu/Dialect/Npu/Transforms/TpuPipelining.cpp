//===- TpuPipelining.cpp - npu-tpu-double-buffer's handoffs ---------------===//
//
// What npu-tpu-double-buffer issues one iteration ahead besides a loop's own
// loads: the first loads of its inner pipelined loops (handoffs) and, in a
// loop whose trip count is known only at run time, its row gathers; and
// the predication of such stage-0 ops.
//
//===----------------------------------------------------------------------===//

#include "TpuPipelining.h"
#include "TpuRowDmas.h"

#include "npu/Analysis/SramLiveness.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::tpu_pipeline;

/// Whether some op in `loop` may write the buffer `root` (unknown ops: yes).
bool tpu_pipeline::loopMayWrite(scf::ForOp loop, Value root) {
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    return mayWriteBuffer(op, root) ? WalkResult::interrupt()
                                    : WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// The ops of the body `dma` needs (its backward slice in the body); fails
/// if it depends on a loop-carried value. `dma` may be a loop of row copies
/// (a gather prefetched with the handoffs): what its nested ops use counts
/// as its own operands; no other op of the slice may have regions.
LogicalResult tpu_pipeline::collectSlice(scf::ForOp loop, Operation *dma,
                                         llvm::SetVector<Operation *> &slice) {
  SmallVector<Operation *> worklist{dma};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!slice.insert(op))
      continue;
    if (op->getNumRegions() != 0 && op != dma)
      return failure();
    SmallVector<Value> used;
    op->walk([&](Operation *nested) {
      llvm::append_range(used, nested->getOperands());
    });
    for (Value operand : used) {
      if (llvm::is_contained(loop.getRegionIterArgs(), operand))
        return failure();
      Operation *def = operand.getDefiningOp();
      if (def && def->getBlock() == loop.getBody())
        worklist.push_back(def);
    }
  }
  return success();
}

/// Whether `a` and `b` are views of one buffer that provably do not
/// overlap: unit-strided subviews of the same value whose static ranges
/// are apart along some dim (the row bands of a tile).
static bool disjointViews(Value a, Value b) {
  auto va = a.getDefiningOp<memref::SubViewOp>();
  auto vb = b.getDefiningOp<memref::SubViewOp>();
  if (!va || !vb || va.getSource() != vb.getSource() || !va.hasUnitStride() ||
      !vb.hasUnitStride())
    return false;
  for (auto [oa, sa, ob, sb] :
       llvm::zip(va.getMixedOffsets(), va.getMixedSizes(), vb.getMixedOffsets(),
                 vb.getMixedSizes())) {
    std::optional<int64_t> a0 = getConstantIntValue(oa),
                           an = getConstantIntValue(sa),
                           b0 = getConstantIntValue(ob),
                           bn = getConstantIntValue(sb);
    if (a0 && an && b0 && bn && (*a0 + *an <= *b0 || *b0 + *bn <= *a0))
      return true;
  }
  return false;
}

/// Whether `op` or an op nested in it, other than `except` and views, has
/// an operand in the buffer `root` (reads or writes it); with `apart`, an
/// operand that is a view disjoint from it (disjointViews) does not count.
bool tpu_pipeline::usesBuffer(Operation *op, Value root, Operation *except,
                              Value apart) {
  WalkResult result = op->walk([&](Operation *nested) {
    if (nested == except || isa<ViewLikeOpInterface>(nested))
      return WalkResult::advance();
    for (Value operand : nested->getOperands())
      if (isa<BaseMemRefType>(operand.getType()) &&
          getRootBuffer(operand) == root &&
          !(apart && disjointViews(operand, apart)))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// The loads of `loop` (among its `prefetchable` ones) that hand an inner
/// pipelined loop its first tiles:
/// the prologue loads of an inner kernel loop this pass made (`t`
/// iterations), into slot 0 of its multi-buffered VMEM allocs (`B` slots)
/// that the inner loop's epilogue does not read (it reads slot `t mod B`,
/// that of the last iteration: `t mod B != 0`), and that no loop nested in
/// the inner loop loads into (its epilogue would read every slot). Issued after
/// the inner loop of the previous iteration of `loop`, they load the next
/// tile's first operands while the last inner step computes: a GEMM's K loop
/// starts each output tile with its first tiles on chip, as the cost model's
/// one fill per core assumes.
///
/// With `after` (a loop whose trip count is known only at run time: a MoE's
/// visits), the next iteration's loads are issued after that kernel loop,
/// the body's last, instead: an earlier inner loop's slot 0 is free there
/// whatever its parity, provided nothing after `after` reads it; `after`'s
/// own prologue is handed off only when it is the body's one kernel loop.
static SmallVector<DmaStartOp> findHandoffs(scf::ForOp loop,
                                            ArrayRef<DmaStartOp> prefetchable,
                                            const KernelTrips &kernelTrips,
                                            Operation *after = nullptr) {
  SmallVector<DmaStartOp> handoffs;
  for (auto inner : loop.getBody()->getOps<scf::ForOp>()) {
    auto trips = kernelTrips.find(inner);
    if (trips == kernelTrips.end())
      continue;
    for (Value init : inner.getInitArgs()) {
      auto dma = init.getDefiningOp<DmaStartOp>();
      if (!dma || !llvm::is_contained(prefetchable, dma) || dma.getPredicate())
        continue;
      // The kernel loop's initial tokens are its prologue's loads, of the
      // first iteration: slot 0 of buffers multiBuffer made.
      auto alloc =
          getRootBuffer(dma.getTarget()).getDefiningOp<memref::AllocOp>();
      int64_t slots = alloc.getType().getShape()[0];
      // The slots must be the inner loop's own: a buffer that a loop
      // nested in it cycles through (the K/V tiles of a query block's KV
      // loop, under a query-block loop) has all its slots read by the
      // inner loop's last iteration.
      bool nestedLoads = false;
      inner.getBody()->walk([&](DmaStartOp other) {
        if (other->getParentOp() != inner.getOperation() &&
            getRootBuffer(other.getTarget()) == alloc.getResult())
          nestedLoads = true;
      });
      // `after` itself hands off (with the parity rule) only if it is the
      // body's one kernel loop: an earlier one's prologue is handed off
      // instead, and `after`'s own first loads start during the earlier
      // loop's last step (npu-tpu-issue-loads-early).
      bool parity = !after || inner.getOperation() == after;
      if (after && parity &&
          llvm::any_of(loop.getBody()->getOps<scf::ForOp>(),
                       [&](scf::ForOp other) {
                         return other != inner && kernelTrips.count(other);
                       }))
        continue;
      bool readAfter = false;
      if (after && !parity) {
        if (!inner->isBeforeInBlock(after))
          continue;
        for (Operation *op = after->getNextNode(); op && !readAfter;
             op = op->getNextNode())
          readAfter = usesBuffer(op, alloc.getResult());
      }
      if (slots > 1 && (!parity || trips->second % slots != 0) &&
          !nestedLoads && !readAfter)
        handoffs.push_back(dma);
    }
  }
  return handoffs;
}

/// The last kernel loop this pass made directly in `loop`'s body, or null.
static scf::ForOp lastKernelLoop(scf::ForOp loop,
                                 const KernelTrips &kernelTrips) {
  for (Operation &op : llvm::reverse(loop.getBody()->without_terminator()))
    if (auto inner = dyn_cast<scf::ForOp>(op);
        inner && kernelTrips.count(inner))
      return inner;
  return nullptr;
}

/// The row gathers of `loop` that go with its handoffs: loops of one-row
/// copies (tpu_rows::rowDmaLoop) in its body before `after`, into a static
/// VMEM buffer allocated in the body, reading only what the loop does not
/// write. Issued one iteration ahead into a second copy of that buffer, the
/// next M tile's rows of a MoE's visit loop are gathered while the last
/// inner step of this one computes.
static SmallVector<scf::ForOp> findRowGathers(scf::ForOp loop,
                                              Operation *after) {
  SmallVector<scf::ForOp> gathers;
  for (auto inner : loop.getBody()->getOps<scf::ForOp>()) {
    if (!inner->isBeforeInBlock(after))
      break;
    DmaStartOp dma = tpu_rows::rowDmaLoop(inner);
    if (!dma || !isHbm(dma.getSource().getType()) ||
        !isVmem(dma.getTarget().getType()))
      continue;
    auto alloc =
        getRootBuffer(dma.getTarget()).getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != loop.getBody() ||
        !alloc.getType().hasStaticShape() ||
        loopMayWrite(loop, getRootBuffer(dma.getSource())))
      continue;
    bool readsWritten = false;
    inner.getBody()->walk([&](memref::LoadOp load) {
      readsWritten |= loopMayWrite(loop, getRootBuffer(load.getMemRef()));
    });
    if (!readsWritten)
      gathers.push_back(inner);
  }
  return gathers;
}

/// Whether a stage-0 op of a loop whose trip count is known only at run
/// time can run under a predicate: a DMA takes one; index arithmetic and
/// views need none (a view of a tile that does not exist is made but never
/// accessed). Anything else cannot be predicated.
bool tpu_pipeline::canPredicate(Operation *op) {
  return isa<DmaStartOp>(op) || isMemoryEffectFree(op);
}

/// Whether a stage-0 op of a run-time loop's handoffs can run under a
/// predicate: besides canPredicate's, a scalar load (of the next
/// iteration's table entry, which may not exist) and a row gather, each
/// put under an `scf.if` by predicateStageZero.
static bool canPredicateHandoff(Operation *op) {
  if (auto gather = dyn_cast<scf::ForOp>(op))
    return gather.getNumResults() == 0 && tpu_rows::rowDmaLoop(gather);
  return canPredicate(op) || isa<memref::LoadOp>(op);
}

/// canPredicateHandoff, or a buffer that leaves the loop before it is
/// pipelined (a handoff's or a prefetched gather's).
static bool canPredicateOrHoisted(Operation *op) {
  return isa<memref::AllocOp>(op) || canPredicateHandoff(op);
}

/// Predicates a stage-0 op (the prologue's loads, and in the loop the
/// prefetch of the next tile): a DMA gets `pred` as its predicate (and-ed
/// with one it has); the other ops canPredicate accepts are left as they
/// are.
Operation *tpu_pipeline::predicateStageZero(RewriterBase &rewriter,
                                            Operation *op, Value pred) {
  if (auto dma = dyn_cast<DmaStartOp>(op)) {
    rewriter.setInsertionPoint(dma);
    if (Value old = dma.getPredicate())
      pred = arith::AndIOp::create(rewriter, dma.getLoc(), old, pred);
    rewriter.modifyOpInPlace(dma,
                             [&] { dma.getPredicateMutable().assign(pred); });
    return dma;
  }
  // A scalar load under the predicate (0 where it is false: the value only
  // feeds predicated ops of an iteration that does not exist).
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    rewriter.setInsertionPoint(load);
    Type type = load.getType();
    auto guarded = scf::IfOp::create(
        rewriter, load.getLoc(), pred,
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc, b.clone(*load)->getResults());
        },
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc,
                               arith::ConstantOp::create(
                                   b, loc, cast<TypedAttr>(b.getZeroAttr(type)))
                                   .getResult());
        });
    rewriter.replaceOp(load, guarded);
    return guarded;
  }
  // A row gather under the predicate.
  if (auto gather = dyn_cast<scf::ForOp>(op);
      gather && gather.getNumResults() == 0) {
    rewriter.setInsertionPoint(gather);
    auto guarded = scf::IfOp::create(rewriter, gather.getLoc(), pred,
                                     /*withElseRegion=*/false);
    rewriter.moveOpBefore(gather, guarded.thenBlock()->getTerminator());
    return guarded;
  }
  return canPredicate(op) ? op : nullptr;
}

Handoffs tpu_pipeline::selectHandoffs(scf::ForOp loop,
                                      ArrayRef<DmaStartOp> prefetchable,
                                      const KernelTrips &kernelTrips,
                                      bool dynamic, int64_t tripCount,
                                      bool loadsEmpty, int64_t buffers) {
  Handoffs h;
  // A loop whose trip count is known only at run time (a MoE's visits)
  // hands off after its last kernel loop, under a predicate (the next
  // iteration may not exist), and prefetches its row gathers with them.
  Operation *dynamicAfter =
      dynamic && loadsEmpty && buffers == 2
          ? lastKernelLoop(loop, kernelTrips).getOperation()
          : nullptr;
  if ((!dynamic && tripCount >= 2 && (loadsEmpty || buffers == 2)) ||
      dynamicAfter)
    for (DmaStartOp dma :
         findHandoffs(loop, prefetchable, kernelTrips, dynamicAfter)) {
      llvm::SetVector<Operation *> slice;
      if (failed(collectSlice(loop, dma, slice)) ||
          (dynamic && !llvm::all_of(slice, canPredicateOrHoisted)))
        continue;
      h.dmas.push_back(dma);
      h.slice.insert(slice.begin(), slice.end());
    }
  if (dynamicAfter && !h.dmas.empty()) {
    h.after = dynamicAfter;
    for (scf::ForOp gather : findRowGathers(loop, dynamicAfter)) {
      // Its buffer is hoisted and doubled: the alloc leaves the slice.
      llvm::SetVector<Operation *> slice;
      if (succeeded(collectSlice(loop, gather, slice)) &&
          llvm::all_of(slice, canPredicateOrHoisted))
        h.gathers.push_back(gather);
    }
  }
  // Else every handoff's slice is emitted after the last inner loop it
  // feeds.
  if (!dynamicAfter)
    for (DmaStartOp dma : h.dmas)
      for (Operation *user : dma.getToken().getUsers())
        if (!h.after || h.after->isBeforeInBlock(user))
          h.after = user;
  return h;
}
