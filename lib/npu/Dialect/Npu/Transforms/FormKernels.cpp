//===- FormKernels.cpp - the npu-form-kernels pass ------------------------===//
//
// Applies #npu.fusion: each group becomes one npu.kernel placed where the
// group's first op was. Inputs defined later in the block (a weight reshaped
// between two matmuls of a QKV group) are hoisted above it when they do not
// depend on the group; if they do, the group is not convex and the pass
// fails there.
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/KernelModel.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUFORMKERNELS
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

static constexpr StringLiteral kFusionAttr = "npu.fusion";

namespace {
/// Moves the in-block producers of `inputs` that sit after `first` above
/// it. Fails (with a diagnostic) if one of them depends on the group.
LogicalResult hoistInputs(Operation *first, ArrayRef<Value> inputs,
                          const llvm::SmallPtrSetImpl<Operation *> &group) {
  Block *block = first->getBlock();
  llvm::SetVector<Operation *> toHoist;
  SmallVector<Operation *> work;
  for (Value v : inputs)
    if (Operation *def = v.getDefiningOp())
      work.push_back(def);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (op->getBlock() != block || op->isBeforeInBlock(first) ||
        toHoist.contains(op))
      continue;
    toHoist.insert(op);
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp()) {
        if (group.contains(def))
          return op->emitError("fusion group is not convex: this op uses a "
                               "result of the group and feeds the group");
        work.push_back(def);
      }
  }
  SmallVector<Operation *> ordered(toHoist.begin(), toHoist.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : ordered)
    op->moveBefore(first);
  return success();
}

/// `ops` with, before each op, a copy of the npu.dequantize ops that
/// produce its weights: a stored weight is converted by the kernel that
/// multiplies by it, as its tiles load (a dequantize feeding two kernels is
/// copied into both; the original is erased once unused).
SmallVector<Operation *> withDequantizes(ArrayRef<Operation *> ops) {
  SmallVector<Operation *> out;
  llvm::SmallPtrSet<Operation *, 4> seen;
  for (Operation *op : ops) {
    for (Value v : op->getOperands())
      if (auto dq = v.getDefiningOp<DequantizeOp>();
          dq && seen.insert(dq).second && !llvm::is_contained(ops, dq))
        out.push_back(dq);
    out.push_back(op);
  }
  return out;
}

LogicalResult formKernel(KernelKind kind, ArrayRef<Operation *> groupOps) {
  SmallVector<Operation *> ops = withDequantizes(groupOps);
  llvm::SmallPtrSet<Operation *, 8> group(ops.begin(), ops.end());
  Operation *first = groupOps.front();
  for (Operation *op : ops)
    if (op->getBlock() != first->getBlock())
      return op->emitError("fusion group spans several blocks");
  llvm::SetVector<Value> inputs;
  SmallVector<Value> outputs;
  for (Operation *op : ops) {
    for (Value v : op->getOperands())
      if (!v.getDefiningOp() || !group.contains(v.getDefiningOp()))
        inputs.insert(v);
    if (isa<DequantizeOp>(op))
      continue; // copied: other kernels read the original
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(),
                       [&](Operation *u) { return !group.contains(u); }))
        outputs.push_back(r);
  }
  // Every outside user of a result must come after the kernel, i.e. after
  // `first`, and must not feed the group: both hold if no input depends on
  // the group, which hoistInputs checks.
  if (failed(hoistInputs(first, inputs.getArrayRef(), group)))
    return failure();
  OpBuilder b(first);
  SmallVector<Type> resultTypes;
  for (Value r : outputs)
    resultTypes.push_back(r.getType());
  Location loc =
      groupOps.size() == 1
          ? first->getLoc()
          : b.getFusedLoc(llvm::to_vector(llvm::map_range(
                groupOps, [](Operation *o) { return o->getLoc(); })));
  auto kernel =
      KernelOp::create(b, loc, kind, inputs.getArrayRef(), resultTypes);
  IRMapping map;
  for (auto [v, arg] : llvm::zip(inputs, kernel.getBodyBlock().getArguments()))
    map.map(v, arg);
  OpBuilder body = OpBuilder::atBlockEnd(&kernel.getBodyBlock());
  for (Operation *op : ops) {
    Operation *clone = body.clone(*op, map);
    clone->removeAttr(kFusionAttr);
  }
  SmallVector<Value> yielded;
  for (Value r : outputs)
    yielded.push_back(map.lookup(r));
  YieldOp::create(body, loc, yielded);
  for (auto [r, k] : llvm::zip(outputs, kernel.getResults()))
    r.replaceUsesWithIf(
        k, [&](OpOperand &use) { return !group.contains(use.getOwner()); });
  // The copied dequantizes (not of the group as decided) go when no other
  // kernel reads them; listed before the group's ops are erased.
  SmallVector<Operation *> copied;
  for (Operation *op : ops)
    if (!llvm::is_contained(groupOps, op))
      copied.push_back(op);
  for (Operation *op : llvm::reverse(groupOps))
    op->erase();
  for (Operation *op : copied)
    if (op->use_empty())
      op->erase();
  return success();
}

struct NpuFormKernelsPass
    : public npu::impl::NpuFormKernelsBase<NpuFormKernelsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      // Groups in order of their first op; undecided working ops alone.
      llvm::MapVector<int64_t, SmallVector<Operation *>> groups;
      llvm::DenseMap<int64_t, KernelKind> kinds;
      SmallVector<std::pair<KernelKind, SmallVector<Operation *>>> work;
      for (Operation &op : func.getBody().front()) {
        if (auto fusion = op.getAttrOfType<FusionAttr>(kFusionAttr)) {
          auto [it, inserted] =
              kinds.try_emplace(fusion.getGroup(), fusion.getKind());
          if (!inserted && it->second != fusion.getKind()) {
            op.emitError("fusion group ")
                << fusion.getGroup()
                << " has two kinds: " << stringifyKernelKind(it->second)
                << " and " << stringifyKernelKind(fusion.getKind());
            return signalPassFailure();
          }
          groups[fusion.getGroup()].push_back(&op);
        } else if (doesWork(&op)) {
          work.push_back({getDefaultKernelKind(&op), {&op}});
        }
      }
      for (auto &[id, ops] : groups)
        work.push_back({kinds[id], ops});
      for (auto &[kind, ops] : work)
        if (failed(formKernel(kind, ops)))
          return signalPassFailure();
    }
  }
};
} // namespace
