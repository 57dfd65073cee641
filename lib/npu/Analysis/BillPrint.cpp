//===- BillPrint.cpp - the bill as a text table and as JSON ---------------===//
//
// The JSON schema is documented in docs/accounting.md; every count is an
// exact integer, every time a double in seconds.
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/Bill.h"
#include "npu/Support/JsonText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::npu;

static int64_t i64(Count c) { return static_cast<int64_t>(c.value()); }

/// An integer of the `npu.model` description, in its own signedness and at
/// any width (the importer writes i64; a hand-written module may not); an
/// i1 (`true`) is 1, not -1.
static std::string modelInt(IntegerAttr i) {
  bool isSigned =
      !i.getType().isUnsignedInteger() && i.getValue().getBitWidth() > 1;
  return llvm::toString(i.getValue(), 10, isSigned);
}

static llvm::json::Object lineJSON(const BillLine &l) {
  const Work &w = l.work;
  llvm::json::Object o{
      {"name", jsonText(l.name)},
      {"matrix_flops", i64(w.matrixFlops)},
      {"attention_core_flops", i64(l.attentionCoreFlops)},
      {"linear_flops", i64(w.matrixFlops - l.attentionCoreFlops)},
      {"vector_flops", i64(w.vectorFlops)},
      {"transcendental_flops", i64(w.transcendentalFlops)},
      {"total_flops", i64(w.totalFlops())},
      {"bytes_read", i64(w.bytesRead)},
      {"bytes_written", i64(w.bytesWritten)},
      {"param_bytes_read", i64(w.paramBytes)},
      {"activation_bytes", i64(l.activationBytes)},
      {"arithmetic_intensity", l.intensity()},
      {"compute_seconds", l.roofline.computeSeconds},
      {"memory_seconds", l.roofline.memorySeconds},
      {"roofline_seconds", l.roofline.seconds()},
      {"bound", l.roofline.computeBound() ? "compute" : "memory"},
  };
  if (!l.loc.empty())
    o["loc"] = jsonText(l.loc);
  return o;
}

llvm::json::Value ModelBill::toJSON() const {
  llvm::json::Array funcs;
  for (const FunctionBill &f : functions) {
    llvm::json::Array ops;
    for (const BillLine &l : f.ops)
      ops.push_back(lineJSON(l));
    funcs.push_back(llvm::json::Object{
        {"name", jsonText(f.name)},
        {"calls", f.calls},
        {"ops", std::move(ops)},
        {"total", lineJSON(f.total)},
        {"peak_live_activation_bytes", i64(f.peakLiveActivationBytes)}});
  }
  llvm::json::Array layerLines;
  for (const BillLine &l : layers)
    layerLines.push_back(lineJSON(l));
  auto bf16 = target.getPeakFlopPerS(TargetDtype::BF16);
  llvm::json::Object targetObj{
      {"name", jsonText(targetName)},
      {"peak_bf16_flop_per_s", bf16 ? *bf16 : 0.0},
      {"hbm_bandwidth_bytes_per_s",
       target.getHbmBandwidthBytesPerS().convertToDouble()},
      {"hbm_bytes", target.getHbmBytes()},
      {"ridge_point_bf16_flop_per_byte",
       target.getRidgePointFlopPerByte(TargetDtype::BF16).value_or(0.0)},
  };
  llvm::json::Object modelObj;
  if (model)
    for (NamedAttribute a : model) {
      std::string key = jsonText(a.getName().strref());
      if (auto i = dyn_cast<IntegerAttr>(a.getValue())) {
        // A number when it is one JSON can carry exactly, else its text.
        int64_t v;
        if (llvm::to_integer(modelInt(i), v))
          modelObj[key] = v;
        else
          modelObj[key] = modelInt(i);
      } else if (auto s = dyn_cast<StringAttr>(a.getValue()))
        modelObj[key] = jsonText(s.getValue());
      else if (isa<UnitAttr>(a.getValue()))
        modelObj[key] = true;
    }
  return llvm::json::Object{
      {"schema", "npu-bill/1"},
      {"target", std::move(targetObj)},
      {"model", std::move(modelObj)},
      {"tokens", tokens},
      {"parameters", i64(parameterCount)},
      {"parameter_bytes", i64(parameterBytes)},
      {"active_parameters", i64(activeParameterCount)},
      {"kv_cache_bytes", i64(kvCacheBytes)},
      {"kv_cache_bytes_per_token", i64(kvCacheBytesPerToken)},
      {"peak_live_activation_bytes", i64(peakLiveActivationBytes)},
      {"hbm_needed_bytes", i64(hbmNeededBytes())},
      {"fits_in_one_chip", minChips() <= 1},
      {"min_chips", minChips()},
      {"layers", std::move(layerLines)},
      {"functions", std::move(funcs)},
      {"total", lineJSON(total)},
  };
}

/// 1234567 -> "1.235 M" (for people; the JSON has the exact integers).
static std::string human(double v, StringRef unit) {
  const char *prefixes[] = {"", "K", "M", "G", "T", "P", "E"};
  int i = 0;
  while (std::abs(v) >= 1000 && i < 6) {
    v /= 1000;
    ++i;
  }
  return llvm::formatv("{0:F3} {1}{2}", v, prefixes[i], unit).str();
}

