//===- Report.cpp - npu-serve's report of one side -----------------------===//

#include "npu/Serve/Report.h"
#include "npu/Support/FormatReal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::npu::serve;
using llvm::raw_ostream;

namespace {

/// Six significant digits (formatSignificant).
std::string num(double v) { return npu::formatSignificant(v, 6); }

void printChecks(raw_ostream &os, const SideRun &s) {
  os << "  interpolation against compiled shapes between the points:\n";
  const char *row = "  {0,-8} {1,6} {2,8} {3,14} {4,14} {5,8}\n";
  os << llvm::formatv(row, "phase", "batch", "length", "compiled_us",
                      "table_us", "error%");
  for (const InterpolationCheck &c : s.checks)
    os << llvm::formatv(row, c.prefill ? "prefill" : "decode", c.batch,
                        c.length, num(c.compiledNs / 1e3),
                        num(c.predictedNs / 1e3),
                        llvm::format("%.2f", 100 * c.error()));
}

llvm::json::Object policyToJSON(const SideRun &s) {
  if (s.continuous)
    return llvm::json::Object{
        {"engine", "continuous"},
        {"max_batched_tokens", s.cpolicy.maxBatchedTokens},
        {"max_seqs", s.cpolicy.maxSeqs},
        {"block_size", s.cpolicy.blockSize},
        {"chunked_prefill", s.cpolicy.chunkedPrefill},
        {"memory_utilization", s.cpolicy.memoryUtilization},
        {"reserve_context", s.cpolicy.reserveContext},
        {"draft_tokens", s.cpolicy.draftTokens},
        {"acceptance", s.cpolicy.acceptance}};
  return llvm::json::Object{
      {"engine", "static"},
      {"slots", s.spolicy.slots},
      {"prefill_buckets", llvm::json::Array(s.spolicy.prefillBuckets)},
      {"decode_buckets", llvm::json::Array(s.spolicy.decodeBuckets)},
      {"prefills_per_step", s.spolicy.prefillsPerStep},
      {"ragged_attention", s.spolicy.raggedAttention},
      {"memory_utilization", s.spolicy.memoryUtilization}};
}

void printSteps(raw_ostream &os, const SimResult &run) {
  os << llvm::formatv("  {0,4} {1,12} {2,12} {3,-8} {4,7} {5,8} {6,7} "
                      "{7,7} {8,6}  {9}\n",
                      "step", "start_ms", "ms", "kind", "decodes", "prefill",
                      "padded", "blocks", "preempt", "requests");
  for (size_t i = 0; i < run.steps.size(); ++i) {
    const StepRecord &s = run.steps[i];
    std::string ids;
    for (int64_t id : s.ids)
      ids += (ids.empty() ? "" : ",") + std::to_string(id);
    os << llvm::formatv("  {0,4} {1,12} {2,12} {3,-8} {4,7} {5,8} {6,7} "
                        "{7,7} {8,6}  {9}\n",
                        i, num(s.start * 1e3), num(s.seconds * 1e3), s.kind,
                        s.decodes, s.prefillTokens, s.paddedTokens,
                        s.usedBlocks, s.preempted, ids);
  }
  os << "  requests: id arrival_ms first_token_ms finish_ms preemptions\n";
  for (const RequestResult &r : run.requests)
    os << "    " << r.request.id << " " << num(r.request.arrival * 1e3) << " "
       << (r.rejected ? "rejected"
                      : num(r.firstToken * 1e3) + " " + num(r.finish * 1e3) +
                            " " + std::to_string(r.preemptions))
       << "\n";
}

void printDesign(raw_ostream &os, const SideRun &s) {
  os << "  bucket design (each row adds the program that most raises "
        "goodput):\n";
  const char *row = "  {0,8} {1,-14} {2,12} {3,12} {4,12} {5,12}  {6}\n";
  os << llvm::formatv(row, "programs", "added", "goodput", "tok/s/chip",
                      "TTFT_p50_ms", "padded", "prefill | decode buckets");
  for (size_t i = 0; i < s.design.size(); ++i) {
    const BucketChoice &c = s.design[i];
    std::string buckets;
    llvm::raw_string_ostream b(buckets);
    llvm::interleave(c.policy.prefillBuckets, b, ",");
    b << " | ";
    llvm::interleave(c.policy.decodeBuckets, b, ",");
    os << llvm::formatv(row, i + 2, c.added, num(c.metrics.goodputRequestsPerS),
                        num(c.metrics.outputTokensPerSPerChip),
                        num(c.metrics.ttft.p50 * 1e3), c.paddedTokens, buckets);
  }
}

llvm::json::Array checksToJSON(const std::vector<InterpolationCheck> &v) {
  llvm::json::Array out;
  for (const InterpolationCheck &c : v)
    out.push_back(
        llvm::json::Object{{"phase", c.prefill ? "prefill" : "decode"},
                           {"batch", c.batch},
                           {"length", c.length},
                           {"compiled_ns", c.compiledNs},
                           {"table_ns", c.predictedNs}});
  return out;
}

} // namespace

llvm::Expected<SimResult>
mlir::npu::serve::simulateSide(const SideRun &s, llvm::ArrayRef<Request> trace,
                               bool recordSteps) {
  EngineFn engine = [&](llvm::ArrayRef<Request> t) {
    return s.continuous ? simulateContinuous(t, s.table, s.cpolicy, recordSteps)
                        : simulateStatic(t, s.table, s.spolicy, recordSteps);
  };
  if (!s.split.prefillChips)
    return engine(trace);
  return simulateDisaggregated(trace, s.split, engine, engine);
}

