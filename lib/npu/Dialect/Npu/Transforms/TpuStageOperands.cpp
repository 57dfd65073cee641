//===- TpuStageOperands.cpp - npu-tpu-assign-memory-spaces, step 3 --------===//
//
// HBM operands of compute ops staged into VMEM buffers by copies
// (npu-tpu-insert-dma makes them DMAs): a loop's tiles once for all its
// ops, values the loops only read once where they are defined, an
// accumulator a fill starts once around the loop that accumulates into it,
// the rest per op.
//
//===----------------------------------------------------------------------===//

#include "TpuMemorySpaces.h"
#include "npu/Analysis/SramLiveness.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::tpu_memory;

namespace {
/// Step 3: an HBM operand of linalg ops gets a VMEM buffer.
struct Staging {
  Value value;                   ///< the HBM memref
  Block *scope;                  ///< block in which the buffer lives
  SmallVector<OpOperand *> uses; ///< the linalg operands it replaces
  /// A fill of `value` just before the first use, which accumulates into
  /// it: it fills the buffer instead of the copy in.
  linalg::FillOp fill;
};

/// The actual sizes of a tile's view: the dynamic sizes of the subview that
/// made it, or of the expand_shape that split its columns (a rotary
/// embedding's [rows, pairs, 2] view of a row tile); none otherwise.
SmallVector<Value> dynamicSizesOf(Value view) {
  SmallVector<Value> sizes;
  if (auto sub = view.getDefiningOp<memref::SubViewOp>()) {
    llvm::SmallBitVector dropped = sub.getDroppedDims();
    for (auto [i, size] : llvm::enumerate(sub.getMixedSizes()))
      if (!dropped.test(i))
        if (auto v = dyn_cast<Value>(size))
          sizes.push_back(v);
  } else if (auto expand = view.getDefiningOp<memref::ExpandShapeOp>()) {
    llvm::append_range(sizes, expand.getOutputShape());
  }
  return sizes;
}

LogicalResult stage(OpBuilder &b, const Staging &s) {
  auto type = cast<MemRefType>(s.value.getType());
  Operation *anchor = s.uses.front()->getOwner();
  SmallVector<Value> dynSizes = dynamicSizesOf(s.value);
  std::optional<SmallVector<int64_t>> bounded;
  if (dynSizes.size() == static_cast<size_t>(type.getNumDynamicDims()))
    bounded = boundShape(type.getShape(), dynSizes);
  if (!bounded)
    return anchor->emitError("npu-tpu-assign-memory-spaces: cannot bound the "
                             "sizes of HBM operand of type ")
           << type << " to stage it in VMEM";
  // First and last use in the scope block (ops with regions count whole).
  Operation *first = nullptr, *last = nullptr;
  bool reads = false, writes = false;
  for (OpOperand *use : s.uses) {
    Operation *ancestor = s.scope->findAncestorOpInBlock(*use->getOwner());
    if (!first || ancestor->isBeforeInBlock(first))
      first = ancestor;
    if (!last || last->isBeforeInBlock(ancestor))
      last = ancestor;
    auto linalgOp = cast<linalg::LinalgOp>(use->getOwner());
    bool isInit = linalgOp.isDpsInit(use);
    writes |= isInit;
    reads |= !isInit || linalgOp.payloadUsesValueFromOperand(use);
  }
  // Skip the copy in if the first access overwrites the whole tile.
  bool copyIn = reads;
  if (reads) {
    SmallVector<OpOperand *> firstUses;
    for (OpOperand *use : s.uses)
      if (use->getOwner() == first)
        firstUses.push_back(use);
    if (!firstUses.empty() && firstUses.size() == 1) {
      auto linalgOp = cast<linalg::LinalgOp>(first);
      copyIn = !linalgOp.isDpsInit(firstUses[0]) ||
               linalgOp.payloadUsesValueFromOperand(firstUses[0]);
    }
  }
  Location loc = anchor->getLoc();
  b.setInsertionPoint(first);
  Value buffer = createVmemBuffer(b, loc, type, *bounded, dynSizes,
                                  b.getI64IntegerAttr(64));
  if (linalg::FillOp fill = s.fill) {
    fill->moveBefore(first);
    fill.getOutputsMutable()[0].set(buffer);
  } else if (copyIn) {
    memref::CopyOp::create(b, loc, s.value, buffer);
  }
  if (writes) {
    b.setInsertionPointAfter(last);
    memref::CopyOp::create(b, loc, buffer, s.value);
  }
  for (OpOperand *use : s.uses)
    use->set(buffer);
  return success();
}

/// Whether some use of `v` other than `uses` lies strictly inside the span
/// of `uses` in `scope` (then a staged copy could be out of date for it).
bool hasOtherAccessInSpan(Value v, Block *scope, ArrayRef<OpOperand *> uses) {
  Operation *first = nullptr, *last = nullptr;
  for (OpOperand *use : uses) {
    Operation *ancestor = scope->findAncestorOpInBlock(*use->getOwner());
    if (!first || ancestor->isBeforeInBlock(first))
      first = ancestor;
    if (!last || last->isBeforeInBlock(ancestor))
      last = ancestor;
  }
  for (OpOperand &use : v.getUses()) {
    if (llvm::is_contained(uses, &use) || isa<memref::DimOp>(use.getOwner()))
      continue;
    Operation *ancestor = scope->findAncestorOpInBlock(*use.getOwner());
    if (!ancestor)
      continue;
    bool after = ancestor == first || first->isBeforeInBlock(ancestor);
    bool before = ancestor == last || ancestor->isBeforeInBlock(last);
    if (after && before)
      return true;
  }
  return false;
}

/// `op`'s operand that accumulates into `v` (an init whose value the
/// payload reads, `v` its only use in `op`), if `op` is a linalg op of the
/// kernel `id`; else null.
OpOperand *accumulatingInit(Operation *op, Value v, Attribute id) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !id || op->getAttr("npu.kernel_id") != id)
    return nullptr;
  for (OpOperand &init : linalgOp.getDpsInitsMutable())
    if (init.get() == v && linalgOp.payloadUsesValueFromOperand(&init) &&
        llvm::count(op->getOperands(), v) == 1)
      return &init;
  return nullptr;
}

