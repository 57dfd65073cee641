//===- ContinuousEngine.cpp - continuous batching over a paged KV cache ---===//
//
// Each sequence knows `known` tokens (its prompt and the tokens it made) and
// holds the KV of `computed` of them. A step computes the missing ones, or a
// chunk of them; a sequence whose KV then covers all it knows samples its
// next token. A prefill, a chunk, a decode and the recompute after a
// preemption are all this one rule (vLLM V1's scheduler works the same way).
//
//===----------------------------------------------------------------------===//

#include "npu/Serve/Engine.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <deque>

using namespace mlir::npu::serve;

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

struct Sequence {
  int64_t known = 0, computed = 0, generated = 0, blocks = 0;
  double credit = 0; ///< expected accepted drafts not yet taken
  /// Decoding: the KV of all it knows but its last token.
  bool decoding() const { return computed > 0 && known - computed == 1; }
};

struct Continuous {
  llvm::ArrayRef<Request> trace;
  const CostTable &table;
  const ContinuousPolicy &policy;
  bool record;
  SimResult result;
  std::vector<Sequence> seqs;
  std::deque<int64_t> waiting;
  std::vector<int64_t> running; ///< in admission order
  int64_t freeBlocks = 0;
  double t = 0;
  size_t next = 0; ///< next arrival in the trace

  int64_t blocksFor(int64_t tokens) const {
    return (tokens + policy.blockSize - 1) / policy.blockSize;
  }

  void admitArrivals() {
    for (; next < trace.size() && trace[next].arrival <= t; ++next) {
      const Request &r = trace[next];
      RequestResult &out = result.requests[next];
      // A request whose whole context the pool or the table cannot hold,
      // or whose context an unchunked step cannot recompute, is refused.
      int64_t context = r.prompt + r.output;
      if (blocksFor(context) > result.kvBlocks ||
          context > table.maxContext() ||
          (!policy.chunkedPrefill && context - 1 > policy.maxBatchedTokens)) {
        out.rejected = true;
        continue;
      }
      Sequence &s = seqs[next];
      s.known = r.prompt;
      if (r.prefilled) {
        // Its prompt's KV arrives with it (blocks taken when it is
        // scheduled); its first token was made at the handoff.
        s.computed = r.prompt;
        s.known = r.prompt + 1;
        s.generated = 1;
        out.firstToken = r.arrival;
        if (r.output == 1) {
          out.finish = r.arrival; // nothing left to make
          continue;
        }
      }
      waiting.push_back(next);
    }
  }

  /// Frees the newest running sequence's blocks and puts it back at the
  /// head of the queue, to recompute everything it knows.
  void preemptLast(StepRecord &step) {
    int64_t victim = running.back();
    running.pop_back();
    Sequence &s = seqs[victim];
    freeBlocks += s.blocks;
    s.blocks = 0;
    result.recomputedTokens += s.computed;
    s.computed = 0;
    ++result.requests[victim].preemptions;
    ++result.preemptions;
    ++step.preempted;
    waiting.push_front(victim);
  }

  /// Grows `id`'s blocks to hold `tokens` (never shrinks them: a reserved
  /// sequence holds its whole context); false if the pool is short.
  bool grow(int64_t id, int64_t tokens) {
    int64_t need = std::max<int64_t>(0, blocksFor(tokens) - seqs[id].blocks);
    if (need > freeBlocks)
      return false;
    freeBlocks -= need;
    seqs[id].blocks += need;
    return true;
  }

  /// (sequence, tokens) computed by one step.
  using Batch = std::vector<std::pair<int64_t, int64_t>>;

  llvm::Error init();
  void schedule(StepRecord &step, Batch &batch);
  double price(const Batch &batch, StepRecord &step) const;
  void apply(const Batch &batch);
  llvm::Error run();
};

