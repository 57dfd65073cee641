//===- TpuVerifySram.cpp - the npu-tpu-verify-sram pass -------------------===//
//
// The contract after SRAM planning (STYLE.md: state the contract between IR
// levels and check it): every VMEM buffer has an offset, fits in one core's
// VMEM, and overlaps no buffer live at the same time. Liveness is derived
// here again; offsets are read from the IR, so a hand-written plan is checked
// like the planner's.
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/KernelCost.h"
#include "npu/Analysis/SramLiveness.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUTPUVERIFYSRAM
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
LogicalResult verifyFunction(func::FuncOp func, TargetAttr target) {
  FailureOr<SramLiveness> liveness = computeSramLiveness(func);
  if (failed(liveness))
    return failure();
  int64_t capacity = target.getTpu().getVmemBytesPerCore();
  SmallVector<int64_t> offsets;
  for (SramBuffer buffer : liveness->buffers) {
    auto attr = buffer.alloc->getAttrOfType<IntegerAttr>("npu.sram_offset");
    if (!attr)
      return buffer.alloc.emitError(
          "npu-tpu-verify-sram: VMEM buffer has no 'npu.sram_offset' (run "
          "npu-tpu-plan-sram)");
    int64_t offset = attr.getInt();
    if (offset < 0 || offset % buffer.alignment != 0)
      return buffer.alloc.emitError("npu-tpu-verify-sram: offset ")
             << offset << " is not a non-negative multiple of the buffer's "
             << "alignment (" << buffer.alignment << " bytes)";
    if (offset > capacity - buffer.bytes)
      return buffer.alloc.emitError("npu-tpu-verify-sram: VMEM buffer [")
             << offset << ", " << offset + buffer.bytes << ") of "
             << buffer.bytes << " bytes exceeds the " << capacity
             << " bytes of VMEM per core of '" << target.getName() << "'";
    offsets.push_back(offset);
  }
  for (size_t i = 0; i < liveness->buffers.size(); ++i) {
    SramBuffer a = liveness->buffers[i];
    for (auto [call, position] : liveness->calls)
      if (a.start <= position && position <= a.end) {
        InFlightDiagnostic diag = call->emitError(
            "npu-tpu-verify-sram: call while a VMEM buffer is live (each "
            "function's plan starts at offset 0)");
        diag.attachNote(a.alloc.getLoc()) << "live buffer allocated here";
        return diag;
      }
    for (size_t j = 0; j < i; ++j) {
      SramBuffer b = liveness->buffers[j];
      if (!a.overlapsInTime(b) || offsets[i] >= offsets[j] + b.bytes ||
          offsets[j] >= offsets[i] + a.bytes)
        continue;
      InFlightDiagnostic diag =
          a.alloc.emitError("npu-tpu-verify-sram: VMEM buffer [")
          << offsets[i] << ", " << offsets[i] + a.bytes
          << ") overlaps the live buffer [" << offsets[j] << ", "
          << offsets[j] + b.bytes << ")";
      diag.attachNote(b.alloc.getLoc()) << "overlapped buffer allocated here";
      return diag;
    }
  }
  return success();
}

struct NpuTpuVerifySramPass
    : public npu::impl::NpuTpuVerifySramBase<NpuTpuVerifySramPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetAttr> target =
        getModuleTpuTarget(module, "npu-tpu-verify-sram");
    if (failed(target))
      return signalPassFailure();
    for (auto func : module.getOps<func::FuncOp>())
      if (failed(verifyFunction(func, *target)))
        return signalPassFailure();
  }
};
} // namespace