llvm::Error mlir::npu::serve::designSide(SideRun &s,
                                         llvm::ArrayRef<Request> trace,
                                         int64_t maxPrograms, const Slo &slo) {
  llvm::Expected<std::vector<BucketChoice>> design =
      designBuckets(trace, s.table, s.spolicy, maxPrograms, slo);
  if (!design)
    return design.takeError();
  s.design = std::move(*design);
  s.spolicy = bestDesign(s.design).policy;
  return llvm::Error::success();
}

Metrics mlir::npu::serve::sideMetrics(const SimResult &run, const SideRun &s,
                                      const Slo &slo) {
  return computeMetrics(run, slo, chipsOf(s), chipsOf(s) / s.table.chips);
}

int64_t mlir::npu::serve::chipsOf(const SideRun &s) {
  int64_t instances =
      s.split.prefillChips ? s.split.prefillChips + s.split.decodeChips : 1;
  return instances * s.table.chips;
}

void mlir::npu::serve::printSideRun(raw_ostream &os, const SideRun &s,
                                    const Slo &slo, bool steps) {
  const CostTable &t = s.table;
  os << llvm::formatv("{0} on {1} ({2}-like{3}): ", t.model, t.target,
                      StringRef(t.kind).upper(),
                      s.table.chips > 1 ? ", " + std::to_string(s.table.chips) +
                                              " chips as one instance"
                                        : std::string());
  if (s.continuous)
    os << llvm::formatv("continuous batching, {0} tokens and {1} sequences "
                        "per step, KV blocks of {2} tokens, chunked prefill "
                        "{3}\n",
                        s.cpolicy.maxBatchedTokens, s.cpolicy.maxSeqs,
                        s.cpolicy.blockSize,
                        s.cpolicy.chunkedPrefill ? "on" : "off");
  if (s.continuous && s.cpolicy.draftTokens)
    os << llvm::formatv("  speculative: {0} drafted token(s) per step, each "
                        "accepted at {1}\n",
                        s.cpolicy.draftTokens, s.cpolicy.acceptance);
  if (!s.continuous)
    os << llvm::formatv("static buckets, {0} decode slots, {1} prefill and "
                        "{2} decode programs, {3} decode attention\n",
                        s.spolicy.slots, s.spolicy.prefillBuckets.size(),
                        s.spolicy.decodeBuckets.size(),
                        s.spolicy.raggedAttention ? "ragged" : "padded");
  os << llvm::formatv("  memory: HBM {0} GB x {1}, weights {2} GB, "
                      "activations {3} GB, KV {4} KB per token\n",
                      num(t.hbmBytes / 1e9),
                      s.continuous ? s.cpolicy.memoryUtilization
                                   : s.spolicy.memoryUtilization,
                      num(t.weightBytes / 1e9), num(t.activationBytes / 1e9),
                      num(t.kvBytesPerToken / 1e3));
  if (s.curve.size() > 1) {
    os << llvm::formatv("  {0,8} {1,12} {2,12} {3,12} {4,12} {5,12} {6,10}\n",
                        "req/s", "tok/s/chip", "tok/s/user", "TTFT_p50_ms",
                        "TPOT_p50_ms", "goodput", "rejected");
    for (const CurvePoint &p : s.curve)
      os << llvm::formatv(
          "  {0,8} {1,12} {2,12} {3,12} {4,12} {5,12} {6,10}\n", num(p.rate),
          num(p.metrics.outputTokensPerSPerChip),
          num(p.metrics.tokensPerSPerUser), num(p.metrics.ttft.p50 * 1e3),
          num(p.metrics.tpot.p50 * 1e3), num(p.metrics.goodputRequestsPerS),
          p.metrics.rejected);
    os << "  at the last rate:\n";
  }
  if (s.split.prefillChips)
    os << llvm::formatv("  disaggregated: prefill on {0} instance(s), "
                        "decode on {1}, KV moved at {2} GB/s\n",
                        s.split.prefillChips, s.split.decodeChips,
                        num(s.split.linkBytesPerS / 1e9));
  printMetrics(os, sideMetrics(s.last, s, slo), s.last);
  if (!s.checks.empty())
    printChecks(os, s);
  if (!s.design.empty())
    printDesign(os, s);
  if (steps)
    printSteps(os, s.last);
}

llvm::json::Array
mlir::npu::serve::sideRunsToJSON(const std::vector<SideRun> &sides) {
  llvm::json::Array out;
  for (const SideRun &s : sides) {
    llvm::json::Array curve;
    for (const CurvePoint &p : s.curve) {
      llvm::json::Object o = metricsToJSON(p.metrics);
      o["rate"] = p.rate;
      curve.push_back(std::move(o));
    }
    out.push_back(
        llvm::json::Object{{"model", s.table.model},
                           {"target", s.table.target},
                           {"kind", s.table.kind},
                           {"policy", policyToJSON(s)},
                           {"kv_capacity_tokens", s.last.kvCapacityTokens},
                           {"kv_occupancy_mean", s.last.kvOccupancyMean},
                           {"kv_occupancy_peak", s.last.kvOccupancyPeak},
                           {"useful_tokens", s.last.usefulTokens},
                           {"padded_tokens", s.last.paddedTokens},
                           {"preemptions", s.last.preemptions},
                           {"recomputed_tokens", s.last.recomputedTokens},
                           {"steps", s.last.stepCount},
                           {"chips", chipsOf(s)},
                           {"interpolation", checksToJSON(s.checks)},
                           {"curve", std::move(curve)}});
  }
  return out;
}
