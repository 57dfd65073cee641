//===- ReportCost.cpp - the npu-report-cost pass --------------------------===//
//
// Prints #npu.cost per kernel and per function (text or JSON, schema
// npu-cost/1 in docs/cost-model-tpu.md) and writes the timeline of #npu.slot
// as a Chrome trace. Both are written as they are made (a kernel row at a
// time), so memory does not grow with the kernels; every check that can
// fail runs before the first byte (the numbers come from verified
// attributes: #npu.cost holds finite values only).
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/CallOrder.h"
#include "npu/Analysis/CostReport.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"
#include "npu/Support/InputFiles.h"
#include "npu/Support/JsonStream.h"
#include "npu/Support/JsonText.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUREPORTCOST
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
double ns(llvm::APFloat v) { return v.convertToDouble(); }

void printCostRow(llvm::raw_ostream &os, StringRef name, StringRef tile,
                  CostAttr c, std::optional<double> start) {
  os << llvm::formatv(
      "  {0,-44} {1,-30} {2,12:f3} {3,10:f3} {4,10:f3} {5,10:f3} {6,-8} "
      "{7,14} {8,14} {9,12} {10,7:f3} {11,12}\n",
      name, tile, ns(c.getTimeNs()) / 1e3, ns(c.getComputeNs()) / 1e3,
      ns(c.getMemoryNs()) / 1e3, ns(c.getOverheadNs()) / 1e3,
      stringifyCostBound(c.getBound()), c.getHbmReadBytes(),
      c.getHbmWriteBytes(), c.getOnchipBytes(), ns(c.getMatrixUtilization()),
      start ? llvm::formatv("{0:f3}", *start / 1e3).str() : std::string("-"));
}

struct NpuReportCostPass
    : public npu::impl::NpuReportCostBase<NpuReportCostPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (format != "text" && format != "json") {
      mlir::emitError(module.getLoc(), "npu-report-cost: unknown format '")
          << format << "' (expected 'text' or 'json')";
      return signalPassFailure();
    }
    auto target = module->getAttrOfType<TargetAttr>("npu.target");
    FailureOr<CallOrder> order = getCallOrder(module, "npu-report-cost");
    if (failed(order))
      return signalPassFailure();
    auto costed = llvm::make_filter_range(
        module.getOps<func::FuncOp>(),
        [](func::FuncOp f) { return f->hasAttr("npu.cost"); });
    if (costed.empty()) {
      mlir::emitError(module.getLoc(),
                      "npu-report-cost: no function has a modelled cost "
                      "(run a backend pipeline first)");
      return signalPassFailure();
    }
    // The trace first (staged, committed with the tool's other outputs):
    // the report then goes to stdout as it is made, a row at a time.
    if (!trace.empty() && failed(writeCostTrace(module, trace)))
      return signalPassFailure();
    llvm::raw_ostream &os = llvm::outs();
    std::optional<JsonStream> js;
    if (format == "json") {
      js.emplace(os, 2);
      js->objectBegin();
      js->attribute("schema", "npu-cost/1");
      js->attribute("target", jsonText(target ? target.getName() : ""));
      js->attributeBegin("functions");
      js->arrayBegin();
    }
    for (func::FuncOp func : costed) {
      auto total = func->getAttrOfType<CostAttr>("npu.cost");
      // Runs per run of the roots, for a function that is called.
      int64_t n = 0;
      if (!order->isRoot(func))
        n = order->getExecutions(func).toInt64().value_or(INT64_MAX);
      if (js) {
        js->objectBegin();
        js->attribute("name", jsonText(func.getSymName()));
        js->attribute("calls", n);
        js->attribute("total", costToJSON(total));
        js->attributeBegin("kernels");
        js->arrayBegin();
      } else {
        os << "function @" << func.getSymName();
        if (n)
          os << " (called " << n << " times)";
        os << ": " << llvm::formatv("{0:f3}", ns(total.getTimeNs()) / 1e3)
           << " us\n";
        os << llvm::formatv("  {0,-44} {1,-30} {2,12} {3,10} {4,10} {5,10} "
                            "{6,-8} {7,14} {8,14} {9,12} {10,7} {11,12}\n",
                            "kernel", "tile", "time_us", "compute", "memory",
                            "overhead", "bound", "hbm_read_B", "hbm_write_B",
                            "sram_B", "util", "start_us");
      }
      for (Operation &op : func.getBody().front()) {
        auto cost = op.getAttrOfType<CostAttr>("npu.cost");
        auto slot = op.getAttrOfType<SlotAttr>("npu.slot");
        std::string name;
        if (auto kernel = dyn_cast<KernelOp>(op))
          name = getKernelLabel(kernel);
        else if (auto call = dyn_cast<func::CallOp>(op))
          name = ("call @" + call.getCallee()).str();
        else
          continue;
        if (!cost)
          cost = getItemCost(&op);
        if (!cost)
          continue;
        std::optional<double> start;
        if (slot)
          start = ns(slot.getStartNs());
        if (!js) {
          printCostRow(os, name, getTileString(&op), cost, start);
          continue;
        }
        llvm::json::Object k = costToJSON(cost);
        k["name"] = name;
        k["tile"] = getTileString(&op);
        if (start)
          k["start_ns"] = *start;
        js->value(std::move(k));
      }
      if (js) {
        js->arrayEnd();
        js->attributeEnd();
        js->objectEnd();
      } else {
        printCostRow(os, "total", "", total, std::nullopt);
        os << "\n";
      }
    }
    if (js) {
      js->arrayEnd();
      js->attributeEnd();
      js->objectEnd();
      if (failed(js->finish(module.getLoc(), "npu-report-cost")))
        return signalPassFailure();
    }
  }
};
} // namespace
