//===- SramLiveness.cpp - live ranges of VMEM buffers ---------------------===//

#include "npu/Analysis/SramLiveness.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::npu;

static std::optional<MemorySpace> getSpace(Type type) {
  Attribute space;
  if (auto m = dyn_cast<MemRefType>(type))
    space = m.getMemorySpace();
  else if (auto u = dyn_cast<UnrankedMemRefType>(type))
    space = u.getMemorySpace();
  if (auto s = dyn_cast_or_null<MemorySpaceAttr>(space))
    return s.getValue();
  return std::nullopt;
}

bool mlir::npu::isVmem(Type type) {
  return getSpace(type) == MemorySpace::Vmem;
}
bool mlir::npu::isHbm(Type type) { return getSpace(type) == MemorySpace::Hbm; }

Value mlir::npu::getRootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>()) {
    if (view.getViewSource() == v)
      break;
    v = view.getViewSource();
  }
  return v;
}

bool mlir::npu::mayWriteThrough(Operation *op, OpOperand &operand) {
  if (isa<ViewLikeOpInterface, memref::DimOp, memref::LoadOp>(op))
    return false;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return linalgOp.isDpsInit(&operand);
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return operand.get() == copy.getTarget();
  if (auto dma = dyn_cast<DmaStartOp>(op))
    return operand.get() == dma.getTarget();
  return true;
}

bool mlir::npu::mayWriteBuffer(Operation *op, Value root) {
  return llvm::any_of(op->getOpOperands(), [&](OpOperand &operand) {
    return isa<BaseMemRefType>(operand.get().getType()) &&
           getRootBuffer(operand.get()) == root && mayWriteThrough(op, operand);
  });
}

namespace {
/// Pre-order positions of the ops of a function, and for each op the last
/// position of the ops nested in it.
struct Positions {
  DenseMap<Operation *, int64_t> first, last;
  int64_t next = 0;
  void number(Operation *op) {
    first[op] = next++;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Operation &nested : block)
          number(&nested);
    last[op] = next - 1;
  }
};

/// The ops that use the buffer `root` (through views, loop arguments and DMA
/// tokens), for its live range.
SmallVector<Operation *> collectUsers(Value root) {
  SmallVector<Operation *> users;
  SmallVector<Value> worklist{root};
  DenseSet<Value> seen{root};
  auto push = [&](Value v) {
    if (seen.insert(v).second)
      worklist.push_back(v);
  };
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *owner = use.getOwner();
      users.push_back(owner);
      if (auto view = dyn_cast<ViewLikeOpInterface>(owner)) {
        if (view.getViewSource() == v)
          for (Value r : owner->getResults())
            push(r);
      } else if (auto dma = dyn_cast<DmaStartOp>(owner)) {
        push(dma.getToken());
      } else if (auto forOp = dyn_cast<scf::ForOp>(owner)) {
        // An iteration argument: its uses in the body and the result.
        if (OpResult r = forOp.getTiedLoopResult(&use)) {
          push(r);
          push(forOp.getTiedLoopRegionIterArg(&use));
        }
      } else if (auto yield = dyn_cast<scf::YieldOp>(owner)) {
        Operation *parent = yield->getParentOp();
        if (use.getOperandNumber() < parent->getNumResults())
          push(parent->getResult(use.getOperandNumber()));
        if (auto forOp = dyn_cast<scf::ForOp>(parent))
          push(forOp.getRegionIterArgs()[use.getOperandNumber()]);
      }
    }
  }
  return users;
}
} // namespace

FailureOr<SramLiveness> mlir::npu::computeSramLiveness(func::FuncOp func) {
  Positions pos;
  pos.number(func);
  SramLiveness result;
  WalkResult walk = func.walk([&](Operation *op) {
    if (isa<func::CallOp>(op))
      result.calls.push_back({op, pos.first[op]});
    auto alloc = dyn_cast<memref::AllocOp>(op);
    if (!alloc || !isVmem(alloc.getType()))
      return WalkResult::advance();
    MemRefType type = alloc.getType();
    // Bytes per element: a scalar's (NpuWork's), a vector's elements';
    // none for anything else (a memref of memrefs).
    Type element = type.getElementType();
    int64_t elementBytes = 0;
    if (auto vector = dyn_cast<VectorType>(element))
      elementBytes = vector.hasStaticShape()
                         ? vector.getNumElements() *
                               static_cast<int64_t>(getElementBytes(vector))
                         : 0;
    else if (!isa<ShapedType>(element))
      elementBytes = static_cast<int64_t>(getElementBytes(element));
    if (!type.hasStaticShape() || elementBytes <= 0) {
      alloc.emitError("VMEM buffer must have a static shape and an element "
                      "type with a byte size: ")
          << type;
      return WalkResult::interrupt();
    }
    SramBuffer buffer;
    buffer.alloc = alloc;
    buffer.bytes = type.getNumElements() * elementBytes;
    buffer.alignment = std::lcm(
        std::max<int64_t>(alloc.getAlignment().value_or(1), 1), elementBytes);
    buffer.start = buffer.end = pos.first[alloc];
    Block *block = alloc->getBlock();
    for (Operation *user : collectUsers(alloc.getResult())) {
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      // Flowed out of the block (a loop result): live to the block's end.
      int64_t end =
          ancestor ? pos.last[ancestor] : pos.last[block->getParentOp()];
      buffer.end = std::max(buffer.end, end);
    }
    result.buffers.push_back(buffer);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  llvm::stable_sort(result.buffers,
                    [](const SramBuffer &a, const SramBuffer &b) {
                      return a.start < b.start;
                    });
  return result;
}
