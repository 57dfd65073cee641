//===- TpuToHost.cpp - the npu-tpu-to-host pass ---------------------------===//
//
// For execution tests: synchronous copies for DMAs, no memory spaces, so
// that the upstream LLVM lowering runs the TPU memory program on the host.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AttrTypeSubElements.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUTPUTOHOST
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
struct NpuTpuToHostPass : public npu::impl::NpuTpuToHostBase<NpuTpuToHostPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder b(&getContext());
    module.walk([&](Operation *op) {
      if (auto dma = dyn_cast<DmaStartOp>(op)) {
        b.setInsertionPoint(dma);
        // A predicated DMA copies only if its predicate holds.
        if (Value pred = dma.getPredicate()) {
          auto guard = scf::IfOp::create(b, dma.getLoc(), pred);
          b.setInsertionPoint(guard.thenBlock()->getTerminator());
        }
        memref::CopyOp::create(b, dma.getLoc(), dma.getSource(),
                               dma.getTarget());
        b.setInsertionPoint(dma);
        dma.getToken().replaceAllUsesWith(
            ub::PoisonOp::create(b, dma.getLoc(), dma.getToken().getType()));
        dma.erase();
      } else if (isa<DmaWaitOp>(op)) {
        op->erase();
      }
    });
    // The host knows no npu attributes: drop the target and the plan.
    module->removeAttr("npu.target");
    module.walk([](Operation *op) {
      op->removeAttr("npu.sram_offset");
      op->removeAttr("npu.sram_peak");
    });
    AttrTypeReplacer replacer;
    replacer.addReplacement([](MemRefType t) -> std::optional<Type> {
      if (!isa_and_nonnull<MemorySpaceAttr>(t.getMemorySpace()))
        return std::nullopt;
      return MemRefType::get(t.getShape(), t.getElementType(), t.getLayout());
    });
    replacer.addReplacement([](UnrankedMemRefType t) -> std::optional<Type> {
      if (!isa_and_nonnull<MemorySpaceAttr>(t.getMemorySpace()))
        return std::nullopt;
      return UnrankedMemRefType::get(t.getElementType(), Attribute());
    });
    replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);
  }
};
} // namespace
