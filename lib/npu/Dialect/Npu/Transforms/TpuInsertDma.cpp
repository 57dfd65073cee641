//===- TpuInsertDma.cpp - the npu-tpu-insert-dma pass ---------------------===//
//
// HBM <-> VMEM copies become asynchronous DMAs: npu.dma_start at the copy,
// npu.dma_wait before the first later op of the block that conflicts with it.
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/SramLiveness.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUTPUINSERTDMA
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
/// Whether `op` (or an op nested in it) accesses the buffer `target`, or may
/// write the buffer `source`: the DMA must have completed before it.
bool conflicts(Operation *op, Value source, Value target) {
  WalkResult result = op->walk([&](Operation *nested) {
    if (isa<ViewLikeOpInterface, memref::DimOp>(nested))
      return WalkResult::advance(); // making a view accesses nothing
    for (OpOperand &operand : nested->getOpOperands()) {
      if (!isa<BaseMemRefType>(operand.get().getType()))
        continue;
      Value root = getRootBuffer(operand.get());
      if (root == target ||
          (root == source && mayWriteThrough(nested, operand)))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

struct NpuTpuInsertDmaPass
    : public npu::impl::NpuTpuInsertDmaBase<NpuTpuInsertDmaPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      Type from = copy.getSource().getType(), to = copy.getTarget().getType();
      if ((isHbm(from) && isVmem(to)) || (isVmem(from) && isHbm(to)))
        copies.push_back(copy);
    });
    OpBuilder b(&getContext());
    for (memref::CopyOp copy : copies) {
      b.setInsertionPoint(copy);
      auto dma = DmaStartOp::create(b, copy.getLoc(), copy.getSource(),
                                    copy.getTarget());
      Value source = getRootBuffer(copy.getSource());
      Value target = getRootBuffer(copy.getTarget());
      Operation *waitBefore = copy->getBlock()->getTerminator();
      for (Operation *op = copy->getNextNode(); op && op != waitBefore;
           op = op->getNextNode()) {
        if (conflicts(op, source, target)) {
          waitBefore = op;
          break;
        }
      }
      b.setInsertionPoint(waitBefore);
      DmaWaitOp::create(b, copy.getLoc(), dma.getToken());
      copy.erase();
    }
  }
};
} // namespace
