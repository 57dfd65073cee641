//===- Metrics.h - what a serving run delivers ------------------*- C++ -*-===//
//
// The serving metrics of one simulated run (docs/serving.md, "Metrics"):
//  - TTFT: first token minus arrival; TPOT: (finish - first token) /
//    (output - 1), over requests of two tokens or more; end-to-end latency:
//    finish minus arrival. Each as mean and nearest-rank percentiles (the
//    p-th percentile of n sorted values is the ceil(p n)-th);
//  - throughput: output tokens per second of the run (first arrival to last
//    token), per chip, and per user (1 / mean TPOT);
//  - goodput: requests per second that meet both SLOs (TTFT and TPOT);
//  - the engine's KV occupancy, padding and preemptions.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SERVE_METRICS_H
#define NPU_SERVE_METRICS_H

#include "npu/Serve/Engine.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::npu::serve {

struct Distribution {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
  int64_t count = 0;
};

/// Mean and nearest-rank percentiles of `values` (all zero when empty).
Distribution summarize(std::vector<double> values);

struct Slo {
  double ttftSeconds = 2.0;
  double tpotSeconds = 0.1;
};

struct Metrics {
  Distribution ttft, tpot, e2e; ///< seconds
  int64_t completed = 0, rejected = 0, metSlo = 0;
  double durationSeconds = 0; ///< first arrival to the last token
  double outputTokensPerS = 0, outputTokensPerSPerChip = 0;
  double tokensPerSPerUser = 0; ///< 1 / mean TPOT
  double goodputRequestsPerS = 0;
  double busyShare = 0; ///< share of the instances' time spent in steps
};

/// `chips`: all the run's chips (per-chip throughput); `instances`: the
/// engines that ran steps (one, or the prefill and decode ones), each
/// `chips / instances` chips (the busy share).
Metrics computeMetrics(const SimResult &run, const Slo &slo, int64_t chips,
                       int64_t instances = 1);

llvm::json::Object metricsToJSON(const Metrics &m);
void printMetrics(llvm::raw_ostream &os, const Metrics &m,
                  const SimResult &run);

/// One point of a throughput-vs-interactivity curve: the load (requests
/// per second) and what the run delivered.
struct CurvePoint {
  double rate = 0;
  Metrics metrics;
};

/// The curves, one per side (tokens/s/chip against tokens/s/user), as SVG.
std::string curvesToSvg(llvm::StringRef title,
                        llvm::ArrayRef<std::string> names,
                        llvm::ArrayRef<std::vector<CurvePoint>> curves);

/// One step of the greedy bucket design: the program added and what the
/// static engine then delivers on the trace.
struct BucketChoice {
  std::string added; ///< "prefill 1024", "decode 4096" or "start"
  StaticPolicy policy;
  Metrics metrics;
  int64_t paddedTokens = 0;
};

/// Chooses a static engine's buckets for `trace` (docs/serving.md, "Bucket
/// design"): it starts from the largest prefill and decode programs of the
/// table (at base.slots: every request needs them) and adds, one at a
/// time, the table's program that most raises goodput (then output
/// tokens/s, then fewer padded tokens), until `maxPrograms` programs or no
/// program is left. Each step is returned: what each extra program buys.
llvm::Expected<std::vector<BucketChoice>>
designBuckets(llvm::ArrayRef<Request> trace, const CostTable &table,
              const StaticPolicy &base, int64_t maxPrograms, const Slo &slo);

/// The best step of a design, in the design's own order (goodput, then
/// output tokens/s, then fewer padded tokens); the fewest programs on a tie.
const BucketChoice &bestDesign(llvm::ArrayRef<BucketChoice> design);

} // namespace mlir::npu::serve

#endif // NPU_SERVE_METRICS_H
