//===- Sweep.h - design-space sweeps over target variants -------*- C++ -*-===//
//
// npu-sweep (docs/sweep.md): a spec names workloads (a config.json and its
// import options) and targets (a base chip and, per field, the values to
// try); every workload is priced on every variant, the cartesian product of
// a target's value lists, each variant a target spec with overrides
// (`tpu-v7:tpu.vmem_bytes_per_core=32MiB`, docs/targets.md). Each workload
// is imported once and each point compiles a copy of it with its side's
// backend pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SWEEP_SWEEP_H
#define NPU_SWEEP_SWEEP_H

#include "npu/Compare/CompareInput.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

namespace mlir::npu::sweep {

struct Workload {
  std::string name;
  std::string config; ///< path of a config.json
  CompareImportOptions options;
  /// Tokens one step produces or consumes: batch x seq_len (prefill), batch
  /// (decode).
  int64_t tokens() const;
};

/// A base target and the values each varied field takes.
struct TargetGrid {
  std::string base;
  std::vector<std::pair<std::string, std::vector<std::string>>> vary;
};

struct SweepSpec {
  std::vector<Workload> workloads;
  std::vector<TargetGrid> targets;
  /// Every varied field of every target, in spec order: the CSV columns.
  std::vector<std::string> fields;
};

/// Parses and checks a sweep spec (JSON text; `path` names it in messages):
/// unknown keys, empty lists, values of the wrong type and more than
/// kMaxPoints points are refused, naming the key.
llvm::Expected<SweepSpec> parseSweepSpec(llvm::StringRef json,
                                         llvm::StringRef path);
inline constexpr int64_t kMaxPoints = 1'000'000;

/// One point: a workload on one target variant.
struct SweepPoint {
  int64_t index = 0;
  const Workload *workload = nullptr;
  std::string target; ///< the variant's spec (base:field=value,...)
  /// The varied fields' values, as written in the spec.
  std::vector<std::pair<std::string, std::string>> values;
};

/// Every point, workload-major, each target grid's last field varying
/// fastest; index i of n is the i-th.
std::vector<SweepPoint> expandPoints(const SweepSpec &spec);

/// A priced point, or why it could not be priced (a variant the loader
/// refuses, a model that does not fit a tile).
struct SweepRow {
  int64_t index = 0;
  std::string workload, target, kind, error;
  std::vector<std::pair<std::string, std::string>> values;
  /// The metrics, in kMetrics' order (unset where the point has an error).
  std::vector<double> metrics;
};

/// A metric column of the table: its name and what it is (docs/sweep.md).
struct SweepMetric {
  const char *name, *meaning;
};
/// time_us, attention_us, moe_us, tokens_per_s, flops, padded_flops,
/// hbm_bytes, area_mm2, energy_j, tokens_per_j.
extern const SweepMetric kMetrics[10];

/// Prices `points` (one shard of them) on `jobs` threads, each with a
/// context of its own made from `registry` that imports each workload once;
/// rows come back in the points' order. A point that fails is a row with
/// its error, not a failed run; the run fails only when a workload cannot
/// be imported (the error names it and says why).
llvm::Expected<std::vector<SweepRow>>
runSweep(const DialectRegistry &registry, const std::vector<SweepPoint> &points,
         unsigned jobs);

/// CSV: a header (index, workload, target, kind, each field, each metric,
/// error), a row per point.
void writeCsv(llvm::raw_ostream &os, const SweepSpec &spec,
              const std::vector<SweepRow> &rows);
/// JSON: {"schema": "npu-sweep/1", "fields": [...], "rows": [...]}.
void writeJson(llvm::raw_ostream &os, const SweepSpec &spec,
               const std::vector<SweepRow> &rows);

/// Concatenates the CSVs of a sweep's shards in point order: their headers
/// must be equal and their indices distinct.
llvm::Error mergeCsv(llvm::ArrayRef<std::string> paths, llvm::raw_ostream &os);

} // namespace mlir::npu::sweep

#endif // NPU_SWEEP_SWEEP_H
