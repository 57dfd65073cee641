//===- ReportCost.cpp - the npu-report-cost pass --------------------------===//
//
// Prints #npu.cost per kernel and per function (text or JSON, schema
// npu-cost/1 in docs/cost-model-tpu.md) and writes the timeline of #npu.slot
// as a Chrome trace. Everything is rendered into memory first, so that a
// failure leaves no partial output.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUREPORTCOST
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
double ns(llvm::APFloat v) { return v.convertToDouble(); }

/// "gemm(rms_norm, matmul)": the kind and the compute ops of the body.
std::string kernelLabel(KernelOp kernel) {
  std::string label = stringifyKernelKind(kernel.getKind()).str();
  SmallVector<std::string> names;
  for (Operation *op : kernel.getComputeOps())
    names.push_back(op->getName().stripDialect().str());
  return label + "(" + llvm::join(names, ",") + ")";
}

std::string tileString(Operation *op) {
  auto tiling = op->getAttrOfType<TilingAttr>("npu.tiling");
  if (!tiling)
    return "-";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(tiling.getTile(), os, "x");
  return s;
}

llvm::json::Object costToJSON(CostAttr c) {
  llvm::json::Object o{{"time_ns", ns(c.getTimeNs())},
                       {"compute_ns", ns(c.getComputeNs())},
                       {"memory_ns", ns(c.getMemoryNs())},
                       {"overhead_ns", ns(c.getOverheadNs())},
                       {"hbm_read_bytes", c.getHbmReadBytes()},
                       {"hbm_write_bytes", c.getHbmWriteBytes()},
                       {"onchip_bytes", c.getOnchipBytes()},
                       {"flops", c.getFlops()},
                       {"padded_flops", c.getPaddedFlops()},
                       {"bound", stringifyCostBound(c.getBound())},
                       {"matrix_utilization", ns(c.getMatrixUtilization())}};
  if (auto h = c.getL2HitRate())
    o["l2_hit_rate"] = ns(*h);
  if (auto w = c.getWaves())
    o["waves"] = ns(*w);
  return o;
}

/// Times each function is called by the others (1 for roots).
llvm::DenseMap<Operation *, int64_t> countCalls(ModuleOp module) {
  SymbolTable symbols(module);
  llvm::DenseMap<Operation *, int64_t> calls;
  module.walk([&](func::CallOp call) {
    if (auto f = symbols.lookup<func::FuncOp>(call.getCallee()))
      ++calls[f];
  });
  return calls;
}

