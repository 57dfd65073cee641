//===- TpuDoubleBuffer.cpp - the npu-tpu-double-buffer pass ---------------===//
//
// Overlaps the DMA of the next tiles with the compute of this one: the VMEM
// buffers a loop loads into are multiplied (memref::multiBuffer) and the loop
// is software-pipelined (scf::pipelineForLoop) with the loads one stage ahead
// and the waits of its output stores one stage behind.
//
//===----------------------------------------------------------------------===//

#include "TpuPipelining.h"
#include "TpuRowDmas.h"

#include "npu/Analysis/SramLiveness.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUTPUDOUBLEBUFFER
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::tpu_pipeline;

namespace {
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

/// An output store whose wait can move one iteration later.
struct Store {
  DmaStartOp dma;
  DmaWaitOp wait;
  memref::AllocOp alloc; ///< the VMEM buffer it stores from
};

/// The stores of `loop` that can complete while the next iteration computes:
/// VMEM -> HBM DMAs in its body from a static VMEM alloc of the body, waited
/// for in the body, with no later op of the iteration using that buffer, into
/// a buffer no other op of the loop uses (so no later iteration reads what is
/// still in flight).
SmallVector<Store> findDeferrable(scf::ForOp loop) {
  SmallVector<Store> stores;
  Block *body = loop.getBody();
  for (auto dma : body->getOps<DmaStartOp>()) {
    if (!isVmem(dma.getSource().getType()) || !isHbm(dma.getTarget().getType()))
      continue;
    Value root = getRootBuffer(dma.getSource());
    auto alloc = root.getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != body ||
        !alloc.getType().hasStaticShape() || !dma.getToken().hasOneUse())
      continue;
    auto wait = dyn_cast<DmaWaitOp>(*dma.getToken().getUsers().begin());
    if (!wait || wait->getBlock() != body)
      continue;
    // Later ops of the iteration may use other parts of the buffer (the
    // next row band of a banded tile), and other ops of the loop other
    // parts of the stored-to buffer (the other bands' stores).
    bool usedLater = false;
    for (Operation *op = dma->getNextNode(); op && !usedLater;
         op = op->getNextNode())
      usedLater = usesBuffer(op, root, nullptr, dma.getSource());
    if (usedLater ||
        usesBuffer(loop, getRootBuffer(dma.getTarget()), dma, dma.getTarget()))
      continue;
    stores.push_back({dma, wait, alloc});
  }
  return stores;
}

/// What a loop streams in the pass's input: the loads it can prefetch and
/// the stores whose wait it can defer.
struct Candidates {
  SmallVector<DmaStartOp> loads;
  SmallVector<Store> stores;
};

/// Whether `loop` runs a tile grid's index loop: index-typed, with a static
/// trip count of at least one.
bool isTileLoop(scf::ForOp loop) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  return loop.getInductionVar().getType().isIndex() && trips &&
         trips->getSExtValue() >= 1;
}

/// The loop nested perfectly in `loop`: its body's only op besides the
/// terminator, neither loop carrying values, both tile loops, with bounds
/// defined outside `outer` and the same buffer count as it.
scf::ForOp perfectlyNested(scf::ForOp outer, scf::ForOp loop) {
  Block *body = loop.getBody();
  if (!llvm::hasSingleElement(body->without_terminator()))
    return nullptr;
  auto inner = dyn_cast<scf::ForOp>(&body->front());
  if (!inner || !isTileLoop(loop) || !isTileLoop(inner) ||
      loop.getNumRegionIterArgs() != 0 || inner.getNumRegionIterArgs() != 0 ||
      inner->getAttr("npu.buffers") != outer->getAttr("npu.buffers"))
    return nullptr;
  for (Value bound :
       {inner.getLowerBound(), inner.getUpperBound(), inner.getStep()})
    if (!outer.isDefinedOutsideOfLoop(bound))
      return nullptr;
  return inner;
}

