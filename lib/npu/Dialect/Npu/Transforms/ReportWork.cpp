//===- ReportWork.cpp - the npu-report-work pass --------------------------===//

#include "npu/Analysis/CallOrder.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"
#include "npu/Support/InputFiles.h"
#include "npu/Support/JsonStream.h"
#include "npu/Support/JsonText.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUREPORTWORK
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
struct Row {
  std::string name; // op name or "total"
  std::string loc;  // file:line:col
  Work work;
};

struct FunctionReport {
  std::string name;
  std::vector<Row> rows;
  Work total;
};

std::string locString(Location loc) {
  if (auto fl = dyn_cast<FileLineColLoc>(loc))
    return (fl.getFilename().strref() + ":" + Twine(fl.getLine()) + ":" +
            Twine(fl.getColumn()))
        .str();
  if (auto nl = dyn_cast<NameLoc>(loc))
    return nl.getName().str();
  return "";
}

llvm::json::Object toJson(const Work &w) {
  auto v = [](Count c) { return static_cast<int64_t>(c.value()); };
  // Counts above INT64_MAX are rejected before printing (see runOnOperation).
  return llvm::json::Object{
      {"matrix_flops", v(w.matrixFlops)},
      {"vector_flops", v(w.vectorFlops)},
      {"transcendental_flops", v(w.transcendentalFlops)},
      {"total_flops", v(w.totalFlops())},
      {"bytes_read", v(w.bytesRead)},
      {"bytes_written", v(w.bytesWritten)},
      {"param_bytes", v(w.paramBytes)},
  };
}

bool fitsJson(const Work &w) {
  for (Count c : {w.matrixFlops, w.vectorFlops, w.transcendentalFlops,
                  w.totalFlops(), w.bytesRead, w.bytesWritten, w.paramBytes})
    if (!c.toInt64())
      return false;
  return true;
}

void printText(raw_ostream &os, ArrayRef<FunctionReport> reports) {
  auto line = [&](StringRef name, StringRef loc, const Work &w) {
    os << llvm::format(
        "%-22s %20llu %16llu %16llu %16llu %16llu %16llu  %s\n",
        name.str().c_str(), (unsigned long long)w.matrixFlops.value(),
        (unsigned long long)w.vectorFlops.value(),
        (unsigned long long)w.transcendentalFlops.value(),
        (unsigned long long)w.bytesRead.value(),
        (unsigned long long)w.bytesWritten.value(),
        (unsigned long long)w.paramBytes.value(), loc.str().c_str());
  };
  for (const FunctionReport &r : reports) {
    os << "func @" << r.name << "\n";
    os << llvm::format("%-22s %20s %16s %16s %16s %16s %16s  %s\n", "op",
                       "matrix_flops", "vector_flops", "transc_flops",
                       "bytes_read", "bytes_written", "param_bytes", "loc");
    for (const Row &row : r.rows)
      line(row.name, row.loc, row.work);
    line("total", "", r.total);
    os << "\n";
  }
}

struct NpuReportWorkPass
    : public npu::impl::NpuReportWorkBase<NpuReportWorkPass> {
  using Base::Base;
  void runOnOperation() override {
    if (format != "text" && format != "json") {
      mlir::emitError(getOperation().getLoc(),
                      "npu-report-work: unknown format '")
          << format << "' (expected 'text' or 'json')";
      return signalPassFailure();
    }
    // Each op's work is listed once: an op in a loop or a linalg op would
    // make the totals wrong.
    if (mlir::failed(getCallOrder(getOperation(), "npu-report-work")))
      return signalPassFailure();
    std::vector<FunctionReport> reports;
    bool failed = false;
    getOperation().walk([&](FunctionOpInterface func) {
      if (func.isExternal())
        return;
      FunctionReport report;
      report.name = func.getName().str();
      func.walk([&](WorkOpInterface op) {
        FailureOr<Work> w = getCheckedWork(op);
        if (mlir::failed(w)) {
          failed = true;
          return;
        }
        report.total += *w;
        report.rows.push_back(
            {op->getName().getStringRef().str(), locString(op->getLoc()), *w});
      });
      if (report.total.isOverflow() || !fitsJson(report.total)) {
        mlir::emitError(func.getLoc(),
                        "total work of this function does not fit in 63 bits");
        failed = true;
      }
      reports.push_back(std::move(report));
    });
    if (failed)
      return signalPassFailure();

    if (format == "text") {
      printText(llvm::outs(), reports);
      return;
    }
    // Written as it is made, an op at a time (JsonStream).
    JsonStream js(llvm::outs(), 2);
    js.object([&] {
      js.attributeArray("functions", [&] {
        for (const FunctionReport &r : reports)
          js.object([&] {
            js.attribute("name", jsonText(r.name));
            js.attributeArray("ops", [&] {
              for (const Row &row : r.rows) {
                llvm::json::Object o = toJson(row.work);
                o["op"] = row.name;
                o["loc"] = jsonText(row.loc);
                js.value(std::move(o));
              }
            });
            js.attribute("total", toJson(r.total));
          });
      });
    });
    if (mlir::failed(js.finish(getOperation().getLoc(), "npu-report-work")))
      return signalPassFailure();
  }
};
} // namespace
