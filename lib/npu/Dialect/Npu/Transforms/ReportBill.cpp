//===- ReportBill.cpp - the npu-report-bill pass --------------------------===//

#include "npu/Analysis/Bill.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"
#include "npu/Support/InputFiles.h"
#include "npu/Target/Target.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUREPORTBILL
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
struct NpuReportBillPass
    : public npu::impl::NpuReportBillBase<NpuReportBillPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (format != "text" && format != "json") {
      mlir::emitError(module.getLoc(), "npu-report-bill: unknown format '")
          << format << "' (expected 'text' or 'json')";
      return signalPassFailure();
    }
    // The chip: the option, else the module's own (a module compiled for
    // one chip is billed on it); never a silent default.
    TargetAttr chip = module->getAttrOfType<TargetAttr>("npu.target");
    if (!target.empty()) {
      llvm::Expected<target::TargetFile> file =
          target::loadTarget(&getContext(), target);
      if (!file) {
        mlir::emitError(module.getLoc(), "npu-report-bill: ")
            << llvm::toString(file.takeError());
        return signalPassFailure();
      }
      chip = file->attr;
    }
    if (!chip) {
      mlir::emitError(module.getLoc(),
                      "npu-report-bill: no target: give one "
                      "(--npu-report-bill=\"target=<name>\") or set the "
                      "module's npu.target");
      return signalPassFailure();
    }
    FailureOr<ModelBill> bill = computeBill(module, chip);
    if (failed(bill))
      return signalPassFailure();
    // Render fully before writing, so that a failure leaves no partial
    // report.
    std::string out;
    llvm::raw_string_ostream os(out);
    if (format == "json") {
      if (failed(printJson(os, bill->toJSON(), 2, module.getLoc(),
                           "npu-report-bill")))
        return signalPassFailure();
    } else
      bill->printText(os);
    llvm::outs() << out;
  }
};
} // namespace