/// Makes each perfect nest of loops one loop over all its iterations
/// (upstream scf coalesceLoops): a GEMM's M and N tile loops become one
/// sequence of output tiles, so that a tile's store overlaps the next
/// tile's compute across rows as well (the cost model deals a core's tiles
/// as one sequence).
LogicalResult coalesceTileGrids(RewriterBase &rewriter, Operation *root) {
  SmallVector<SmallVector<scf::ForOp>> bands;
  root->walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
    for (const SmallVector<scf::ForOp> &band : bands)
      if (llvm::is_contained(band, loop))
        return; // inside a band found from an outer loop
    SmallVector<scf::ForOp> band{loop};
    while (scf::ForOp inner = perfectlyNested(loop, band.back()))
      band.push_back(inner);
    if (band.size() > 1)
      bands.push_back(band);
  });
  for (SmallVector<scf::ForOp> &band : bands) {
    Attribute buffers = band.front()->getAttr("npu.buffers");
    if (failed(coalesceLoops(rewriter, band)))
      return band.front().emitError(
          "npu-tpu-double-buffer: cannot make this loop nest one loop");
    if (buffers)
      band.front()->setAttr("npu.buffers", buffers);
  }
  return success();
}

enum class Outcome { Skipped, Pipelined, Failed };

/// Hoists the tile buffers of `loop`'s pipelined transfers and gives each
/// as many slots as it has tiles in flight: `buffers` for a load's, two for
/// a deferred store's; a handoff's buffers leave the loop as they are.
static LogicalResult multiplyBuffers(RewriterBase &rewriter, scf::ForOp loop,
                                     ArrayRef<memref::AllocOp> allocs,
                                     ArrayRef<DmaStartOp> handoffs,
                                     ArrayRef<Store> stores, int64_t buffers) {
  // One buffer per tile in flight: hoist the allocs and multiply them. The
  // override analysis is skipped: each iteration's DMA writes all of the
  // view its compute reads (the staged tile), so no data is carried.
  for (memref::AllocOp alloc : allocs) {
    rewriter.moveOpBefore(alloc, loop);
    if (failed(memref::multiBuffer(rewriter, alloc, buffers,
                                   /*skipOverrideAnalysis=*/true))) {
      loop.emitError("npu-tpu-double-buffer: cannot multi-buffer a VMEM "
                     "tile buffer of this loop");
      return failure();
    }
  }
  // A handoff fills slot 0 of its inner loop's buffers, which now outlive
  // an iteration: the allocs leave the loop as they are (slots included).
  for (DmaStartOp dma : handoffs) {
    auto alloc =
        getRootBuffer(dma.getTarget()).getDefiningOp<memref::AllocOp>();
    if (alloc->getBlock() == loop.getBody())
      rewriter.moveOpBefore(alloc, loop);
  }
  // A stored buffer is in flight one iteration longer: two copies (one
  // per buffer, which the stores of its row bands share).
  llvm::SetVector<memref::AllocOp> stored;
  for (const Store &store : stores)
    stored.insert(store.alloc);
  for (memref::AllocOp alloc : stored) {
    rewriter.moveOpBefore(alloc, loop);
    if (failed(memref::multiBuffer(rewriter, alloc, 2,
                                   /*skipOverrideAnalysis=*/true))) {
      loop.emitError("npu-tpu-double-buffer: cannot double-buffer a VMEM "
                     "output buffer of this loop");
      return failure();
    }
  }
  return success();
}

/// The pipeliner's schedule: stage 0 the loads' `slice` (and the
/// `handoffSlice`, right after `handoffAfter`: the loads' own ops first, then
/// those only the prefetched row gathers need, `gatherOnly`, so that the
/// next tiles load beside the rows' chain), stage `last` everything else,
/// stage `last + 1` the deferred store `waits`.
static scf::PipeliningOption
getSchedule(const llvm::SetVector<Operation *> &slice,
            const llvm::SetVector<Operation *> &handoffSlice,
            const llvm::SmallPtrSet<Operation *, 16> &gatherOnly,
            Operation *handoffAfter,
            const llvm::SmallPtrSet<Operation *, 4> &waits, unsigned last) {
  scf::PipeliningOption options;
  options.getScheduleFn =
      [&slice, &handoffSlice, &gatherOnly, handoffAfter, &waits,
       last](scf::ForOp forOp,
             std::vector<std::pair<Operation *, unsigned>> &schedule) {
        Block *body = forOp.getBody();
        for (Operation &op : body->without_terminator())
          if (slice.contains(&op))
            schedule.push_back({&op, 0});
        for (Operation &op : body->without_terminator()) {
          if (!slice.contains(&op) && !waits.contains(&op) &&
              !handoffSlice.contains(&op))
            schedule.push_back({&op, last});
          if (&op != handoffAfter)
            continue;
          for (bool gathers : {false, true})
            for (Operation &h : body->without_terminator())
              if (handoffSlice.contains(&h) && !slice.contains(&h) &&
                  gatherOnly.contains(&h) == gathers)
                schedule.push_back({&h, 0});
        }
        for (Operation &op : body->without_terminator())
          if (waits.contains(&op))
            schedule.push_back({&op, last + 1});
      };
  return options;
}