void printCostRow(llvm::raw_ostream &os, StringRef name, StringRef tile,
                  CostAttr c, std::optional<double> start) {
  os << llvm::formatv(
      "  {0,-44} {1,-22} {2,12:f3} {3,10:f3} {4,10:f3} {5,10:f3} {6,-8} "
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
    llvm::DenseMap<Operation *, int64_t> calls = countCalls(module);
    std::string out;
    llvm::raw_string_ostream os(out);
    llvm::json::Array functions;
    bool any = false;
    for (auto func : module.getOps<func::FuncOp>()) {
      auto total = func->getAttrOfType<CostAttr>("npu.cost");
      if (!total)
        continue;
      any = true;
      int64_t n = calls.lookup(func);
      llvm::json::Array kernels;
      if (format == "text") {
        os << "function @" << func.getSymName();
        if (n)
          os << " (called " << n << " times)";
        os << ": " << llvm::formatv("{0:f3}", ns(total.getTimeNs()) / 1e3)
           << " us\n";
        os << llvm::formatv("  {0,-44} {1,-22} {2,12} {3,10} {4,10} {5,10} "
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
          name = kernelLabel(kernel);
        else if (auto call = dyn_cast<func::CallOp>(op))
          name = ("call @" + call.getCallee()).str();
        else
          continue;
        if (!cost && isa<func::CallOp>(op)) {
          auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
              module, cast<func::CallOp>(op).getCalleeAttr());
          cost =
              callee ? callee->getAttrOfType<CostAttr>("npu.cost") : CostAttr();
        }
        if (!cost)
          continue;
        std::optional<double> start;
        if (slot)
          start = ns(slot.getStartNs());
        if (format == "text") {
          printCostRow(os, name, tileString(&op), cost, start);
        } else {
          llvm::json::Object k = costToJSON(cost);
          k["name"] = name;
          k["tile"] = tileString(&op);
          if (start)
            k["start_ns"] = *start;
          kernels.push_back(std::move(k));
        }
      }
      if (format == "text") {
        printCostRow(os, "total", "", total, std::nullopt);
        os << "\n";
      } else {
        functions.push_back(
            llvm::json::Object{{"name", func.getSymName()},
                               {"calls", n},
                               {"total", costToJSON(total)},
                               {"kernels", std::move(kernels)}});
      }
    }
    if (!any) {
      mlir::emitError(module.getLoc(),
                      "npu-report-cost: no function has a modelled cost "
                      "(run a backend pipeline first)");
      return signalPassFailure();
    }
    if (format == "json") {
      llvm::json::Object root{
          {"schema", "npu-cost/1"},
          {"target", target ? target.getName().str() : std::string()},
          {"functions", std::move(functions)}};
      os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
    }
    if (!trace.empty() && failed(writeTrace(module)))
      return signalPassFailure();
    llvm::outs() << out;
  }

  /// Chrome trace: one process per root function; @model's calls on one
  /// track and the callee's kernels, shifted to the call's start, on a
  /// second.
  LogicalResult writeTrace(ModuleOp module) {
    llvm::json::Array events;
    llvm::DenseMap<Operation *, int64_t> calls = countCalls(module);
    int64_t pid = 0;
    auto addKernels = [&](func::FuncOp func, double offsetNs, int64_t p,
                          int64_t tid) {
      for (Operation &op : func.getBody().front()) {
        auto kernel = dyn_cast<KernelOp>(op);
        auto slot = op.getAttrOfType<SlotAttr>("npu.slot");
        auto cost = op.getAttrOfType<CostAttr>("npu.cost");
        if (!kernel || !slot || !cost)
          continue;
        llvm::json::Object args = costToJSON(cost);
        args["tile"] = tileString(&op);
        events.push_back(llvm::json::Object{
            {"name", kernelLabel(kernel)},
            {"cat", stringifyKernelKind(kernel.getKind())},
            {"ph", "X"},
            {"ts", (offsetNs + ns(slot.getStartNs())) / 1e3},
            {"dur", (ns(slot.getEndNs()) - ns(slot.getStartNs())) / 1e3},
            {"pid", p},
            {"tid", tid},
            {"args", std::move(args)}});
      }
    };
    for (auto func : module.getOps<func::FuncOp>()) {
      if (calls.lookup(func) || !func->hasAttr("npu.cost"))
        continue;
      ++pid;
      events.push_back(llvm::json::Object{
          {"name", "process_name"},
          {"ph", "M"},
          {"pid", pid},
          {"args",
           llvm::json::Object{{"name", "@" + func.getSymName().str()}}}});
      addKernels(func, 0, pid, 2);
      for (Operation &op : func.getBody().front()) {
        auto call = dyn_cast<func::CallOp>(op);
        auto slot = op.getAttrOfType<SlotAttr>("npu.slot");
        if (!call || !slot)
          continue;
        auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
            module, call.getCalleeAttr());
        if (!callee)
          continue;
        double start = ns(slot.getStartNs());
        events.push_back(
            llvm::json::Object{{"name", "@" + call.getCallee().str()},
                               {"cat", "call"},
                               {"ph", "X"},
                               {"ts", start / 1e3},
                               {"dur", (ns(slot.getEndNs()) - start) / 1e3},
                               {"pid", pid},
                               {"tid", 1}});
        addKernels(callee, start, pid, 2);
      }
    }
    llvm::json::Value root(llvm::json::Object{
        {"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}});
    std::string text;
    llvm::raw_string_ostream ts(text);
    ts << root << "\n";
    if (llvm::Error err =
            llvm::writeToOutput(trace, [&](llvm::raw_ostream &os) {
              os << text;
              return llvm::Error::success();
            })) {
      mlir::emitError(module.getLoc(), "npu-report-cost: cannot write trace '")
          << trace << "': " << llvm::toString(std::move(err));
      return failure();
    }
    return success();
  }
};
} // namespace