/// The op of the same kernel that next accumulates into `fill`'s HBM
/// output, with nothing else touching it in between (a GEMM whose f32
/// accumulator is the kernel's result): its accumulator operand, or null.
/// Also one op inside the loop that comes next (the K loop of such a GEMM
/// with K in steps) if it is the loop's only use of the output: the buffer
/// then accumulates across the loop's iterations (stageHbmOperands stages
/// it around the loop, not per iteration).
OpOperand *accumulatorFilledBy(linalg::FillOp fill) {
  Value v = fill.getOutputs()[0];
  auto id = fill->getAttr("npu.kernel_id");
  for (Operation *op = fill->getNextNode(); op; op = op->getNextNode()) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (llvm::is_contained(op->getOperands(), v))
        return nullptr;
      SmallVector<OpOperand *> inside;
      loop.getBody()->walk([&](Operation *inner) {
        for (OpOperand &operand : inner->getOpOperands())
          if (operand.get() == v)
            inside.push_back(&operand);
      });
      if (inside.empty())
        continue;
      if (inside.size() != 1 ||
          inside.front()->getOwner()->getParentOp() != loop)
        return nullptr;
      return accumulatingInit(inside.front()->getOwner(), v, id);
    }
    if (isa<linalg::LinalgOp>(op))
      return accumulatingInit(op, v, id);
    if (llvm::is_contained(op->getOperands(), v) || op->getNumRegions())
      return nullptr;
  }
  return nullptr;
}

/// A copy of an HBM value into a VMEM buffer is a transfer itself (one DMA,
/// npu-tpu-insert-dma), not a compute op whose input is first staged into
/// a buffer of its own: an M tile of x copied on chip once (TileGatedMlp,
/// TileMoe) goes straight into its buffer.
void makeCopiesIntoVmemTransfers(func::FuncOp func) {
  SmallVector<linalg::CopyOp> transfers;
  func.walk([&](linalg::CopyOp copy) {
    auto in = dyn_cast<MemRefType>(copy.getInputs()[0].getType());
    auto out = dyn_cast<MemRefType>(copy.getOutputs()[0].getType());
    if (in && out && isHbm(in) && !isHbm(out))
      transfers.push_back(copy);
  });
  for (linalg::CopyOp copy : transfers) {
    OpBuilder b(copy);
    memref::CopyOp::create(b, copy.getLoc(), copy.getInputs()[0],
                           copy.getOutputs()[0]);
    copy.erase();
  }
}
} // namespace