/// Pipelines `loop` with `original` (its prefetchable loads and deferrable
/// stores before the pass ran): loads one stage ahead, store waits one
/// stage behind. Loads and stores that pipelining an inner loop put into
/// this body (the inner loop's prologue and epilogue) are not in `original`
/// and stay in the middle stage: only the loop that streamed a tile in the
/// input IR overlaps its transfer.
Outcome pipeline(RewriterBase &rewriter, scf::ForOp loop,
                 const Candidates &original, int64_t buffers,
                 KernelTrips &kernelTrips) {
  // A loop with a run-time trip count (a causal KV range) is pipelined with
  // predicated prefetches and no peeled epilogue; a static one with fewer
  // iterations than stages is left alone. One with no loads or stores of
  // its own is not pipelined, unless its trip count is dynamic: a MoE's
  // visit loop, whose body stores its rows in a loop of its own, may still
  // hand its inner loops their next loads (selectHandoffs).
  std::optional<APInt> trips = loop.getStaticTripCount();
  bool dynamic = !trips;
  if (original.loads.empty() && original.stores.empty() && !dynamic)
    return Outcome::Skipped;
  int64_t tripCount = trips ? trips->getSExtValue() : 0;
  SmallVector<DmaStartOp> loads;
  if (dynamic || tripCount >= buffers)
    loads.assign(original.loads.begin(), original.loads.end());
  SmallVector<memref::AllocOp> allocs;
  llvm::SetVector<Operation *> loadSlice; // the loads' slices, before hoisting
  SmallVector<DmaStartOp> prefetchable = findPrefetchable(loop);
  for (DmaStartOp dma : prefetchable) {
    if (!llvm::is_contained(loads, dma))
      continue;
    llvm::SetVector<Operation *> slice;
    if (failed(collectSlice(loop, dma, slice)))
      continue;
    loadSlice.insert(slice.begin(), slice.end());
    auto alloc =
        getRootBuffer(dma.getTarget()).getDefiningOp<memref::AllocOp>();
    if (!llvm::is_contained(allocs, alloc))
      allocs.push_back(alloc);
  }
  llvm::erase_if(loads,
                 [&](DmaStartOp dma) { return !loadSlice.contains(dma); });
  // The loop may hand its inner loop the next iteration's first tiles
  // (selectHandoffs): in stage 0, one stage ahead of the inner loop.
  Handoffs handoffs = selectHandoffs(loop, prefetchable, kernelTrips, dynamic,
                                     tripCount, loads.empty(), buffers);
  // A store waits one iteration later in a loop with a static trip count
  // (its compute cannot be predicated) of at least two and at least the
  // last stage's index (what the pipeliner needs), from a buffer no load of
  // the loop refills (with B load buffers the refill would start before the
  // wait).
  unsigned last = !loads.empty()           ? static_cast<unsigned>(buffers - 1)
                  : !handoffs.dmas.empty() ? 1
                                           : 0;
  SmallVector<Store> stores;
  if (!dynamic && tripCount >= std::max<int64_t>(2, last + 1))
    for (const Store &store : findDeferrable(loop))
      if (llvm::any_of(original.stores,
                       [&](const Store &o) { return o.dma == store.dma; }) &&
          !llvm::is_contained(allocs, store.alloc))
        stores.push_back(store);
  if (loads.empty() && handoffs.dmas.empty() && stores.empty())
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
  for (scf::ForOp gather : handoffs.gathers)
    allocs.push_back(getRootBuffer(tpu_rows::rowDmaLoop(gather).getTarget())
                         .getDefiningOp<memref::AllocOp>());
  if (failed(multiplyBuffers(rewriter, loop, allocs, handoffs.dmas, stores,
                             buffers)))
    return Outcome::Failed;
  // The gathers' slices now include their buffer's slot and its index.
  llvm::SmallPtrSet<Operation *, 16> gatherOnly;
  for (scf::ForOp gather : handoffs.gathers) {
    llvm::SetVector<Operation *> gatherSlice;
    if (failed(collectSlice(loop, gather, gatherSlice))) {
      loop.emitError("npu-tpu-double-buffer: a row gather depends on a "
                     "loop-carried value after multi-buffering");
      return Outcome::Failed;
    }
    for (Operation *op : gatherSlice)
      if (handoffs.slice.insert(op))
        gatherOnly.insert(op);
  }
  // Stage 0: the loads and what they need, now including the buffer index
  // and views multiBuffer added; stage `last`: everything else; stage
  // `last + 1`: the deferred store waits.
  llvm::SetVector<Operation *> slice;
  for (DmaStartOp dma : loads)
    if (failed(collectSlice(loop, dma, slice))) {
      loop.emitError("npu-tpu-double-buffer: a load depends on a "
                     "loop-carried value after multi-buffering");
      return Outcome::Failed;
    }
  llvm::SmallPtrSet<Operation *, 4> waits;
  for (const Store &store : stores)
    waits.insert(store.wait);
  scf::PipeliningOption options = getSchedule(slice, handoffs.slice, gatherOnly,
                                              handoffs.after, waits, last);
  if (dynamic) {
    options.supportDynamicLoops = true;
    options.peelEpilogue = false;
    options.predicateFn = predicateStageZero;
  }
  bool modified = false;
  FailureOr<scf::ForOp> kernel =
      scf::pipelineForLoop(rewriter, loop, options, &modified);
  if (failed(kernel)) {
    loop.emitError("npu-tpu-double-buffer: software pipelining failed");
    return Outcome::Failed;
  }
  // The kernel loop runs the iterations the prologue and epilogue do not.
  unsigned maxStage = stores.empty() ? last : last + 1;
  if (!dynamic)
    kernelTrips[*kernel] = tripCount - maxStage;
  return Outcome::Pipelined;
}

