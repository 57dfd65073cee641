//===- TpuDoubleBuffer.cpp - the npu-tpu-double-buffer pass ---------------===//
//
// Overlaps the DMA of the next tiles with the compute of this one: the VMEM
// buffers a loop loads into are multiplied (memref::multiBuffer) and the loop
// is software-pipelined (scf::pipelineForLoop) with the loads one stage ahead.
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/SramLiveness.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUTPUDOUBLEBUFFER
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
/// Whether some op in `loop` may write the buffer `root` (unknown ops: yes).
bool loopMayWrite(scf::ForOp loop, Value root) {
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (isa<ViewLikeOpInterface, memref::DimOp, memref::LoadOp>(op))
      return WalkResult::advance();
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<BaseMemRefType>(operand.get().getType()) ||
          getRootBuffer(operand.get()) != root)
        continue;
      bool writes = true;
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        writes = linalgOp.isDpsInit(&operand);
      else if (auto copy = dyn_cast<memref::CopyOp>(op))
        writes = operand.get() == copy.getTarget();
      else if (auto dma = dyn_cast<DmaStartOp>(op))
        writes = operand.get() == dma.getTarget();
      if (writes)
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// The ops of the body `dma` needs (its backward slice in the body); fails
/// if it depends on a loop-carried value.
LogicalResult collectSlice(scf::ForOp loop, Operation *dma,
                           llvm::SetVector<Operation *> &slice) {
  SmallVector<Operation *> worklist{dma};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!slice.insert(op))
      continue;
    for (Value operand : op->getOperands()) {
      if (llvm::is_contained(loop.getRegionIterArgs(), operand))
        return failure();
      Operation *def = operand.getDefiningOp();
      if (def && def->getBlock() == loop.getBody())
        worklist.push_back(def);
    }
    if (op->getNumRegions() != 0)
      return failure();
  }
  return success();
}

/// The loads of `loop` that can be issued ahead: HBM -> VMEM DMAs in its
/// body, into a static VMEM alloc of the body used only in the body, from a
/// buffer the loop does not write.
SmallVector<DmaStartOp> findPrefetchable(scf::ForOp loop) {
  SmallVector<DmaStartOp> loads;
  for (auto dma : loop.getBody()->getOps<DmaStartOp>()) {
    if (!isHbm(dma.getSource().getType()) || !isVmem(dma.getTarget().getType()))
      continue;
    auto alloc =
        getRootBuffer(dma.getTarget()).getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != loop.getBody() ||
        !alloc.getType().hasStaticShape())
      continue;
    if (loopMayWrite(loop, getRootBuffer(dma.getSource())))
      continue;
    loads.push_back(dma);
  }
  return loads;
}

enum class Outcome { Skipped, Pipelined, Failed };

/// Whether a stage-0 op of a loop whose trip count is known only at run
/// time can run under a predicate: a DMA takes one; index arithmetic and
/// views need none (a view of a tile that does not exist is made but never
/// accessed). Anything else cannot be predicated.
bool canPredicate(Operation *op) {
  return isa<DmaStartOp>(op) || isMemoryEffectFree(op);
}

/// Predicates a stage-0 op (the prologue's loads, and in the loop the
/// prefetch of the next tile): a DMA gets `pred` as its predicate (and-ed
/// with one it has); the other ops canPredicate accepts are left as they
/// are.
Operation *predicateStageZero(RewriterBase &rewriter, Operation *op,
                              Value pred) {
  if (auto dma = dyn_cast<DmaStartOp>(op)) {
    rewriter.setInsertionPoint(dma);
    if (Value old = dma.getPredicate())
      pred = arith::AndIOp::create(rewriter, dma.getLoc(), old, pred);
    rewriter.modifyOpInPlace(dma,
                             [&] { dma.getPredicateMutable().assign(pred); });
    return dma;
  }
  return canPredicate(op) ? op : nullptr;
}

