//===- TpuAssignMemorySpaces.cpp - npu-tpu-assign-memory-spaces -----------===//
//
// Bufferized IR -> every memref in HBM or VMEM, compute ops on VMEM only:
// values crossing kernels in HBM, per-tile temporaries in VMEM, HBM tiles
// staged into VMEM buffers by copies (npu-tpu-insert-dma makes them DMAs).
//
//===----------------------------------------------------------------------===//

#include "TpuMemorySpaces.h"
#include "npu/Analysis/SramLiveness.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Matchers.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUTPUASSIGNMEMORYSPACES
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::tpu_memory;

namespace {
/// A constant upper bound of an index value: constants, and the minimum
/// of `min` ops (tile loops bound their last tile with `min(n - iv, t)`).
std::optional<int64_t> getUpperBound(Value v) {
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (isa<arith::MinSIOp, arith::MinUIOp>(def)) {
    std::optional<int64_t> a = getUpperBound(def->getOperand(0));
    std::optional<int64_t> b = getUpperBound(def->getOperand(1));
    if (a && b)
      return std::min(*a, *b);
    return a ? a : b;
  }
  if (isa<arith::MaxSIOp>(def)) {
    std::optional<int64_t> a = getUpperBound(def->getOperand(0));
    std::optional<int64_t> b = getUpperBound(def->getOperand(1));
    if (a && b)
      return std::max(*a, *b);
    return std::nullopt;
  }
  if (auto min = dyn_cast<affine::AffineMinOp>(def)) {
    std::optional<int64_t> bound;
    for (AffineExpr expr : min.getAffineMap().getResults())
      if (auto c = dyn_cast<AffineConstantExpr>(expr))
        bound = bound ? std::min(*bound, c.getValue()) : c.getValue();
    return bound;
  }
  return std::nullopt;
}

Attribute getSpace(MLIRContext *ctx, MemorySpace space) {
  return MemorySpaceAttr::get(ctx, space);
}

/// Whether `collapse` stays valid on a view, at offset 0, of a row-major
/// buffer of the source's bounded shape: each group merges, besides its
/// first dimension, only static ones (whole in the buffer) or unit ones.
bool collapsesOnBoundedView(memref::CollapseShapeOp collapse) {
  ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
  for (const ReassociationIndices &group : collapse.getReassociationIndices()) {
    bool inner =
        llvm::all_of(ArrayRef<int64_t>(group).drop_front(), [&](int64_t d) {
          return !ShapedType::isDynamic(shape[d]);
        });
    int64_t nonUnit =
        llvm::count_if(group, [&](int64_t d) { return shape[d] != 1; });
    if (!inner && nonUnit > 1)
      return false;
  }
  return true;
}

/// Whether every use of `v` (through subviews) accepts a memref of another
/// type: then `v` can be replaced by a VMEM view.
bool hasRetypableUses(Value v) {
  for (Operation *user : v.getUsers()) {
    if (auto sub = dyn_cast<memref::SubViewOp>(user)) {
      if (!hasRetypableUses(sub.getResult()))
        return false;
      continue;
    }
    // A collapse of leading unit dims (a row tile seen as a matrix): the
    // VMEM view collapses the same way.
    if (auto collapse = dyn_cast<memref::CollapseShapeOp>(user)) {
      if (!collapsesOnBoundedView(collapse) ||
          !hasRetypableUses(collapse.getResult()))
        return false;
      continue;
    }
    // An expand whose groups split off static inner dims (a router's
    // experts seen as groups): valid on any strided view.
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(user)) {
      ArrayRef<int64_t> shape = expand.getResultType().getShape();
      if (llvm::any_of(expand.getReassociationIndices(),
                       [&](const ReassociationIndices &g) {
                         return llvm::any_of(
                             ArrayRef<int64_t>(g).drop_front(), [&](int64_t d) {
                               return ShapedType::isDynamic(shape[d]);
                             });
                       }) ||
          !hasRetypableUses(expand.getResult()))
        return false;
      continue;
    }
    if (!isa<linalg::LinalgOp, memref::CopyOp, memref::DimOp, memref::LoadOp,
             memref::StoreOp, memref::DeallocOp, DmaStartOp>(user))
      return false;
  }
  return true;
}