llvm::Error Continuous::init() {
  const ContinuousPolicy &p = policy;
  if (p.maxBatchedTokens < 1 || p.maxSeqs < 1 || p.blockSize < 1 ||
      !(p.memoryUtilization > 0 && p.memoryUtilization <= 1))
    return fail("continuous policy: token budget, sequences and block size "
                "must be >= 1 and memory utilization in (0, 1]");
  if (p.maxBatchedTokens > table.maxStepTokens())
    return fail("continuous policy: a step of " +
                llvm::Twine(p.maxBatchedTokens) +
                " tokens is beyond the table's largest prefill point (" +
                llvm::Twine(table.maxStepTokens()) + ")");
  if (p.maxSeqs * (1 + p.draftTokens) > table.maxDecodeBatch())
    return fail("continuous policy: " + llvm::Twine(p.maxSeqs) +
                " sequences per step (each with its drafts) is beyond the "
                "table's largest decode batch (" +
                llvm::Twine(table.maxDecodeBatch()) + ")");
  if (p.draftTokens < 0 || p.draftTokens > 16 ||
      !(p.acceptance >= 0 && p.acceptance <= 1))
    return fail("continuous policy: 0 to 16 drafted tokens, acceptance in "
                "[0, 1]");
  if (p.draftTokens && table.draft.empty())
    return fail("continuous policy: speculative decoding needs the "
                "drafter's cost (the table has no draft points)");
  double blockBytes = table.kvBytesPerToken * double(p.blockSize);
  // A pool of more than 2^62 tokens holds any trace: capped there so that
  // the count stays an integer.
  double blocks = table.kvCapacityBytes(p.memoryUtilization) / blockBytes;
  double most = double(int64_t(1) << 62) / double(p.blockSize);
  result.kvBlocks = int64_t(std::min(blocks, most));
  result.kvCapacityTokens = result.kvBlocks * p.blockSize;
  if (result.kvBlocks < 1)
    return fail("continuous policy: the weights and activations leave no "
                "room for one KV block");
  freeBlocks = result.kvBlocks;
  seqs.assign(trace.size(), {});
  result.requests.resize(trace.size());
  for (size_t i = 0; i < trace.size(); ++i)
    result.requests[i].request = trace[i];
  return llvm::Error::success();
}

/// The running sequences first (preempting the newest when the pool is
/// short), then waiting ones up to the token budget and the sequence cap.
void Continuous::schedule(StepRecord &step, Batch &batch) {
  const ContinuousPolicy &p = policy;
  int64_t budget = p.maxBatchedTokens;
  // Without chunking, a step that can admit a waiting prompt runs
  // prefills only (vLLM V0): decodes wait.
  bool prefillOnly = false;
  if (!p.chunkedPrefill && !waiting.empty() &&
      int64_t(running.size()) < p.maxSeqs) {
    const Sequence &head = seqs[waiting.front()];
    prefillOnly = head.known <= budget && blocksFor(head.known) <= freeBlocks;
  }
  for (size_t i = 0; !prefillOnly && i < running.size() && budget > 0; ++i) {
    int64_t id = running[i];
    Sequence &s = seqs[id];
    // A decoding sequence feeds its last token and its drafts (no more
    // than it still has to make).
    int64_t drafts = s.decoding() ? std::min(p.draftTokens,
                                             trace[id].output - s.generated - 1)
                                  : 0;
    int64_t n = std::min(s.known - s.computed + drafts, budget);
    while (!grow(id, s.computed + n)) {
      bool self = running.back() == id;
      preemptLast(step);
      if (self)
        break;
    }
    if (i >= running.size() || running[i] != id)
      break; // preempted itself: nothing newer is left to run
    batch.push_back({id, n});
    budget -= n;
  }
  if (step.preempted)
    return;
  while (!waiting.empty() && budget > 0 &&
         int64_t(running.size()) < p.maxSeqs) {
    int64_t id = waiting.front();
    Sequence &s = seqs[id];
    int64_t n = s.known - s.computed;
    if (!p.chunkedPrefill && n > budget)
      break;
    n = std::min(n, budget);
    const Request &r = trace[id];
    if (!grow(id, p.reserveContext ? r.prompt + r.output - 1 : s.computed + n))
      break;
    waiting.pop_front();
    running.push_back(id);
    batch.push_back({id, n});
    budget -= n;
  }
}

