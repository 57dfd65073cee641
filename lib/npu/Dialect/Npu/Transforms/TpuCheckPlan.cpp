//===- TpuCheckPlan.cpp - the lowered program against the priced plan -----===//
//
// Each kernel is lowered on its own, in a module nested in this one for the
// time of the check (a dynamic pipeline on an op the pass owns), measured,
// and compared with the #npu.cost and #npu.tiling the TPU-like pipeline
// wrote on it. After this, a model that prices something the lowering does
// not build fails a test.
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/KernelCost.h"
#include "npu/Analysis/ProgramMeasure.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

namespace mlir::npu {
#define GEN_PASS_DEF_NPUTPUCHECKPLAN
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
/// |measured - claimed| / claimed; 0 when both are 0, infinite when only
/// the claim is.
double relativeError(int64_t measured, int64_t claimed) {
  if (claimed == 0)
    return measured == 0 ? 0.0 : INFINITY;
  return std::fabs(static_cast<double>(measured) - claimed) / claimed;
}

std::string percent(double x) {
  return std::isfinite(x) ? llvm::formatv("{0:F1}%", 100 * x).str() : "inf";
}

struct NpuTpuCheckPlanPass
    : public npu::impl::NpuTpuCheckPlanBase<NpuTpuCheckPlanPass> {
  using Base::Base;
  int64_t unmeasurable = 0;

  FailureOr<OpPassManager> parseLowering(raw_ostream &errors) const {
    return parsePassPipeline("builtin.module(" + lowerPipeline + ")", errors);
  }

  // The lowering's passes need their dialects loaded before any runs.
  void getDependentDialects(DialectRegistry &registry) const override {
    std::string ignored;
    llvm::raw_string_ostream os(ignored);
    if (FailureOr<OpPassManager> pm = parseLowering(os); succeeded(pm))
      pm->getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetAttr> target =
        getModuleTpuTarget(module, "npu-tpu-check-plan");
    if (failed(target))
      return signalPassFailure();
    if (!(tolerance >= 0) || !std::isfinite(tolerance)) {
      mlir::emitError(module.getLoc())
          << "npu-tpu-check-plan: tolerance must be a finite "
             "number >= 0, got "
          << tolerance;
      return signalPassFailure();
    }
    std::string parseErrors;
    llvm::raw_string_ostream errs(parseErrors);
    FailureOr<OpPassManager> lowering = parseLowering(errs);
    if (failed(lowering)) {
      mlir::emitError(module.getLoc())
          << "npu-tpu-check-plan: cannot parse lower-pipeline '"
          << lowerPipeline << "': " << parseErrors;
      return signalPassFailure();
    }

    SmallVector<KernelOp> kernels;
    module.walk([&](KernelOp k) { kernels.push_back(k); });
    if (kernels.empty()) {
      mlir::emitError(module.getLoc())
          << "npu-tpu-check-plan: no npu.kernel to check "
             "(run npu-tpu-pipeline first)";
      return signalPassFailure();
    }
    std::string table;
    llvm::raw_string_ostream os(table);
    os << "kernel\tkind\thbm_read claimed\thbm_read lowered\thbm_write "
          "claimed\thbm_write lowered\tdmas\tvmem model\tvmem plan\tstatus\n";
    int64_t failing = 0;
    unmeasurable = 0;
    for (auto [index, kernel] : llvm::enumerate(kernels))
      failing += failed(checkKernel(kernel, index, *target, *lowering, os));
    os << "npu-tpu-check-plan: " << kernels.size() << " kernels, "
       << kernels.size() - failing << " as priced, " << failing
       << " not; bytes not measurable in " << unmeasurable << "\n";
    if (report)
      llvm::outs() << table;
    if (failing)
      signalPassFailure();
  }

  LogicalResult checkKernel(KernelOp kernel, size_t index, TargetAttr target,
                            OpPassManager &lowering, raw_ostream &os) {
    auto cost = kernel->getAttrOfType<CostAttr>("npu.cost");
    auto tiling = kernel->getAttrOfType<TilingAttr>("npu.tiling");
    if (!cost || !tiling)
      return mlir::emitError(kernel.getLoc())
             << "npu-tpu-check-plan: the kernel has no npu.cost or "
                "npu.tiling (run npu-tpu-pipeline first)";

    // The kernel alone, as a function of its operands, in a module of its
    // own nested here.
    OpBuilder b(getOperation().getBody(), getOperation().getBody()->end());
    Location loc = kernel.getLoc();
    auto nested = ModuleOp::create(b, loc);
    nested->setAttr("npu.target", target);
    b.setInsertionPointToEnd(nested.getBody());
    auto func = func::FuncOp::create(
        b, loc, "kernel",
        b.getFunctionType(kernel->getOperandTypes(), kernel->getResultTypes()));
    Block *entry = func.addEntryBlock();
    b.setInsertionPointToEnd(entry);
    IRMapping map;
    map.map(kernel->getOperands(), entry->getArguments());
    Operation *copy = b.clone(*kernel, map);
    func::ReturnOp::create(b, loc, copy->getResults());

    LogicalResult lowered = runPipeline(lowering, nested);
    ProgramMeasure m;
    if (succeeded(lowered))
      m = measureTpuProgram(*nested.getBody()->getOps<func::FuncOp>().begin());
    nested.erase();
    if (failed(lowered))
      return mlir::emitError(kernel.getLoc())
             << "npu-tpu-check-plan: the kernel does not lower";

    StringRef kind = stringifyKernelKind(kernel.getKind());
    int64_t read = m.dmaReadBytes + m.hbmCopyBytes;
    int64_t write = m.dmaWriteBytes + m.hbmCopyBytes;
    // The program is one core's: partial sums exchanged between cores are
    // priced, not lowered.
    int64_t crossCore = cost.getCrossCoreBytes().value_or(0);
    int64_t claimedRead = cost.getHbmReadBytes() - crossCore;
    int64_t claimedWrite = cost.getHbmWriteBytes() - crossCore;
    bool measured = m.unmeasured.empty();
    LogicalResult result = success();
    std::string status;
    // A difference: noted in the row, reported at the kernel.
    auto fail = [&](const Twine &note) -> InFlightDiagnostic {
      status += (status.empty() ? "" : "; ") + note.str();
      result = failure();
      return mlir::emitError(kernel.getLoc())
             << "npu-tpu-check-plan: " << kind << " kernel " << index << ": ";
    };
    auto mismatch = [&](StringRef what, int64_t lowered, int64_t claimed,
                        double error) {
      fail(what + " off") << "the lowered program " << what << " " << lowered
                          << " B, the cost model claims " << claimed << " B ("
                          << percent(error) << " off, tolerance "
                          << percent(tolerance) << ")";
    };
    if (measured) {
      double readError = relativeError(read, claimedRead);
      if (readError > tolerance)
        mismatch("reads from HBM", read, claimedRead, readError);
      double writeError = relativeError(write, claimedWrite);
      if (writeError > tolerance)
        mismatch("writes to HBM", write, claimedWrite, writeError);
    } else {
      ++unmeasurable;
      status = "bytes not measurable: " + m.unmeasured;
    }
    if (m.hbmComputeOps > 0)
      fail("computes on HBM")
          << "the lowered program computes on HBM directly (" << m.hbmComputeOps
          << " ops, the first " << m.hbmComputeOp
          << "): a TPU-like core computes on VMEM only";
    int64_t model = tiling.getSramBytes();
    if (m.vmemPeakBytes < 0)
      fail("no vmem plan") << "the lowered program has no VMEM plan";
    else if (static_cast<double>(m.vmemPeakBytes) >
             (1 + tolerance) * static_cast<double>(model))
      fail("vmem over") << "the VMEM plan needs " << m.vmemPeakBytes
                        << " B, the cost model priced a working set of "
                        << model << " B";
    if (status.empty())
      status = "ok";
    if (crossCore > 0)
      status += "; " + std::to_string(crossCore) +
                " B of partial sums between cores priced, not lowered";
    os << index << "\t" << kind << "\t" << claimedRead << "\t"
       << (measured ? std::to_string(read) : "-") << "\t" << claimedWrite
       << "\t" << (measured ? std::to_string(write) : "-") << "\t"
       << (measured ? std::to_string(m.dmas) : "-") << "\t" << model << "\t"
       << m.vmemPeakBytes << "\t" << status << "\n";
    return result;
  }
};
} // namespace