/// Replaces `old` by `replacement` (another memref type), rebuilding the
/// subviews of `old` on `replacement`; VMEM is not freed at run time, so
/// deallocs are dropped.
void replaceAndRetype(OpBuilder &b, Value old, Value replacement) {
  for (OpOperand &use : llvm::make_early_inc_range(old.getUses())) {
    Operation *user = use.getOwner();
    if (auto sub = dyn_cast<memref::SubViewOp>(user)) {
      b.setInsertionPoint(sub);
      auto sourceType = cast<MemRefType>(replacement.getType());
      MemRefType resultType = memref::SubViewOp::inferRankReducedResultType(
          sub.getType().getShape(), sourceType, sub.getMixedOffsets(),
          sub.getMixedSizes(), sub.getMixedStrides());
      auto newSub = memref::SubViewOp::create(
          b, sub.getLoc(), resultType, replacement, sub.getMixedOffsets(),
          sub.getMixedSizes(), sub.getMixedStrides());
      replaceAndRetype(b, sub.getResult(), newSub.getResult());
      sub.erase();
    } else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(user)) {
      // Valid on the view: hasRetypableUses checked collapsesOnBoundedView.
      b.setInsertionPoint(collapse);
      auto newCollapse =
          memref::CollapseShapeOp::create(b, collapse.getLoc(), replacement,
                                          collapse.getReassociationIndices());
      replaceAndRetype(b, collapse.getResult(), newCollapse.getResult());
      collapse.erase();
    } else if (auto expand = dyn_cast<memref::ExpandShapeOp>(user)) {
      // Valid on the view: hasRetypableUses checked the inner dims.
      b.setInsertionPoint(expand);
      auto newExpand = memref::ExpandShapeOp::create(
          b, expand.getLoc(), expand.getResultType().getShape(), replacement,
          expand.getReassociationIndices(), expand.getMixedOutputShape());
      replaceAndRetype(b, expand.getResult(), newExpand.getResult());
      expand.erase();
    } else if (isa<memref::DeallocOp>(user)) {
      user->erase();
    } else {
      use.set(replacement);
    }
  }
}

} // namespace

/// The static shape of a VMEM buffer holding `shape` whose dynamic sizes are
/// `sizes` (in order); nullopt if one has no bound.
std::optional<SmallVector<int64_t>>
tpu_memory::boundShape(ArrayRef<int64_t> shape, ValueRange sizes) {
  SmallVector<int64_t> bounded;
  unsigned next = 0;
  for (int64_t dim : shape) {
    if (!ShapedType::isDynamic(dim)) {
      bounded.push_back(dim);
      continue;
    }
    std::optional<int64_t> bound = getUpperBound(sizes[next++]);
    if (!bound || *bound <= 0)
      return std::nullopt;
    bounded.push_back(*bound);
  }
  return bounded;
}

