//===- Sensitivity.cpp - the verdict under each assumption, halved/doubled ===//

#include "npu/Compare/Sensitivity.h"
#include "npu/Support/InputFiles.h"
#include "npu/Target/Target.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::npu;

SensitivityTimes mlir::npu::getSensitivityTimes(const Comparison &cmp) {
  SensitivityTimes t;
  for (int s = 0; s < 2; ++s)
    if (cmp.total[s])
      t.ns[s] = cmp.total[s].getTimeNs().convertToDouble();
  // Kernel kinds in order of first appearance; a kernel's kind is its
  // label up to the '(' that lists its ops.
  llvm::StringMap<size_t> index;
  for (const CompareFunction &f : cmp.functions)
    for (const CompareRow &row : f.rows) {
      if (row.isCall())
        continue;
      for (int s = 0; s < 2; ++s)
        for (const CompareItem &item : row.side[s].items) {
          std::string kind = item.label.substr(0, item.label.find('('));
          auto [it, inserted] = index.try_emplace(kind, t.perKind.size());
          if (inserted)
            t.perKind.push_back({kind, {0.0, 0.0}});
          double ns =
              item.cost.getTimeNs().convertToDouble() * double(row.calls);
          (s == 0 ? t.perKind[it->second].second.first
                  : t.perKind[it->second].second.second) += ns;
        }
    }
  return t;
}

double SensitivityRow::swing(double base) const {
  bool lowOk = low.invalid.empty(), highOk = high.invalid.empty();
  if (lowOk && highOk)
    return std::fabs(high.times.ratio() - low.times.ratio());
  if (lowOk)
    return std::fabs(low.times.ratio() - base);
  if (highOk)
    return std::fabs(high.times.ratio() - base);
  return 0;
}

bool SensitivityRow::flips(double base) const {
  auto flipped = [&](const SensitivityVariant &v) {
    return v.invalid.empty() && (v.times.ratio() > 1) != (base > 1);
  };
  return flipped(low) || flipped(high);
}

namespace {
/// Compiles `module` for the pair with one target replaced by `variant`
/// (JSON text), written as `<dir>/<name>.json`; a variant the loader
/// refuses, or that a pipeline cannot compile, is recorded as invalid with
/// the reason.
LogicalResult runVariant(ModuleOp module, StringRef tpuTarget,
                         StringRef gpuTarget, StringRef fusion,
                         StringRef gpuLaunch, int side, StringRef name,
                         StringRef dir, const std::string &json,
                         SensitivityVariant &var, Location loc) {
  SmallString<128> path(dir);
  llvm::sys::path::append(path, name + ".json");
  llvm::Expected<target::TargetFile> parsed =
      target::parseTarget(module.getContext(), json, path);
  if (!parsed) {
    var.invalid = llvm::toString(parsed.takeError());
    StringRef reason(var.invalid);
    reason.consume_front(path.str());
    reason.consume_front(": ");
    var.invalid = reason.str();
    return success();
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return emitError(loc) << "--sensitivity: cannot write '" << path
                          << "': " << ec.message();
  os << json;
  os.close();
  // A pipeline that cannot compile the variant (no tile fits) reports at
  // the op; that is the variant's result, not the run's failure.
  std::string diagnostics;
  FailureOr<Comparison> cmp;
  {
    ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error && diagnostics.empty())
        diagnostics = d.str();
      return success();
    });
    cmp = compareModule(module, side == 0 ? StringRef(path) : tpuTarget,
                        side == 1 ? StringRef(path) : gpuTarget, fusion,
                        gpuLaunch);
  }
  if (failed(cmp)) {
    var.invalid = "does not compile: " + diagnostics;
    return success();
  }
  var.times = getSensitivityTimes(*cmp);
  return success();
}
} // namespace

FailureOr<Sensitivity>
mlir::npu::runSensitivity(ModuleOp module, const Comparison &base,
                          StringRef tpuTarget, StringRef gpuTarget,
                          StringRef fusion, StringRef gpuLaunch, Location loc) {
  MLIRContext *ctx = module.getContext();
  Sensitivity s;
  s.base = getSensitivityTimes(base);
  double baseRatio = s.base.ratio();
  SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("npu-sensitivity", dir))
    return emitError(loc)
           << "--sensitivity: cannot create a temporary directory: "
           << ec.message();
  auto removeDir = [&] { llvm::sys::fs::remove_directories(dir); };
  llvm::scope_exit<decltype(removeDir)> cleanup(std::move(removeDir));
  StringRef names[2] = {tpuTarget, gpuTarget};
  for (int side = 0; side < 2; ++side) {
    llvm::Expected<target::TargetFile> file =
        target::loadTarget(ctx, names[side]);
    if (!file)
      return emitError(loc) << llvm::toString(file.takeError());
    std::string name = file->attr.getName().str();
    s.target[side] = name;
    llvm::Expected<llvm::json::Value> root = parseJsonInput(file->text);
    if (!root)
      return emitError(loc)
             << file->path << ": " << llvm::toString(root.takeError());
    for (const auto &[field, source] : file->sources) {
      // "[A] ...", or a value derived from another target's assumption
      // ("[same-silicon] = h100: [A] ...").
      StringRef src(source);
      if (!src.starts_with("[A]") && !src.contains(": [A]"))
        continue;
      llvm::json::Value *v = target::lookupField(*root->getAsObject(), field);
      if (!v || !v->getAsNumber())
        continue; // an optional field the file leaves out
      SensitivityRow row;
      row.side = CompareSide(side);
      row.target = name;
      row.field = field;
      row.source = source;
      row.value = *v->getAsNumber();
      // A sustained figure is assumed as a shortfall below the quoted one
      // (it may not exceed it): the shortfall is what is halved and
      // doubled.
      std::optional<double> quoted;
      StringRef sustainedField;
      for (auto [sustained, quotedField] : target::getSustainedFields()) {
        if (field == sustained)
          if (llvm::json::Value *qv =
                  target::lookupField(*root->getAsObject(), quotedField))
            quoted = qv->getAsNumber();
        if (field == quotedField)
          sustainedField = sustained;
      }
      for (SensitivityVariant *var : {&row.low, &row.high}) {
        var->factor = var == &row.low ? 0.5 : 2.0;
        llvm::json::Value copy = *root;
        llvm::json::Object &fields = *copy.getAsObject();
        llvm::json::Value *f = target::lookupField(fields, field);
        if (quoted)
          *f = *quoted - (*quoted - row.value) * var->factor;
        else if (std::optional<int64_t> i = f->getAsInteger())
          *f = int64_t(std::llround(double(*i) * var->factor));
        else
          *f = row.value * var->factor;
        // A quoted figure carries its sustained one along (the same
        // fraction of it).
        if (!sustainedField.empty())
          if (llvm::json::Value *sv =
                  target::lookupField(fields, sustainedField))
            if (std::optional<double> d = sv->getAsNumber())
              *sv = *d * var->factor;
        var->value = *f->getAsNumber();
        std::string json = llvm::formatv("{0:2}", copy).str();
        if (failed(runVariant(module, tpuTarget, gpuTarget, fusion, gpuLaunch,
                              side, name, dir, json, *var, loc)))
          return failure();
      }
      s.rows.push_back(std::move(row));
    }
  }
  std::stable_sort(s.rows.begin(), s.rows.end(),
                   [&](const SensitivityRow &a, const SensitivityRow &b) {
                     return a.swing(baseRatio) > b.swing(baseRatio);
                   });
  return s;
}
