//===- npu-fuzz-passes.cpp - fuzz the npu passes and pipelines ------------===//
//
// Input: MLIR text. Inputs that parse and verify go through each npu pass on
// a fresh copy of the module:
//   --npu-report-work (text and json),
//   --npu-report-bill on the mock-gpu target (text and json),
//   --npu-lower-to-linalg, whose output must verify (checked here, with the
//     pass manager's own verifier off, so that invalid IR out of the pass is
//     a finding and not a quiet pass failure),
//   then, when the input holds nothing but npu, func and builtin ops, the
//   rest of --npu-reference-to-llvm on the lowered module. (On arbitrary
//   upstream IR that pipeline would fuzz upstream MLIR's passes, which is
//   not this project's to fix; npu-fuzz-parse covers parsing it.)
// A pass may fail with a diagnostic; it must not crash. The reports go to
// stdout, which is sent to /dev/null.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "npu/Conversion/Passes.h"
#include "npu/Dialect/Npu/IR/NpuDialect.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"
#include "npu/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

namespace {
/// Runs `pm` on a copy of `module`; returns the copy when the passes succeed.
OwningOpRef<ModuleOp> runOnCopy(PassManager &pm, ModuleOp module) {
  OwningOpRef<ModuleOp> copy = module.clone();
  if (failed(pm.run(*copy)))
    return nullptr;
  return copy;
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  npu_fuzz::discardStdout();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  npu_fuzz::FuzzContext context;
  OwningOpRef<ModuleOp> module =
      npu_fuzz::parseVerifiedModule(context.get(), data, size);
  if (!module)
    return 0;

  for (const char *format : {"text", "json"}) {
    PassManager work(context.get());
    work.addPass(npu::createNpuReportWork(npu::NpuReportWorkOptions{format}));
    (void)runOnCopy(work, *module);
    PassManager bill(context.get());
    bill.addPass(npu::createNpuReportBill(
        npu::NpuReportBillOptions{"mock-gpu", format}));
    (void)runOnCopy(bill, *module);
  }

  PassManager lower(context.get());
  lower.enableVerifier(false);
  lower.addPass(npu::createNpuLowerToLinalg());
  OwningOpRef<ModuleOp> lowered = runOnCopy(lower, *module);
  if (!lowered)
    return 0;
  if (failed(verify(*lowered)))
    npu_fuzz::fail("npu-lower-to-linalg succeeded but its output does not "
                   "verify:\n" +
                   context.getDiagnostics());

  if (!npu_fuzz::isNpuGraph(*module))
    return 0;
  PassManager toLLVM(context.get());
  npu::buildReferenceToLLVMPipeline(toLLVM);
  (void)runOnCopy(toLLVM, *lowered);
  return 0;
}