/// A static VMEM buffer of `bounded` shape and, if `type` has dynamic
/// sizes, a view of it with the actual sizes `dynSizes`.
Value tpu_memory::createVmemBuffer(OpBuilder &b, Location loc, MemRefType type,
                                   ArrayRef<int64_t> bounded,
                                   ValueRange dynSizes, IntegerAttr alignment) {
  auto bufType = MemRefType::get(bounded, type.getElementType(),
                                 MemRefLayoutAttrInterface{},
                                 getSpace(b.getContext(), MemorySpace::Vmem));
  Value buffer = memref::AllocOp::create(b, loc, bufType, ValueRange{},
                                         ValueRange{}, alignment);
  if (type.hasStaticShape())
    return buffer;
  SmallVector<OpFoldResult> offsets(bounded.size(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(bounded.size(), b.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes;
  unsigned next = 0;
  for (int64_t dim : type.getShape())
    sizes.push_back(ShapedType::isDynamic(dim)
                        ? OpFoldResult(dynSizes[next++])
                        : OpFoldResult(b.getIndexAttr(dim)));
  return memref::SubViewOp::create(b, loc, buffer, offsets, sizes, strides);
}

namespace {
/// Step 1: every memref without a memory space goes to HBM.
void placeInHbm(ModuleOp module) {
  Attribute hbm = getSpace(module.getContext(), MemorySpace::Hbm);
  AttrTypeReplacer replacer;
  replacer.addReplacement([&](MemRefType t) -> std::optional<Type> {
    if (t.getMemorySpace())
      return std::nullopt;
    return MemRefType::get(t.getShape(), t.getElementType(), t.getLayout(),
                           hbm);
  });
  replacer.addReplacement([&](UnrankedMemRefType t) -> std::optional<Type> {
    if (t.getMemorySpace())
      return std::nullopt;
    return UnrankedMemRefType::get(t.getElementType(), hbm);
  });
  replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
}

/// Step 2: allocations inside tile loops go to VMEM, at their bounded size.
void placeTileTemporaries(func::FuncOp func) {
  SmallVector<memref::AllocOp> allocs;
  func.walk([&](memref::AllocOp alloc) {
    if (alloc->getParentOfType<scf::ForOp>() && isHbm(alloc.getType()))
      allocs.push_back(alloc);
  });
  OpBuilder b(func.getContext());
  for (memref::AllocOp alloc : allocs) {
    MemRefType type = alloc.getType();
    if (!type.getLayout().isIdentity() || !hasRetypableUses(alloc))
      continue;
    std::optional<SmallVector<int64_t>> bounded =
        boundShape(type.getShape(), alloc.getDynamicSizes());
    if (!bounded)
      continue; // stays in HBM; its compute users get it staged (or fail)
    b.setInsertionPoint(alloc);
    Value buffer =
        createVmemBuffer(b, alloc.getLoc(), type, *bounded,
                         alloc.getDynamicSizes(), alloc.getAlignmentAttr());
    replaceAndRetype(b, alloc.getResult(), buffer);
    alloc.erase();
  }
}

/// The first op in `op` or its regions that has the attribute `name`.
Operation *firstOpWith(Operation *op, StringRef name) {
  Operation *found = nullptr;
  op->walk([&](Operation *inner) {
    if (!found && inner->hasAttr(name))
      found = inner;
  });
  return found;
}

/// The first op of a kernel (`npu.kernel_id`) on each side of `op` in its
/// block, if both are of the same kernel (a copy between two steps of one
/// kernel); else null.
Operation *kernelOpAround(Operation *op) {
  Operation *before = nullptr, *after = nullptr;
  for (Operation *p = op->getPrevNode(); p && !before; p = p->getPrevNode())
    before = firstOpWith(p, "npu.kernel_id");
  for (Operation *n = op->getNextNode(); n && !after; n = n->getNextNode())
    after = firstOpWith(n, "npu.kernel_id");
  if (!before || !after ||
      before->getAttr("npu.kernel_id") != after->getAttr("npu.kernel_id"))
    return nullptr;
  return before;
}

/// An op of the kernel that `copy` (a copy bufferization left, a user of
/// `buffer`) belongs to, or null:
///   - in a tile loop, a kernel that holds its intermediates on chip
///     (`npu.kernel_holds`: an absorbed MLA's or an attention's ops, a MoE
///     dispatch's scan) whose ops the loop holds;
///   - outside loops, the kernel whose ops are on both sides of it;
///   - a copy out of `buffer` nested in a loop of a kernel, or in a branch
///     between two of its ops (a MoE expert's tile of rows stored one row
///     at a time, in its visit loop and after it): that kernel.
Operation *kernelOpAroundCopy(memref::CopyOp copy, Value buffer) {
  if (auto loop = copy->getParentOfType<scf::ForOp>()) {
    if (Operation *held = firstOpWith(loop, "npu.kernel_holds"))
      return held;
  } else if (Operation *around = kernelOpAround(copy)) {
    return around;
  }
  if (copy.getSource() != buffer)
    return nullptr;
  Operation *top = copy;
  while (top->getParentOp() && !isa<func::FuncOp>(top->getParentOp()))
    top = top->getParentOp();
  if (top == copy.getOperation())
    return nullptr;
  return isa<scf::ForOp>(top) ? firstOpWith(top, "npu.kernel_id")
                              : kernelOpAround(top);
}

/// The kernel (`npu.kernel_id`, set by npu-tile-kernels on the ops of a
/// kernel it tiled) that alone reads and writes `v`, through views; nullopt
/// if another op uses it (a later kernel, a copy between kernels, a
/// return). A kernel owns the copies between its steps, and one that holds
/// its intermediates (npu.kernel_holds) also the tile copies in its loops
/// and a copy that fills `v` before its first op (the K/V an attention
/// kernel holds when its head loop has one step and is folded away: the
/// copy then has no op of the kernel before it).
std::optional<int64_t> owningKernel(Value v) {
  std::optional<int64_t> owner;
  bool filledBefore = false, held = false;
  SmallVector<Value> worklist = {v};
  while (!worklist.empty()) {
    Value cur = worklist.pop_back_val();
    for (Operation *user : cur.getUsers()) {
      if (isa<memref::SubViewOp, memref::CollapseShapeOp,
              memref::ExpandShapeOp>(user)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      // Scalar reads (a gather's row indices) do not move the buffer.
      if (isa<memref::DimOp, memref::DeallocOp, memref::LoadOp>(user))
        continue;
      auto id = user->getAttrOfType<IntegerAttr>("npu.kernel_id");
      if (auto copy = dyn_cast<memref::CopyOp>(user)) {
        Operation *kernelOp = kernelOpAroundCopy(copy, cur);
        if (!kernelOp && copy.getTarget() == cur) {
          // Filled before a holding kernel's first op, or by copies in its
          // loops (a MoE expert's rows stored at their assignments').
          filledBefore = true;
          continue;
        }
        id = kernelOp ? kernelOp->getAttrOfType<IntegerAttr>("npu.kernel_id")
                      : IntegerAttr();
      } else if (!isa<linalg::LinalgOp>(user)) {
        return std::nullopt;
      }
      if (!id || (owner && *owner != id.getInt()))
        return std::nullopt;
      owner = id.getInt();
      held |= user->hasAttr("npu.kernel_holds");
    }
  }
  if (filledBefore && !held)
    return std::nullopt;
  return owner;
}

/// Step 2b: an allocation outside tile loops that only the ops of one tiled
/// kernel use is that kernel's own (the accumulator of a single-tile GEMM,
/// a table computed once before the loop): VMEM, like a tile temporary.
void placeKernelTemporaries(func::FuncOp func) {
  SmallVector<memref::AllocOp> allocs;
  func.walk([&](memref::AllocOp alloc) {
    if (!alloc->getParentOfType<scf::ForOp>() && isHbm(alloc.getType()) &&
        alloc.getType().hasStaticShape() &&
        alloc.getType().getLayout().isIdentity() &&
        owningKernel(alloc.getResult()) && hasRetypableUses(alloc))
      allocs.push_back(alloc);
  });
  OpBuilder b(func.getContext());
  for (memref::AllocOp alloc : allocs) {
    b.setInsertionPoint(alloc);
    MemRefType type = alloc.getType();
    Value buffer = createVmemBuffer(b, alloc.getLoc(), type, type.getShape(),
                                    ValueRange{}, alloc.getAlignmentAttr());
    replaceAndRetype(b, alloc.getResult(), buffer);
    alloc.erase();
  }
}

struct NpuTpuAssignMemorySpacesPass
    : public npu::impl::NpuTpuAssignMemorySpacesBase<
          NpuTpuAssignMemorySpacesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    placeInHbm(module);
    for (auto func : module.getOps<func::FuncOp>()) {
      placeTileTemporaries(func);
      placeKernelTemporaries(func);
      if (failed(stageHbmOperands(func)))
        return signalPassFailure();
    }
  }
};
} // namespace
