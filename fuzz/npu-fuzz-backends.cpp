//===- npu-fuzz-backends.cpp - fuzz the backend pipelines and npu-compare -===//
//
// Input: MLIR text. Graph modules (npu, func and builtin ops only, as the
// importer writes them) that parse and verify are compiled as npu-compare
// compiles them: compareModule on the mock pair runs --npu-tpu-pipeline
// (mock-tpu) and --npu-gpu-pipeline (mock-gpu) on copies, then the
// comparison is rendered every way the tool renders it (text, JSON, the
// three SVGs, both Chrome traces). Both compiled modules are then lowered
// with their tiles applied (--npu-tiled-to-llvm), and the TPU-compiled one
// through the memory pipeline to LLVM (--npu-tpu-lower-to-llvm: tiling,
// bufferization, DMA, double buffering, the SRAM plan and its check, host
// code). Whatever succeeds must verify. A pipeline may fail with a diagnostic;
// it must not crash.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "npu/Analysis/CostReport.h"
#include "npu/Compare/Compare.h"
#include "npu/Compare/CompareReport.h"
#include "npu/Compare/CompareSvg.h"
#include "npu/Pipelines/Pipelines.h"
#include "npu/Support/JsonStream.h"

#include "mlir/Pass/PassManager.h"

using namespace mlir;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  npu_fuzz::discardStdout();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  npu_fuzz::FuzzContext context;
  OwningOpRef<ModuleOp> module =
      npu_fuzz::parseVerifiedModule(context.get(), data, size);
  if (!module || !npu_fuzz::isNpuGraph(*module))
    return 0;

  FailureOr<npu::Comparison> cmp =
      npu::compareModule(*module, "mock-tpu", "mock-gpu");
  if (failed(cmp))
    return 0;
  for (OwningOpRef<ModuleOp> &compiled : cmp->module)
    if (failed(verify(*compiled)))
      npu_fuzz::fail("a backend pipeline succeeded but its output does not "
                     "verify:\n" +
                     context.getDiagnostics());
  std::string text;
  llvm::raw_string_ostream os(text);
  npu::printComparisonText(*cmp, os, /*top=*/0);
  npu::JsonStream js(os, 0);
  npu::writeComparisonJSON(js, *cmp);
  (void)js.finish(UnknownLoc::get(context.get()), "npu-compare");
  os << npu::renderRooflineSvg(*cmp, npu::CompareSide::Tpu)
     << npu::renderRooflineSvg(*cmp, npu::CompareSide::Gpu)
     << npu::renderTimelineSvg(*cmp) << npu::renderDeltaSvg(*cmp);
  for (OwningOpRef<ModuleOp> &compiled : cmp->module)
    (void)npu::writeCostTrace(*compiled, "-");

  // Each compiled module's tiles applied and lowered to LLVM
  // (--npu-tiled-to-llvm), and the TPU-compiled one through the memory
  // pipeline down to LLVM (--npu-tpu-lower-to-llvm).
  auto lowerAndVerify = [&](ModuleOp compiled, StringRef name,
                            llvm::function_ref<void(OpPassManager &)> build) {
    PassManager pm(context.get());
    pm.enableVerifier(false);
    build(pm);
    OwningOpRef<ModuleOp> copy = compiled.clone();
    if (succeeded(pm.run(*copy)) && failed(verify(*copy)))
      npu_fuzz::fail(name + " succeeded but its output does not verify:\n" +
                     context.getDiagnostics());
  };
  for (OwningOpRef<ModuleOp> &compiled : cmp->module)
    lowerAndVerify(*compiled, "npu-tiled-to-llvm", [](OpPassManager &pm) {
      npu::buildTiledToLLVMPipeline(pm);
    });
  lowerAndVerify(
      *cmp->module[0], "npu-tpu-lower-to-llvm", [](OpPassManager &pm) {
        npu::buildTpuLowerToLLVMPipeline(pm, npu::TpuLowerPipelineOptions());
      });
  return 0;
}
