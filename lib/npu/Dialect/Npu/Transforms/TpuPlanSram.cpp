//===- TpuPlanSram.cpp - the npu-tpu-plan-sram pass -----------------------===//
//
// Decides the VMEM offset of every VMEM buffer: first fit in order of the
// buffers' first use, over the live ranges of SramLiveness. Writes the
// decision (`npu.sram_offset`, `npu.sram_peak`); npu-tpu-verify-sram checks it.
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/SramLiveness.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUTPUPLANSRAM
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
int64_t alignUp(int64_t x, int64_t alignment) {
  return (x + alignment - 1) / alignment * alignment;
}

/// First fit: the lowest aligned offset at which `buffer` overlaps none of
/// `live` (placed buffers live at the same time, with their offsets).
int64_t firstFit(const SramBuffer &buffer,
                 ArrayRef<std::pair<const SramBuffer *, int64_t>> live) {
  SmallVector<int64_t> candidates{0};
  for (auto [other, offset] : live)
    candidates.push_back(alignUp(offset + other->bytes, buffer.alignment));
  llvm::sort(candidates);
  for (int64_t candidate : candidates) {
    bool fits = llvm::none_of(live, [&](auto placed) {
      auto [other, offset] = placed;
      return candidate < offset + other->bytes &&
             offset < candidate + buffer.bytes;
    });
    if (fits)
      return candidate;
  }
  llvm_unreachable("the end of the highest buffer is always free");
}

struct NpuTpuPlanSramPass
    : public npu::impl::NpuTpuPlanSramBase<NpuTpuPlanSramPass> {
  void runOnOperation() override {
    Builder b(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      FailureOr<SramLiveness> liveness = computeSramLiveness(func);
      if (failed(liveness))
        return signalPassFailure();
      // Buffers in order of start; `placed` keeps the ones still live.
      SmallVector<std::pair<const SramBuffer *, int64_t>> placed;
      int64_t peak = 0;
      for (const SramBuffer &buffer : liveness->buffers) {
        llvm::erase_if(placed,
                       [&](auto p) { return p.first->end < buffer.start; });
        int64_t offset = firstFit(buffer, placed);
        placed.push_back({&buffer, offset});
        peak = std::max(peak, offset + buffer.bytes);
        buffer.alloc->setAttr("npu.sram_offset", b.getI64IntegerAttr(offset));
      }
      func->setAttr("npu.sram_peak", b.getI64IntegerAttr(peak));
    }
  }
};
} // namespace
