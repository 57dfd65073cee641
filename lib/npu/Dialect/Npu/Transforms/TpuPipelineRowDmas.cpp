//===- TpuPipelineRowDmas.cpp - the npu-tpu-pipeline-row-dmas pass --------===//
//
// A loop that only moves data, one DMA per iteration waited in the same
// iteration (the rows of a MoE expert's tile gathered from x, or its output
// rows stored at their assignments' rows of o), keeps as many
// row copies in flight as the target allows (`row_dmas_in_flight_per_core`):
// software-pipelined with the start `Q - 1` iterations ahead of its wait.
//
//===----------------------------------------------------------------------===//

#include "TpuRowDmas.h"

#include "npu/Analysis/KernelCost.h"
#include "npu/Analysis/SramLiveness.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUTPUPIPELINEROWDMAS
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

DmaStartOp tpu_rows::rowDmaLoop(scf::ForOp loop) {
  if (loop.getNumResults() != 0)
    return nullptr;
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (!trips || trips->getSExtValue() < 2)
    return nullptr;
  Block *body = loop.getBody();
  auto ops = body->without_terminator();
  if (std::distance(ops.begin(), ops.end()) < 2)
    return nullptr;
  auto wait = dyn_cast<DmaWaitOp>(*std::prev(ops.end()));
  auto dma = dyn_cast<DmaStartOp>(*std::prev(ops.end(), 2));
  if (!wait || !dma || wait.getToken() != dma.getToken() ||
      !dma.getToken().hasOneUse() || dma.getPredicate())
    return nullptr;
  Value root = getRootBuffer(dma.getTarget());
  if (!root || root.getParentBlock() == body ||
      (root.getDefiningOp() && loop->isAncestor(root.getDefiningOp())))
    return nullptr;
  for (Operation &op : ops) {
    if (&op == dma || &op == wait)
      continue;
    if (op.getNumRegions() != 0)
      return nullptr;
    // A scalar load (an index of the gather) reads; everything else is
    // pure. Neither touches the target buffer.
    if (!isa<memref::LoadOp>(op) && !isMemoryEffectFree(&op))
      return nullptr;
    if (auto load = dyn_cast<memref::LoadOp>(op);
        load && getRootBuffer(load.getMemRef()) == root)
      return nullptr;
  }
  // Each iteration writes its own row: the target is a view at the
  // induction variable (a gather), or at the entry of an index table at a
  // row of the source that is the induction variable or a clamp of it (a
  // scatter: the table is a MoE dispatch's order, a permutation, so rows
  // write distinct targets and the clamp's repeats write the same row with
  // the same data).
  if (!isConstantIntValue(loop.getStep(), 1))
    return nullptr;
  // The offsets of a view that are values, in the dimensions it is one
  // element wide in.
  auto rowOffsets = [](Value view) {
    SmallVector<Value> rows;
    if (auto subview = view.getDefiningOp<memref::SubViewOp>())
      for (auto [offset, size] :
           llvm::zip(subview.getMixedOffsets(), subview.getMixedSizes()))
        if (auto v = dyn_cast<Value>(offset); v && isConstantIntValue(size, 1))
          rows.push_back(v);
    return rows;
  };
  Value iv = loop.getInductionVar();
  SmallVector<Value> targets = rowOffsets(dma.getTarget());
  if (llvm::is_contained(targets, iv))
    return dma;
  SmallVector<Value> sources = rowOffsets(dma.getSource());
  if (targets.size() != 1 || sources.size() != 1)
    return nullptr;
  Value target = targets.front(), source = sources.front();
  auto clamp = source.getDefiningOp<arith::MinSIOp>();
  if (source != iv && (!clamp || clamp.getLhs() != iv))
    return nullptr;
  // The target's row: index_cast(table[source row]) or
  // index_cast(table[start + source row]).
  auto cast = target.getDefiningOp<arith::IndexCastOp>();
  auto entry = cast ? cast.getIn().getDefiningOp<memref::LoadOp>() : nullptr;
  if (!entry || entry.getIndices().size() != 1)
    return nullptr;
  Value at = entry.getIndices().front();
  if (at == source)
    return dma;
  auto add = at.getDefiningOp<arith::AddIOp>();
  return add && (add.getLhs() == source || add.getRhs() == source) ? dma
                                                                   : nullptr;
}

namespace {
struct NpuTpuPipelineRowDmasPass
    : public npu::impl::NpuTpuPipelineRowDmasBase<NpuTpuPipelineRowDmasPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetAttr> target =
        getModuleTpuTarget(module, "npu-tpu-pipeline-row-dmas");
    if (failed(target))
      return signalPassFailure();
    int64_t engines = target->getTpu().getRowDmasInFlightPerCore();
    if (engines < 2)
      return;
    SmallVector<std::pair<scf::ForOp, DmaStartOp>> loops;
    module.walk([&](scf::ForOp loop) {
      if (DmaStartOp dma = tpu_rows::rowDmaLoop(loop))
        loops.push_back({loop, dma});
    });
    IRRewriter rewriter(&getContext());
    for (auto [loop, dma] : loops) {
      int64_t trips = loop.getStaticTripCount()->getSExtValue();
      unsigned last = static_cast<unsigned>(std::min(engines, trips) - 1);
      // Stage 0: the start and what it needs; stage `last`: the wait.
      Operation *wait = *dma.getToken().getUsers().begin();
      scf::PipeliningOption options;
      options.getScheduleFn =
          [&](scf::ForOp forOp,
              std::vector<std::pair<Operation *, unsigned>> &schedule) {
            for (Operation &op : forOp.getBody()->without_terminator())
              schedule.push_back({&op, &op == wait ? last : 0});
          };
      rewriter.setInsertionPoint(loop);
      bool modified = false;
      if (failed(scf::pipelineForLoop(rewriter, loop, options, &modified))) {
        loop.emitError("npu-tpu-pipeline-row-dmas: software pipelining "
                       "failed");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
