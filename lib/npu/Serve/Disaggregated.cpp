//===- Disaggregated.cpp - prefill and decode on separate chips -----------===//

#include "npu/Serve/Engine.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cmath>

using namespace mlir::npu::serve;

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Runs `engine` on each of `chips` round-robin shares of `trace` (sorted
/// by arrival) and returns each request's result by its index in `trace`,
/// and the runs.
llvm::Error runShares(llvm::ArrayRef<Request> trace, int64_t chips,
                      const EngineFn &engine,
                      std::vector<RequestResult> &byIndex,
                      std::vector<SimResult> &runs) {
  for (int64_t c = 0; c < chips; ++c) {
    std::vector<Request> share;
    std::vector<size_t> index;
    for (size_t i = c; i < trace.size(); i += chips) {
      share.push_back(trace[i]);
      index.push_back(i);
    }
    if (share.empty())
      continue;
    llvm::Expected<SimResult> run = engine(share);
    if (!run)
      return run.takeError();
    for (size_t k = 0; k < share.size(); ++k)
      byIndex[index[k]] = run->requests[k];
    run->requests.clear();
    runs.push_back(std::move(*run));
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<SimResult> mlir::npu::serve::simulateDisaggregated(
    llvm::ArrayRef<Request> trace, const DisaggregatedPlan &plan,
    const EngineFn &prefill, const EngineFn &decode) {
  if (plan.prefillChips < 1 || plan.decodeChips < 1)
    return fail("disaggregation needs at least one prefill and one decode "
                "chip");
  if (!std::isfinite(plan.linkBytesPerS) || plan.linkBytesPerS <= 0)
    return fail("disaggregation needs the KV link's bandwidth (> 0)");
  // Stage 1: prompts only.
  std::vector<Request> prompts(trace.begin(), trace.end());
  for (Request &r : prompts)
    r.output = 1;
  std::vector<RequestResult> first(trace.size());
  std::vector<SimResult> runs;
  if (llvm::Error e =
          runShares(prompts, plan.prefillChips, prefill, first, runs))
    return std::move(e);
  size_t prefillRuns = runs.size();
  // Stage 2: the rest of each request, from its handoff.
  std::vector<Request> handoffs;
  std::vector<size_t> origin;
  for (size_t i = 0; i < trace.size(); ++i) {
    if (first[i].rejected || trace[i].output == 1)
      continue;
    Request r = trace[i];
    r.arrival = first[i].firstToken +
                double(r.prompt) * plan.kvBytesPerToken / plan.linkBytesPerS;
    r.prefilled = true;
    handoffs.push_back(r);
    origin.push_back(i);
  }
  std::vector<size_t> order(handoffs.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return handoffs[a].arrival < handoffs[b].arrival;
  });
  std::vector<Request> sorted;
  for (size_t i : order)
    sorted.push_back(handoffs[i]);
  std::vector<RequestResult> second(sorted.size());
  if (llvm::Error e = runShares(sorted, plan.decodeChips, decode, second, runs))
    return std::move(e);

  SimResult out;
  out.requests = std::move(first);
  for (size_t k = 0; k < sorted.size(); ++k) {
    RequestResult &r = out.requests[origin[order[k]]];
    r.finish = second[k].finish;
    r.rejected = second[k].rejected;
    r.preemptions += second[k].preemptions;
  }
  for (size_t i = 0; i < trace.size(); ++i)
    out.requests[i].request = trace[i];
  for (size_t k = 0; k < runs.size(); ++k) {
    const SimResult &r = runs[k];
    out.makespan = std::max(out.makespan, r.makespan);
    out.busySeconds += r.busySeconds;
    out.stepCount += r.stepCount;
    out.paddedTokens += r.paddedTokens;
    out.preemptions += r.preemptions;
    out.recomputedTokens += r.recomputedTokens;
    if (k < prefillRuns)
      continue;
    double decodeRuns = double(runs.size() - prefillRuns);
    out.kvBlocks += r.kvBlocks;
    out.kvCapacityTokens += r.kvCapacityTokens;
    out.kvOccupancyMean += r.kvOccupancyMean / decodeRuns;
    out.kvOccupancyPeak = std::max(out.kvOccupancyPeak, r.kvOccupancyPeak);
  }
  // The decode chips' mean occupancy is already averaged above.
  double mean = out.kvOccupancyMean;
  out.close(out.makespan, 0);
  out.kvOccupancyMean = mean;
  return out;
}

llvm::Error mlir::npu::serve::parseDisaggregation(llvm::StringRef text,
                                                  DisaggregatedPlan &plan) {
  auto [p, d] = text.split(':');
  if (p.getAsInteger(10, plan.prefillChips) ||
      d.getAsInteger(10, plan.decodeChips) || plan.prefillChips < 1 ||
      plan.decodeChips < 1 || plan.prefillChips > 4096 ||
      plan.decodeChips > 4096)
    return fail("must be P:D, each in [1, 4096]");
  return llvm::Error::success();
}
