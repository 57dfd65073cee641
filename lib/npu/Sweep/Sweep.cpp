//===- Sweep.cpp - pricing a sweep's points and writing its tables --------===//

#include "npu/Sweep/Sweep.h"
#include "npu/Compare/Compare.h"
#include "npu/Support/InputFiles.h"
#include "npu/Support/JsonStream.h"
#include "npu/Target/Proxies.h"
#include "npu/Target/Target.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <atomic>
#include <map>
#include <thread>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::sweep;

const SweepMetric sweep::kMetrics[10] = {
    {"time_us", "the workload's step (@model's npu.cost)"},
    {"attention_us", "of it, the attention kernels"},
    {"moe_us", "of it, the MoE expert kernels (moe_ffn)"},
    {"tokens_per_s", "tokens per step / the step's time"},
    {"flops", "@model's FLOPs"},
    {"padded_flops", "@model's FLOPs with the matrix units' padding"},
    {"hbm_bytes", "@model's HBM bytes read and written"},
    {"area_mm2", "the chip's area proxy (matrix units or SMs, SRAM, HBM "
                 "PHYs; npu-target/proxies/energy-area.json)"},
    {"energy_j", "the step's energy proxy (matrix FLOPs, HBM and SRAM "
                 "bytes, static power over the step)"},
    {"tokens_per_j", "tokens per step / energy_j"}};

namespace {
/// Where the diagnostics of this thread go: the workers share one context,
/// whose one handler hands each diagnostic to the thread that emitted it
/// (it runs in that thread).
thread_local std::string *diagnosticSlot = nullptr;

/// Keeps the first error this thread emits while it lives.
struct CaptureDiagnostics {
  CaptureDiagnostics() { diagnosticSlot = &first; }
  ~CaptureDiagnostics() { diagnosticSlot = nullptr; }
  std::string first;
};

/// Prices one point on a copy of its workload's module; the first error of
/// the loader or the pipeline is the row's.
SweepRow runPoint(ModuleOp workload, const SweepPoint &p,
                  const target::Proxies &proxies) {
  MLIRContext *ctx = workload.getContext();
  SweepRow row;
  row.index = p.index;
  row.workload = p.workload->name;
  row.target = p.target;
  row.values = p.values;
  llvm::Expected<target::TargetFile> file = target::loadTarget(ctx, p.target);
  if (!file) {
    row.error = llvm::toString(file.takeError());
    return row;
  }
  row.target = file->attr.getName().str();
  TargetKind kind = file->attr.getKind();
  row.kind = stringifyTargetKind(kind).str();
  CaptureDiagnostics capture;
  OwningOpRef<ModuleOp> copy = workload.clone();
  FailureOr<ModelTime> time = compileModelTime(
      *copy, kind == TargetKind::Tpu ? CompareSide::Tpu : CompareSide::Gpu,
      p.target, "npu-sweep", UnknownLoc::get(ctx));
  if (failed(time)) {
    row.error = capture.first.empty() ? "the pipeline failed" : capture.first;
    return row;
  }
  double tokensPerS = time->totalNs > 0
                          ? double(p.workload->tokens()) / time->totalNs * 1e9
                          : 0.0;
  double area = target::getAreaMm2(proxies, file->attr);
  double energy =
      target::getStepEnergyJ(proxies, area, time->totalNs, time->paddedFlops,
                             time->hbmBytes, p.workload->options.weightDType);
  row.metrics = {time->totalNs * 1e-3,
                 time->attentionNs * 1e-3,
                 time->moeNs * 1e-3,
                 tokensPerS,
                 time->flops,
                 time->paddedFlops,
                 time->hbmBytes,
                 area,
                 energy,
                 energy > 0 ? double(p.workload->tokens()) / energy : 0.0};
  assert(row.metrics.size() == std::size(kMetrics));
  return row;
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv(StringRef s) {
  if (!s.contains(',') && !s.contains('"') && !s.contains('\n'))
    return s.str();
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
  return out + "\"";
}

std::string valueOf(const SweepRow &row, StringRef field) {
  for (const auto &[f, v] : row.values)
    if (f == field)
      return v;
  return "";
}
} // namespace

llvm::Expected<std::vector<SweepRow>>
sweep::runSweep(const DialectRegistry &registry,
                const std::vector<SweepPoint> &points, unsigned jobs) {
  llvm::Expected<target::Proxies> proxies = target::loadProxies();
  if (!proxies)
    return proxies.takeError();
  // One context for every worker (its uniquers locked), so that they share
  // what the cost models keep: a tile search or an L2 simulation one thread
  // made is every thread's. Each workload is imported once, before the
  // workers start; they price copies of it.
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  ScopedDiagnosticHandler handler(&ctx, [](Diagnostic &d) {
    if (diagnosticSlot && diagnosticSlot->empty() &&
        d.getSeverity() == DiagnosticSeverity::Error)
      *diagnosticSlot = d.str();
    return success();
  });
  std::map<const Workload *, OwningOpRef<ModuleOp>> modules;
  for (const SweepPoint &p : points) {
    OwningOpRef<ModuleOp> &module = modules[p.workload];
    if (module)
      continue;
    CaptureDiagnostics capture;
    module = importConfigFile(&ctx, p.workload->config, p.workload->options);
    if (!module)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "workload '" + p.workload->name +
                                         "': " + capture.first);
  }
  std::vector<SweepRow> rows(points.size());
  std::atomic<size_t> next{0};
  // Points are dealt one at a time. What the cost models keep is keyed by
  // every input they read, so it carries over from point to point: a
  // variant that changes a rate reuses every L2 simulation, and one that
  // changes nothing a kernel's search reads reuses the search.
  auto worker = [&] {
    for (size_t i = next++; i < points.size(); i = next++)
      rows[i] = runPoint(*modules[points[i].workload], points[i], *proxies);
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < std::max(1u, jobs); ++t)
    threads.emplace_back(worker);
  worker();
  for (std::thread &t : threads)
    t.join();
  return rows;
}

