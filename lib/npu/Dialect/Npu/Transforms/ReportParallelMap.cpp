//===- ReportParallelMap.cpp - the npu-report-parallel-map pass -----------===//

#include "npu/Dialect/Npu/Transforms/Passes.h"
#include "npu/Parallel/ParallelMap.h"
#include "npu/Support/FormatReal.h"
#include "npu/Support/InputFiles.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUREPORTPARALLELMAP
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::parallel;

namespace {

/// Four significant digits (formatSignificant).
std::string num(double v) { return formatSignificant(v, 4); }

void printText(llvm::raw_ostream &os, const target::System &system,
               const ModelShape &s, const std::vector<MapRow> &rows) {
  os << llvm::formatv(
      "parallelism map: {0}, T = {1} tokens, D = {2} x {3} B, {4} layers",
      s.phase, s.tokens, s.hidden, s.activationBytes, s.layers);
  if (s.moeLayers)
    os << llvm::formatv(" ({0} with top-{1} of {2} experts)", s.moeLayers,
                        s.topK, s.experts);
  os << llvm::formatv(", kv {0} B per token per layer, {1} parameters\n",
                      s.kvBytesPerTokenPerLayer, num(s.parameterCount));
  os << "system " << system.name << " (" << system.getChipCount() << " x "
     << system.chip.attr.getName() << ")\n\n";
  const char *row = "{0,-30} {1,-10} {2,-15} {3,-9} {4,-7} {5,5} {6,12} "
                    "{7,9} {8,14} {9,14}  {10}\n";
  os << llvm::formatv(row, "dimension", "when", "collective", "level", "axes",
                      "chips", "V_bytes", "per_step", "us_per_step",
                      "us_per_occur", "what / frequency");
  for (const MapRow &r : rows)
    for (const MapRow::Level &l : r.levels)
      os << llvm::formatv(
          row, r.dimension, r.when, stringifyCollectiveKind(r.kind), l.level,
          l.axes, l.chips,
          llvm::formatv("{0}", llvm::format("%.0f", l.bytes)).str(), l.perStep,
          num(l.stepSeconds * 1e6), num(l.occurrence.seconds * 1e6),
          r.what + "; " + r.frequency);
}

struct NpuReportParallelMapPass
    : public npu::impl::NpuReportParallelMapBase<NpuReportParallelMapPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fail = [&](const llvm::Twine &message) {
      mlir::emitError(module.getLoc(), "npu-report-parallel-map: ") << message;
      signalPassFailure();
    };
    if (format != "text" && format != "json")
      return fail("unknown format '" + format +
                  "' (expected 'text' or 'json')");
    if (system.empty())
      return fail("no system: give one (--npu-report-parallel-map="
                  "\"system=<name>\"), a file of npu-target/systems/");
    llvm::Expected<target::System> sys =
        target::loadSystem(&getContext(), system);
    if (!sys)
      return fail(llvm::toString(sys.takeError()));
    FailureOr<ModelBill> bill = computeBill(module, sys->chip.attr);
    if (failed(bill))
      return signalPassFailure();
    FailureOr<ModelShape> shape = readModelShape(module, *bill);
    if (failed(shape))
      return signalPassFailure();
    llvm::Expected<std::vector<MapRow>> rows = buildParallelMap(*shape, *sys);
    if (!rows)
      return fail(llvm::toString(rows.takeError()));
    // Render fully before writing: a failure leaves no partial report.
    std::string out;
    llvm::raw_string_ostream os(out);
    if (format == "json") {
      if (failed(printJson(os, toJSON(*shape, *rows), 2, module.getLoc(),
                           "npu-report-parallel-map")))
        return signalPassFailure();
    } else {
      printText(os, *sys, *shape, *rows);
    }
    llvm::outs() << out;
  }
};
} // namespace
