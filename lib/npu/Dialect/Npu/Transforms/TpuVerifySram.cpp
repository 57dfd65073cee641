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
  // Calls by position: a buffer live across one is found by a binary
  // search, not a scan.
  SmallVector<std::pair<int64_t, Operation *>> calls;
  for (auto [call, position] : liveness->calls)
    calls.emplace_back(position, call);
  llvm::stable_sort(calls, llvm::less_first());
  // The buffers come in order of start: the earlier ones a buffer overlaps
  // in time are those still live at its start (a sweep, so the check is
  // linear in the buffers times the most live at once, not quadratic).
  SmallVector<size_t> live;
  for (size_t i = 0; i < liveness->buffers.size(); ++i) {
    SramBuffer a = liveness->buffers[i];
    auto call = llvm::partition_point(
        calls, [&](const auto &c) { return c.first < a.start; });
    if (call != calls.end() && call->first <= a.end) {
      InFlightDiagnostic diag = call->second->emitError(
          "npu-tpu-verify-sram: call while a VMEM buffer is live (each "
          "function's plan starts at offset 0)");
      diag.attachNote(a.alloc.getLoc()) << "live buffer allocated here";
      return diag;
    }
    llvm::erase_if(live, [&](size_t j) {
      return !a.overlapsInTime(liveness->buffers[j]);
    });
    for (size_t j : live) {
      SramBuffer b = liveness->buffers[j];
      if (offsets[i] >= offsets[j] + b.bytes ||
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
    live.push_back(i);
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