void sweep::writeCsv(llvm::raw_ostream &os, const SweepSpec &spec,
                     const std::vector<SweepRow> &rows) {
  os << "index,workload,target,kind";
  for (const std::string &f : spec.fields)
    os << "," << f;
  for (const SweepMetric &m : kMetrics)
    os << "," << m.name;
  os << ",error\n";
  for (const SweepRow &r : rows) {
    os << r.index << "," << csv(r.workload) << "," << csv(r.target) << ","
       << r.kind;
    for (const std::string &f : spec.fields)
      os << "," << csv(valueOf(r, f));
    for (size_t i = 0; i < std::size(kMetrics); ++i)
      os << "," << (r.error.empty() ? target::formatReal(r.metrics[i]) : "");
    os << "," << csv(r.error) << "\n";
  }
}

void sweep::writeJson(llvm::raw_ostream &os, const SweepSpec &spec,
                      const std::vector<SweepRow> &rows) {
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("schema", "npu-sweep/1");
    j.attributeArray("fields", [&] {
      for (const std::string &f : spec.fields)
        j.value(f);
    });
    j.attributeArray("rows", [&] {
      for (const SweepRow &r : rows)
        j.object([&] {
          j.attribute("index", r.index);
          j.attribute("workload", r.workload);
          j.attribute("target", r.target);
          j.attribute("kind", r.kind);
          j.attributeObject("values", [&] {
            for (const auto &[f, v] : r.values)
              j.attribute(f, v);
          });
          if (!r.error.empty()) {
            j.attribute("error", r.error);
            return;
          }
          for (auto [m, v] : llvm::zip(kMetrics, r.metrics))
            j.attribute(m.name, v);
        });
    });
  });
  os << "\n";
}

llvm::Error sweep::mergeCsv(ArrayRef<std::string> paths,
                            llvm::raw_ostream &os) {
  auto fail = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  std::string header;
  std::map<int64_t, std::string> rows;
  for (const std::string &path : paths) {
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buf =
        readInputFile(path, kMaxJsonBytes);
    if (!buf)
      return buf.takeError();
    SmallVector<StringRef> lines;
    (*buf)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
    if (lines.empty())
      return fail(path + ": empty (not an npu-sweep CSV)");
    if (header.empty())
      header = lines.front().str();
    else if (lines.front() != header)
      return fail(path + ": its header differs from " + paths.front() +
                  "'s (shards of different specs?)");
    for (StringRef line : ArrayRef<StringRef>(lines).drop_front()) {
      int64_t index;
      if (line.split(',').first.getAsInteger(10, index) || index < 0)
        return fail(path + ": a row without an index: '" + line + "'");
      if (!rows.try_emplace(index, line.str()).second)
        return fail(path + ": point " + llvm::Twine(index) +
                    " is in two shards");
    }
  }
  os << header << "\n";
  for (const auto &[index, line] : rows)
    os << line << "\n";
  return llvm::Error::success();
}
