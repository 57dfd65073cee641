//===- Metrics.cpp - what a serving run delivers --------------------------===//

#include "npu/Serve/Metrics.h"
#include "npu/Support/FormatReal.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir::npu;
using namespace mlir::npu::serve;

namespace {
/// Six significant digits (formatSignificant).
std::string num(double v) { return formatSignificant(v, 6); }
} // namespace

void SimResult::close(double end, double occupancySeconds) {
  makespan = end;
  if (busySeconds > 0)
    kvOccupancyMean = occupancySeconds / busySeconds;
  usefulTokens = 0;
  for (const RequestResult &r : requests)
    if (!r.rejected)
      usefulTokens += r.request.prompt + r.request.output - 1;
}

Distribution mlir::npu::serve::summarize(std::vector<double> values) {
  Distribution d;
  d.count = int64_t(values.size());
  if (values.empty())
    return d;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double v : values)
    sum += v;
  d.mean = sum / double(values.size());
  auto rank = [&](double p) {
    size_t k = size_t(std::ceil(p * double(values.size())));
    return values[std::clamp<size_t>(k, 1, values.size()) - 1];
  };
  d.p50 = rank(0.50);
  d.p90 = rank(0.90);
  d.p99 = rank(0.99);
  d.max = values.back();
  return d;
}

Metrics mlir::npu::serve::computeMetrics(const SimResult &run, const Slo &slo,
                                         int64_t chips, int64_t instances) {
  Metrics m;
  std::vector<double> ttft, tpot, e2e;
  double first =
      run.requests.empty() ? 0 : run.requests.front().request.arrival;
  int64_t outputTokens = 0;
  for (const RequestResult &r : run.requests) {
    first = std::min(first, r.request.arrival);
    if (r.rejected) {
      ++m.rejected;
      continue;
    }
    ++m.completed;
    outputTokens += r.request.output;
    double t1 = r.firstToken - r.request.arrival;
    ttft.push_back(t1);
    e2e.push_back(r.finish - r.request.arrival);
    double perToken = 0;
    if (r.request.output > 1) {
      perToken = (r.finish - r.firstToken) / double(r.request.output - 1);
      tpot.push_back(perToken);
    }
    if (t1 <= slo.ttftSeconds && perToken <= slo.tpotSeconds)
      ++m.metSlo;
  }
  m.ttft = summarize(std::move(ttft));
  m.tpot = summarize(std::move(tpot));
  m.e2e = summarize(std::move(e2e));
  m.durationSeconds = run.makespan - first;
  if (m.durationSeconds > 0) {
    m.outputTokensPerS = double(outputTokens) / m.durationSeconds;
    m.goodputRequestsPerS = double(m.metSlo) / m.durationSeconds;
    m.busyShare = run.busySeconds / (m.durationSeconds * double(instances));
  }
  m.outputTokensPerSPerChip = m.outputTokensPerS / double(chips);
  if (m.tpot.mean > 0)
    m.tokensPerSPerUser = 1.0 / m.tpot.mean;
  return m;
}

namespace {
llvm::json::Object distToJSON(const Distribution &d) {
  return llvm::json::Object{{"mean", d.mean}, {"p50", d.p50},
                            {"p90", d.p90},   {"p99", d.p99},
                            {"max", d.max},   {"count", d.count}};
}
} // namespace

llvm::json::Object mlir::npu::serve::metricsToJSON(const Metrics &m) {
  return llvm::json::Object{
      {"ttft_s", distToJSON(m.ttft)},
      {"tpot_s", distToJSON(m.tpot)},
      {"e2e_s", distToJSON(m.e2e)},
      {"completed", m.completed},
      {"rejected", m.rejected},
      {"met_slo", m.metSlo},
      {"duration_s", m.durationSeconds},
      {"output_tokens_per_s", m.outputTokensPerS},
      {"output_tokens_per_s_per_chip", m.outputTokensPerSPerChip},
      {"tokens_per_s_per_user", m.tokensPerSPerUser},
      {"goodput_requests_per_s", m.goodputRequestsPerS},
      {"busy_share", m.busyShare}};
}

void mlir::npu::serve::printMetrics(llvm::raw_ostream &os, const Metrics &m,
                                    const SimResult &run) {
  auto ms = [](double s) { return num(s * 1e3); };
  const char *row = "  {0,-6} {1,12} {2,12} {3,12} {4,12} {5,12}\n";
  os << llvm::formatv(row, "ms", "mean", "p50", "p90", "p99", "max");
  for (auto [name, d] :
       {std::pair<const char *, const Distribution *>{"TTFT", &m.ttft},
        {"TPOT", &m.tpot},
        {"E2E", &m.e2e}})
    os << llvm::formatv(row, name, ms(d->mean), ms(d->p50), ms(d->p90),
                        ms(d->p99), ms(d->max));
  os << llvm::formatv(
      "  requests: {0} completed, {1} rejected, {2} within the SLOs\n",
      m.completed, m.rejected, m.metSlo);
  os << llvm::formatv("  duration {0} s, busy {1}% of it, {2} steps\n",
                      num(m.durationSeconds), num(100 * m.busyShare),
                      run.stepCount);
  os << llvm::formatv("  output tokens/s: {0} ({1} per chip), {2} per user; "
                      "goodput {3} requests/s\n",
                      num(m.outputTokensPerS), num(m.outputTokensPerSPerChip),
                      num(m.tokensPerSPerUser), num(m.goodputRequestsPerS));
  os << llvm::formatv("  KV cache: {0} tokens, occupancy mean {1}% peak "
                      "{2}%; {3} preemptions ({4} tokens recomputed); "
                      "{5} padded tokens for {6} useful\n",
                      run.kvCapacityTokens, num(100 * run.kvOccupancyMean),
                      num(100 * run.kvOccupancyPeak), run.preemptions,
                      run.recomputedTokens, run.paddedTokens, run.usefulTokens);
}