static std::string seconds(double s) {
  if (s >= 1)
    return llvm::formatv("{0:F3} s", s).str();
  if (s >= 1e-3)
    return llvm::formatv("{0:F3} ms", s * 1e3).str();
  return llvm::formatv("{0:F3} us", s * 1e6).str();
}

static void printHeader(llvm::raw_ostream &os, StringRef first) {
  os << llvm::format("%-34s %14s %14s %12s %12s %12s %12s %8s %12s %-7s\n",
                     first.str().c_str(), "linear FLOP", "attn-core FLOP",
                     "vector", "transc", "bytes moved", "activations", "FLOP/B",
                     "roofline", "bound");
}

static void printLine(llvm::raw_ostream &os, const BillLine &l) {
  const Work &w = l.work;
  os << llvm::format(
      "%-34s %14s %14s %12s %12s %12s %12s %8.1f %12s %-7s\n", l.name.c_str(),
      human(double((w.matrixFlops - l.attentionCoreFlops).value()), "").c_str(),
      human(double(l.attentionCoreFlops.value()), "").c_str(),
      human(double(w.vectorFlops.value()), "").c_str(),
      human(double(w.transcendentalFlops.value()), "").c_str(),
      human(double((w.bytesRead + w.bytesWritten).value()), "B").c_str(),
      human(double(l.activationBytes.value()), "B").c_str(), l.intensity(),
      seconds(l.roofline.seconds()).c_str(),
      l.roofline.computeBound() ? "compute" : "memory");
}

void ModelBill::printText(llvm::raw_ostream &os) const {
  os << "npu bill on " << targetName;
  if (model) {
    os << ":";
    for (NamedAttribute a : model) {
      os << " " << a.getName().strref() << "=";
      if (auto i = dyn_cast<IntegerAttr>(a.getValue()))
        os << modelInt(i);
      else if (auto s = dyn_cast<StringAttr>(a.getValue()))
        os << s.getValue();
      else
        os << "true";
    }
  }
  os << "\n";
  auto bf16 = target.getPeakFlopPerS(TargetDtype::BF16);
  os << "target: bf16 peak " << human(bf16.value_or(0), "FLOP/s") << ", HBM "
     << human(target.getHbmBandwidthBytesPerS().convertToDouble(), "B/s")
     << ", ridge "
     << llvm::formatv(
            "{0:F1}",
            target.getRidgePointFlopPerByte(TargetDtype::BF16).value_or(0))
     << " FLOP/B, HBM capacity " << human(double(target.getHbmBytes()), "B")
     << "\n\n";

  os << "Per layer (roofline = sum over ops of max(compute, memory); each op "
        "alone)\n";
  printHeader(os, "layer");
  for (const BillLine &l : layers)
    printLine(os, l);
  printLine(os, total);
  os << "\n";

  for (const FunctionBill &f : functions) {
    os << "Per op of @" << f.name << " (called " << f.calls
       << " time(s); peak live activations "
       << human(double(f.peakLiveActivationBytes.value()), "B") << ")\n";
    printHeader(os, "op");
    for (const BillLine &l : f.ops)
      printLine(os, l);
    printLine(os, f.total);
    os << "\n";
  }

  os << "Model\n";
  os << "  parameters:            " << parameterCount.value() << " ("
     << human(double(parameterCount.value()), "") << "), "
     << parameterBytes.value() << " B\n";
  if (activeParameterCount.value() != parameterCount.value())
    os << "  active parameters:     " << activeParameterCount.value() << " ("
       << human(double(activeParameterCount.value()), "")
       << ") per token (the routed experts it does not visit left out)\n";
  os << "  KV cache:              " << kvCacheBytes.value() << " B ("
     << kvCacheBytesPerToken.value() << " B per token)\n";
  os << "  peak live activations: " << peakLiveActivationBytes.value()
     << " B\n";
  os << "  tokens this step:      " << tokens << "\n";
  os << "  FLOPs:                 " << total.work.totalFlops().value()
     << " (linear "
     << (total.work.matrixFlops - total.attentionCoreFlops).value()
     << ", attention core " << total.attentionCoreFlops.value() << ", vector "
     << total.work.vectorFlops.value() << ", transcendental "
     << total.work.transcendentalFlops.value() << ")\n";
  if (tokens > 0)
    os << "  FLOPs per token:       "
       << human(double(total.work.totalFlops().value()) / double(tokens), "")
       << "\n";
  os << "  bytes moved:           "
     << (total.work.bytesRead + total.work.bytesWritten).value() << " B\n";
  os << "  roofline time:         " << seconds(total.roofline.seconds())
     << " (compute " << seconds(total.roofline.computeSeconds) << ", memory "
     << seconds(total.roofline.memorySeconds) << "; "
     << (total.roofline.computeBound() ? "compute" : "memory") << "-bound)\n";
  os << "  HBM needed:            " << hbmNeededBytes().value()
     << " B (parameters + KV cache + peak activations) vs "
     << target.getHbmBytes() << " B per chip: "
     << (minChips() <= 1
             ? "fits in one chip"
             : ("needs at least " + Twine(minChips()) + " chips").str())
     << "\n";
}