/// dense(T) (decodes only: decodeDense(B)) + the decodes' attention + each
/// chunk's (CostTable.h).
double Continuous::price(const Batch &batch, StepRecord &step) const {
  int64_t tokens = 0, cached = 0, drafting = 0;
  double attention = 0;
  for (auto [id, n] : batch) {
    const Sequence &s = seqs[id];
    tokens += n;
    if (s.decoding()) {
      // Its drafts' query rows read the same KV (memory-bound decode
      // attention): the decode attention of its context.
      ++step.decodes;
      cached += s.computed;
      drafting += n > 1;
    } else {
      attention += table.chunkAttentionNs(n, s.computed);
      step.prefillTokens += n;
    }
  }
  if (step.decodes)
    attention += table.decodeAttentionNs(step.decodes, cached);
  step.kind = step.prefillTokens == 0        ? "decode"
              : step.prefillTokens == tokens ? "prefill"
                                             : "mixed";
  double dense =
      step.prefillTokens ? table.denseNs(tokens) : table.decodeDenseNs(tokens);
  // The drafter proposes each of the next step's drafts one after another.
  double draft =
      drafting ? double(policy.draftTokens) * table.draftNs(drafting) : 0;
  return (dense + attention + draft) * 1e-9;
}

/// KV computed, tokens sampled, finished sequences freed (at time t).
void Continuous::apply(const Batch &batch) {
  for (auto [id, n] : batch) {
    Sequence &s = seqs[id];
    RequestResult &out = result.requests[id];
    // Tokens made: one of the target's, and the accepted drafts.
    int64_t made = 1;
    if (s.decoding() && n > 1) {
      double expected = 0, power = 1;
      for (int64_t i = 1; i < n; ++i)
        expected += power *= policy.acceptance;
      s.credit += expected;
      int64_t accepted = std::min<int64_t>(n - 1, int64_t(s.credit));
      s.credit -= double(accepted);
      made += accepted;
      s.computed += 1 + accepted;
    } else {
      s.computed += n;
      if (s.computed < s.known)
        continue;
    }
    if (s.generated == 0)
      out.firstToken = t;
    s.generated += made;
    s.known += made;
    if (s.generated == out.request.output) {
      out.finish = t;
      freeBlocks += s.blocks;
      s.blocks = 0;
      llvm::erase(running, id);
    }
  }
}

llvm::Error Continuous::run() {
  if (llvm::Error e = init())
    return e;
  double occupancyTime = 0;
  for (;;) {
    admitArrivals();
    if (running.empty() && waiting.empty()) {
      if (next == trace.size())
        break;
      t = std::max(t, trace[next].arrival);
      continue;
    }
    StepRecord step;
    step.start = t;
    Batch batch;
    schedule(step, batch);
    // Nothing fits until a sequence ends, and none runs: impossible, since
    // every admitted request fits the pool alone.
    if (batch.empty())
      return fail("continuous engine: no sequence can run at t = " +
                  std::to_string(t) + " s");
    step.seconds = price(batch, step);
    t += step.seconds;
    result.busySeconds += step.seconds;
    ++result.stepCount;
    step.usedBlocks = result.kvBlocks - freeBlocks;
    double share = double(step.usedBlocks) / double(result.kvBlocks);
    occupancyTime += step.seconds * share;
    result.kvOccupancyPeak = std::max(result.kvOccupancyPeak, share);
    apply(batch);
    if (record) {
      for (auto [id, n] : batch)
        step.ids.push_back(id);
      result.steps.push_back(std::move(step));
    }
  }
  result.close(t, occupancyTime);
  return llvm::Error::success();
}

} // namespace

llvm::Expected<SimResult> mlir::npu::serve::simulateContinuous(
    llvm::ArrayRef<Request> trace, const CostTable &table,
    const ContinuousPolicy &policy, bool recordSteps) {
  Continuous engine{trace, table, policy, recordSteps, {}, {}, {}, {}};
  if (llvm::Error e = engine.run())
    return std::move(e);
  return std::move(engine.result);
}

llvm::Error mlir::npu::serve::parseSpeculative(llvm::StringRef text,
                                               ContinuousPolicy &c) {
  auto [k, a] = text.split(':');
  if (k.getAsInteger(10, c.draftTokens) || c.draftTokens < 1 ||
      c.draftTokens > 16 || a.getAsDouble(c.acceptance) ||
      !(c.acceptance >= 0 && c.acceptance <= 1))
    return fail("must be K:A, K drafted tokens in [1, 16] and an acceptance "
                "in [0, 1]");
  return llvm::Error::success();
}