struct NpuTpuDoubleBufferPass
    : public npu::impl::NpuTpuDoubleBufferBase<NpuTpuDoubleBufferPass> {
  using Base::Base;
  void runOnOperation() override {
    if (buffers < 1) {
      mlir::emitError(getOperation().getLoc(),
                      "npu-tpu-double-buffer: buffers must be >= 1");
      return signalPassFailure();
    }
    if (buffers == 1)
      return;
    IRRewriter rewriter(&getContext());
    if (failed(coalesceTileGrids(rewriter, getOperation())))
      return signalPassFailure();
    // Inner loops first (post-order): an outer loop's pipelining clones its
    // body, inner loops included. Only the loads each loop has before the
    // pass runs are prefetched, so a loop is pipelined only if it streams
    // tiles itself: the prologue DMAs of a pipelined inner loop do not make
    // its parent loop a pipelining candidate. The candidates are collected
    // up front; pipelining an inner loop does not erase ops of an
    // enclosing loop's body, so they are still valid when it is processed.
    SmallVector<std::pair<scf::ForOp, Candidates>> loops;
    getOperation().walk([&](scf::ForOp loop) {
      loops.push_back({loop, {findPrefetchable(loop), findDeferrable(loop)}});
    });
    KernelTrips kernelTrips;
    for (auto &[loop, original] : loops) {
      // A loop whose loads the tiling single-buffers (`npu.buffers = 1`:
      // a held K/V, which a second copy would not fit beside) keeps
      // them waited in place.
      int64_t n = buffers;
      if (auto own = loop->getAttrOfType<IntegerAttr>("npu.buffers"))
        n = own.getInt();
      if (n == 1)
        continue;
      rewriter.setInsertionPoint(loop);
      if (pipeline(rewriter, loop, original, n, kernelTrips) == Outcome::Failed)
        return signalPassFailure();
    }
  }
};
} // namespace