/// Pipelines `loop` with `original` (its prefetchable loads before the pass
/// ran) one stage ahead. Loads that pipelining an inner loop put into this
/// body (the inner loop's prologue) are not in `original` and are left in
/// the last stage: only the loop that streamed a tile in the input IR
/// prefetches it.
Outcome pipeline(RewriterBase &rewriter, scf::ForOp loop,
                 ArrayRef<DmaStartOp> original, int64_t buffers) {
  if (original.empty())
    return Outcome::Skipped;
  // A loop with a run-time trip count (a causal KV range) is pipelined with
  // predicated prefetches and no peeled epilogue; a static one with fewer
  // iterations than buffers is left alone.
  std::optional<APInt> trips = loop.getStaticTripCount();
  bool dynamic = !trips;
  if (trips && trips->getSExtValue() < buffers)
    return Outcome::Skipped;
  SmallVector<DmaStartOp> loads;
  SmallVector<memref::AllocOp> allocs;
  llvm::SetVector<Operation *> loadSlice; // the loads' slices, before hoisting
  for (DmaStartOp dma : findPrefetchable(loop)) {
    if (!llvm::is_contained(original, dma))
      continue;
    llvm::SetVector<Operation *> slice;
    if (failed(collectSlice(loop, dma, slice)))
      continue;
    loadSlice.insert(slice.begin(), slice.end());
    loads.push_back(dma);
    auto alloc =
        getRootBuffer(dma.getTarget()).getDefiningOp<memref::AllocOp>();
    if (!llvm::is_contained(allocs, alloc))
      allocs.push_back(alloc);
  }
  if (loads.empty())
    return Outcome::Skipped;
  // Predication covers the loads and pure ops only (the buffers are
  // hoisted below): a dynamic loop whose load slice holds anything else
  // stays as it is.
  if (dynamic && llvm::any_of(loadSlice, [&](Operation *op) {
        auto alloc = dyn_cast<memref::AllocOp>(op);
        return !canPredicate(op) &&
               !(alloc && llvm::is_contained(allocs, alloc));
      }))
    return Outcome::Skipped;
  // One buffer per tile in flight: hoist the allocs and multiply them. The
  // override analysis is skipped: each iteration's DMA writes all of the
  // view its compute reads (the staged tile), so no data is carried.
  for (memref::AllocOp alloc : allocs) {
    rewriter.moveOpBefore(alloc, loop);
    if (failed(memref::multiBuffer(rewriter, alloc, buffers,
                                   /*skipOverrideAnalysis=*/true))) {
      loop.emitError("npu-tpu-double-buffer: cannot multi-buffer a VMEM "
                     "tile buffer of this loop");
      return Outcome::Failed;
    }
  }
  // Stage 0: the loads and what they need, now including the buffer index
  // and views multiBuffer added; the last stage: everything else.
  llvm::SetVector<Operation *> slice;
  for (DmaStartOp dma : loads)
    if (failed(collectSlice(loop, dma, slice))) {
      loop.emitError("npu-tpu-double-buffer: a load depends on a "
                     "loop-carried value after multi-buffering");
      return Outcome::Failed;
    }
  unsigned last = static_cast<unsigned>(buffers - 1);
  scf::PipeliningOption options;
  options.getScheduleFn =
      [&](scf::ForOp forOp,
          std::vector<std::pair<Operation *, unsigned>> &schedule) {
        for (Operation &op : forOp.getBody()->without_terminator())
          if (slice.contains(&op))
            schedule.push_back({&op, 0});
        for (Operation &op : forOp.getBody()->without_terminator())
          if (!slice.contains(&op))
            schedule.push_back({&op, last});
      };
  if (dynamic) {
    options.supportDynamicLoops = true;
    options.peelEpilogue = false;
    options.predicateFn = predicateStageZero;
  }
  bool modified = false;
  if (failed(scf::pipelineForLoop(rewriter, loop, options, &modified))) {
    loop.emitError("npu-tpu-double-buffer: software pipelining failed");
    return Outcome::Failed;
  }
  return Outcome::Pipelined;
}

struct NpuTpuDoubleBufferPass
    : public npu::impl::NpuTpuDoubleBufferBase<NpuTpuDoubleBufferPass> {
  using Base::Base;
  void runOnOperation() override {
    if (buffers < 1) {
      getOperation().emitError("npu-tpu-double-buffer: buffers must be >= 1");
      return signalPassFailure();
    }
    if (buffers == 1)
      return;
    // Inner loops first (post-order): an outer loop's pipelining clones its
    // body, inner loops included. Only the loads each loop has before the
    // pass runs are prefetched, so a loop is pipelined only if it streams
    // tiles itself: the prologue DMAs of a pipelined inner loop do not make
    // its parent loop a pipelining candidate. The candidates are collected
    // up front; pipelining an inner loop does not erase ops of an
    // enclosing loop's body, so they are still valid when it is processed.
    SmallVector<std::pair<scf::ForOp, SmallVector<DmaStartOp>>> loops;
    getOperation().walk([&](scf::ForOp loop) {
      loops.push_back({loop, findPrefetchable(loop)});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[loop, original] : loops) {
      // A loop whose loads the tiling single-buffers (`npu.buffers = 1`:
      // a resident K/V, which a second copy would not fit beside) keeps
      // them waited in place.
      int64_t n = buffers;
      if (auto own = loop->getAttrOfType<IntegerAttr>("npu.buffers"))
        n = own.getInt();
      if (n == 1)
        continue;
      rewriter.setInsertionPoint(loop);
      if (pipeline(rewriter, loop, original, n) == Outcome::Failed)
        return signalPassFailure();
    }
  }
};
} // namespace
