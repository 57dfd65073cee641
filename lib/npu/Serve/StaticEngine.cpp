//===- StaticEngine.cpp - compiled buckets and decode slots ---------------===//

#include "npu/Serve/Engine.h"

#include "npu/Support/FormatReal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cmath>
#include <deque>

using namespace mlir::npu::serve;

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The smallest bucket >= `length`, or 0.
int64_t bucketFor(llvm::ArrayRef<int64_t> buckets, int64_t length) {
  auto it = llvm::lower_bound(buckets, length);
  return it == buckets.end() ? 0 : *it;
}

llvm::Error checkBuckets(llvm::ArrayRef<int64_t> buckets, const char *what) {
  if (buckets.empty())
    return fail(llvm::Twine("static policy: no ") + what + " bucket");
  for (size_t i = 0; i < buckets.size(); ++i)
    if (buckets[i] < 1 || (i && buckets[i] <= buckets[i - 1]))
      return fail(llvm::Twine("static policy: ") + what +
                  " buckets must be >= 1 and ascending");
  return llvm::Error::success();
}

struct Slot {
  int64_t id = -1;     ///< request, -1: empty
  int64_t context = 0; ///< tokens in its KV
};

} // namespace

llvm::Expected<SimResult>
mlir::npu::serve::simulateStatic(llvm::ArrayRef<Request> trace,
                                 const CostTable &table, const StaticPolicy &p,
                                 bool record) {
  if (p.slots < 1 || p.prefillsPerStep < 1 ||
      !(p.memoryUtilization > 0 && p.memoryUtilization <= 1))
    return fail("static policy: slots and prefills per step must be >= 1 "
                "and memory utilization in (0, 1]");
  if (llvm::Error e = checkBuckets(p.prefillBuckets, "prefill"))
    return std::move(e);
  if (llvm::Error e = checkBuckets(p.decodeBuckets, "decode"))
    return std::move(e);
  // Every program the policy may run must have been compiled.
  for (int64_t b : p.prefillBuckets)
    if (!table.findPrefill(b))
      return fail("static policy: the table has no prefill program of " +
                  llvm::Twine(b) + " tokens");
  for (int64_t b : p.decodeBuckets)
    if (!table.findDecode(p.slots, b))
      return fail("static policy: the table has no decode program of " +
                  llvm::Twine(p.slots) + " slots at context " + llvm::Twine(b));
  SimResult result;
  // KV is allocated ahead: every slot holds the longest context.
  int64_t longest = p.decodeBuckets.back();
  result.kvCapacityTokens = p.slots * longest;
  double need = double(result.kvCapacityTokens) * table.kvBytesPerToken;
  double room = table.kvCapacityBytes(p.memoryUtilization);
  if (need > room)
    return fail(
        "static policy: " + llvm::Twine(p.slots) + " slots of " +
        llvm::Twine(longest) + " tokens need " +
        formatSignificant(std::floor(need), 15) + " bytes of KV cache; " +
        formatSignificant(std::floor(room), 15) + " are left (at most " +
        formatSignificant(
            std::floor(room / (double(longest) * table.kvBytesPerToken)), 15) +
        " slots)");

  result.requests.resize(trace.size());
  for (size_t i = 0; i < trace.size(); ++i)
    result.requests[i].request = trace[i];
  std::vector<Slot> slots(p.slots);
  std::deque<int64_t> waiting;
  size_t next = 0;
  double t = 0, occupancyTime = 0;
  auto admit = [&] {
    for (; next < trace.size() && trace[next].arrival <= t; ++next) {
      const Request &r = trace[next];
      // The prompt needs a bucket, the whole context a slot.
      if (!bucketFor(p.prefillBuckets, r.prompt) ||
          r.prompt + r.output - 1 > longest) {
        result.requests[next].rejected = true;
        continue;
      }
      waiting.push_back(next);
    }
  };
  auto runStep = [&](StepRecord &step, double seconds) {
    step.start = t;
    step.seconds = seconds;
    t += seconds;
    result.busySeconds += seconds;
    ++result.stepCount;
    int64_t live = 0;
    for (const Slot &s : slots)
      live += s.context;
    double share = double(live) / double(result.kvCapacityTokens);
    occupancyTime += seconds * share;
    result.kvOccupancyPeak = std::max(result.kvOccupancyPeak, share);
    result.paddedTokens += step.paddedTokens;
    if (record)
      result.steps.push_back(step);
  };
  auto finish = [&](Slot &s) {
    RequestResult &out = result.requests[s.id];
    out.finish = t;
    s = Slot();
  };

  for (;;) {
    admit();
    bool ran = false;
    // Requests prefilled elsewhere go straight into free slots (their KV
    // copied in); then at most prefillsPerStep prefills.
    while (!waiting.empty() && trace[waiting.front()].prefilled) {
      auto slot = llvm::find_if(slots, [](const Slot &s) { return s.id < 0; });
      if (slot == slots.end())
        break;
      int64_t id = waiting.front();
      waiting.pop_front();
      result.requests[id].firstToken = trace[id].arrival;
      *slot = {id, trace[id].prompt};
      if (trace[id].output == 1)
        finish(*slot);
    }
    for (int64_t k = 0; k < p.prefillsPerStep && !waiting.empty() &&
                        !trace[waiting.front()].prefilled;
         ++k) {
      auto slot = llvm::find_if(slots, [](const Slot &s) { return s.id < 0; });
      if (slot == slots.end())
        break;
      int64_t id = waiting.front();
      waiting.pop_front();
      const Request &r = trace[id];
      int64_t bucket = bucketFor(p.prefillBuckets, r.prompt);
      StepRecord step;
      step.kind = "prefill";
      step.prefillTokens = r.prompt;
      step.paddedTokens = bucket - r.prompt;
      step.programTokens = bucket;
      step.ids = {id};
      runStep(step, table.findPrefill(bucket)->totalNs * 1e-9);
      ran = true;
      result.requests[id].firstToken = t;
      *slot = {id, r.prompt};
      if (r.output == 1)
        finish(*slot);
      admit();
    }
    int64_t active =
        llvm::count_if(slots, [](const Slot &s) { return s.id >= 0; });
    if (active) {
      // Each active slot computes the KV of its last token over the ones
      // it holds and samples the next; the program runs every slot at the
      // bucket of the longest.
      int64_t longestActive = 0;
      for (const Slot &s : slots)
        if (s.id >= 0)
          longestActive = std::max(longestActive, s.context);
      int64_t bucket = bucketFor(p.decodeBuckets, longestActive);
      StepRecord step;
      step.kind = "decode";
      step.decodes = active;
      step.paddedTokens = p.slots - active;
      step.programTokens = p.slots;
      for (const Slot &s : slots)
        if (s.id >= 0)
          step.ids.push_back(s.id);
      const ShapePoint *program = table.findDecode(p.slots, bucket);
      double ns = program->totalNs;
      if (p.raggedAttention) {
        int64_t cached = 0;
        for (const Slot &s : slots)
          cached += s.context;
        ns += table.decodeAttentionNs(p.slots, cached) - program->attentionNs;
      }
      runStep(step, ns * 1e-9);
      ran = true;
      for (Slot &s : slots) {
        if (s.id < 0)
          continue;
        ++s.context;
        // Tokens made: the prefill's one and one per decode step since.
        if (s.context - trace[s.id].prompt + 1 == trace[s.id].output)
          finish(s);
      }
    }
    if (ran)
      continue;
    if (next == trace.size() && waiting.empty())
      break;
    if (next < trace.size())
      t = std::max(t, trace[next].arrival);
  }
  result.close(t, occupancyTime);
  return result;
}
