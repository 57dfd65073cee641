//===- BucketDesign.cpp - which programs a static engine compiles ---------===//

#include "npu/Serve/Metrics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <tuple>

using namespace mlir::npu::serve;

/// The design's order: goodput, then output tokens/s, then less padding.
static auto key(const BucketChoice &c) {
  return std::make_tuple(c.metrics.goodputRequestsPerS,
                         c.metrics.outputTokensPerS, -c.paddedTokens);
}

const BucketChoice &
mlir::npu::serve::bestDesign(llvm::ArrayRef<BucketChoice> design) {
  const BucketChoice *best = &design.front();
  for (const BucketChoice &c : design)
    if (key(c) > key(*best))
      best = &c;
  return *best;
}

llvm::Expected<std::vector<BucketChoice>> mlir::npu::serve::designBuckets(
    llvm::ArrayRef<Request> trace, const CostTable &table,
    const StaticPolicy &base, int64_t maxPrograms, const Slo &slo) {
  if (maxPrograms < 2)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "bucket design needs a budget of at "
                                   "least 2 programs (one prefill, one "
                                   "decode)");
  std::vector<int64_t> prefill, decode;
  for (const ShapePoint &p : table.prefill)
    prefill.push_back(p.length);
  for (const ShapePoint &p : table.decode)
    if (p.batch == base.slots)
      decode.push_back(p.length);
  if (decode.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "bucket design: the table has no decode program of " +
            llvm::Twine(base.slots) + " slots");
  auto evaluate = [&](StaticPolicy policy,
                      std::string added) -> llvm::Expected<BucketChoice> {
    llvm::sort(policy.prefillBuckets);
    llvm::sort(policy.decodeBuckets);
    llvm::Expected<SimResult> run = simulateStatic(trace, table, policy);
    if (!run)
      return run.takeError();
    return BucketChoice{std::move(added), policy,
                        computeMetrics(*run, slo, table.chips),
                        run->paddedTokens};
  };
  StaticPolicy start = base;
  start.prefillBuckets = {prefill.back()};
  start.decodeBuckets = {decode.back()};
  llvm::Expected<BucketChoice> first = evaluate(start, "start");
  if (!first)
    return first.takeError();
  std::vector<BucketChoice> steps{std::move(*first)};
  for (int64_t programs = 2; programs < maxPrograms; ++programs) {
    const StaticPolicy &now = steps.back().policy;
    std::optional<BucketChoice> best;
    for (bool isPrefill : {true, false})
      for (int64_t len : isPrefill ? prefill : decode) {
        const std::vector<int64_t> &have =
            isPrefill ? now.prefillBuckets : now.decodeBuckets;
        if (llvm::is_contained(have, len))
          continue;
        StaticPolicy next = now;
        (isPrefill ? next.prefillBuckets : next.decodeBuckets).push_back(len);
        llvm::Expected<BucketChoice> c = evaluate(
            next, (isPrefill ? "prefill " : "decode ") + std::to_string(len));
        if (!c)
          return c.takeError();
        if (!best || key(*c) > key(*best))
          best = std::move(*c);
      }
    if (!best)
      break;
    steps.push_back(std::move(*best));
  }
  return steps;
}