LogicalResult tpu_memory::stageHbmOperands(func::FuncOp func) {
  makeCopiesIntoVmemTransfers(func);
  // A fill of an HBM value the next op accumulates into fills that op's
  // staged buffer, rather than being staged and copied out, then copied
  // back in.
  llvm::DenseMap<OpOperand *, linalg::FillOp> fills;
  // (A tile of a loop is staged once for all its ops already.)
  func.walk([&](linalg::FillOp fill) {
    Value v = fill.getOutputs()[0];
    Operation *def = v.getDefiningOp();
    bool loopTile = isa_and_nonnull<memref::SubViewOp>(def) &&
                    def->getParentOfType<scf::ForOp>();
    if (isa<MemRefType>(v.getType()) && isHbm(v.getType()) && !loopTile)
      if (OpOperand *acc = accumulatorFilledBy(fill))
        fills[acc] = fill;
  });
  llvm::DenseSet<Operation *> fused;
  for (auto &[acc, fill] : fills)
    fused.insert(fill);
  // Group the HBM operands of linalg ops by value, in program order.
  llvm::MapVector<Value, SmallVector<OpOperand *>> byValue;
  SmallVector<std::pair<Value, OpOperand *>> single;
  func.walk([&](linalg::LinalgOp op) {
    if (fused.contains(op))
      return;
    for (OpOperand &operand : op->getOpOperands()) {
      Value v = operand.get();
      if (!isa<MemRefType>(v.getType()) || !isHbm(v.getType()))
        continue;
      Operation *def = v.getDefiningOp();
      if (isa_and_nonnull<memref::SubViewOp>(def) &&
          def->getParentOfType<scf::ForOp>())
        byValue[v].push_back(&operand);
      else
        single.push_back({v, &operand});
    }
  });
  SmallVector<Staging> stagings;
  for (auto &[v, uses] : byValue) {
    Block *scope = v.getDefiningOp()->getBlock();
    if (!hasOtherAccessInSpan(v, scope, uses)) {
      stagings.push_back({v, scope, uses});
      continue;
    }
    for (OpOperand *use : uses)
      single.push_back({v, use});
  }
  // A value the tile loops only read and that is not a tile of theirs (a
  // norm's weight vector, a table computed before the loop) is loaded once,
  // where it is defined, and held while the loops run: the cost model
  // prices it held once.
  // So is a value several ops of one kernel read outside any loop (a
  // one-tile kernel's input, read by its norm's reduction and its scaling).
  llvm::MapVector<Value, SmallVector<OpOperand *>> invariant;
  for (auto [v, use] : single)
    invariant[v].push_back(use);
  invariant.remove_if([](auto &entry) {
    ArrayRef<OpOperand *> uses = entry.second;
    if (llvm::all_of(uses, [](OpOperand *use) {
          return use->getOwner()->getParentOfType<scf::ForOp>();
        }))
      return false;
    auto id =
        uses.front()->getOwner()->getAttrOfType<IntegerAttr>("npu.kernel_id");
    return uses.size() < 2 || !id || llvm::any_of(uses, [&](OpOperand *use) {
             return use->getOwner()->getAttr("npu.kernel_id") != id;
           });
  });
  llvm::DenseSet<Value> hoisted;
  for (auto &[v, uses] : invariant) {
    Block *scope = v.getParentBlock();
    // A matmul that loads its operands in chunks (npu.load_chunks) starts
    // on the first chunk: its operands keep their per-step chunked loads.
    bool chunked = llvm::any_of(uses, [](OpOperand *use) {
      auto n = use->getOwner()->getAttrOfType<IntegerAttr>("npu.load_chunks");
      return n && n.getInt() > 1;
    });
    // Read only: no linalg op writes v (through any of its uses).
    if (chunked || hasOtherAccessInSpan(v, scope, uses) ||
        llvm::any_of(v.getUses(), [&](OpOperand &use) {
          auto linalgOp = dyn_cast<linalg::LinalgOp>(use.getOwner());
          return linalgOp && linalgOp.isDpsInit(&use);
        }))
      continue;
    stagings.push_back({v, scope, uses});
    hoisted.insert(v);
  }
  // One buffer per op and value for the others (an op may use it twice).
  llvm::MapVector<std::pair<Operation *, Value>, SmallVector<OpOperand *>>
      perOp;
  for (auto [v, use] : single)
    if (!hoisted.contains(v))
      perOp[{use->getOwner(), v}].push_back(use);
  for (auto &[key, uses] : perOp) {
    linalg::FillOp fill;
    for (OpOperand *use : uses)
      if (auto it = fills.find(use); it != fills.end())
        fill = it->second;
    // Staged where the fill is: around a loop that accumulates into it.
    Block *scope = fill ? fill->getBlock() : key.first->getBlock();
    stagings.push_back({key.second, scope, uses, fill});
  }
  OpBuilder b(func.getContext());
  for (const Staging &s : stagings)
    if (failed(stage(b, s)))
      return failure();
  return success();
}
