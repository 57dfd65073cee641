//===- Engine.h - serving engines, run-time and compile-time ----*- C++ -*-===//
//
// Two ways to serve a stream of requests, each priced step by step from a
// CostTable (docs/serving.md):
//  - continuous batching, decided at run time (vLLM, SGLang): every step
//    takes the running sequences' next tokens first, then prefill chunks up
//    to a token budget; the KV cache is paged (blocks of `blockSize`
//    tokens, allocated as a sequence grows, freed when it ends); when a
//    decode finds no free block the newest running sequence is preempted
//    (its blocks freed, recomputed later from its prompt and the tokens it
//    had made);
//  - static buckets, decided at compile time (JetStream on TPU): a decode
//    program over a fixed number of slots, compiled at a few context
//    lengths, and prefill programs at a few prompt lengths; a request is
//    prefilled alone, padded to the smallest prompt bucket that holds it,
//    and inserted into a free slot, whose KV is allocated ahead for the
//    longest context; every decode step runs all slots (empty ones too) at
//    the smallest context bucket that holds the longest active sequence
//    (its attention over each slot's own KV when `raggedAttention`).
// Both engines run one step at a time on one chip (or one group of chips
// that the table prices as one): time advances by each step's cost, and a
// request that arrives during a step waits for the next.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SERVE_ENGINE_H
#define NPU_SERVE_ENGINE_H

#include "npu/Serve/CostTable.h"
#include "npu/Serve/Trace.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mlir::npu::serve {

struct ContinuousPolicy {
  int64_t maxBatchedTokens = 8192; ///< tokens per step (vLLM's
                                   ///< max_num_batched_tokens)
  int64_t maxSeqs = 256;           ///< sequences per step (max_num_seqs)
  int64_t blockSize = 16;          ///< tokens per KV block
  bool chunkedPrefill = true;      ///< split a prompt over steps; off: a prompt
                              ///< runs whole in one step, alone with decodes
  double memoryUtilization = 0.9; ///< share of HBM the engine may use
  /// Admit a sequence only when the blocks of its whole context (prompt
  /// and every output token) are free, and take them at once: no
  /// preemption ever (TensorRT-LLM's GUARANTEED_NO_EVICT scheduler). Off:
  /// blocks on demand, preemption when short (vLLM).
  bool reserveContext = false;
  /// Speculative decoding: each decoding sequence verifies this many
  /// drafted tokens per step (the drafter's cost: the table's draft points),
  /// each accepted with probability `acceptance` given the ones before it
  /// were; the step makes the accepted drafts plus one token of the target.
  /// Accepted drafts are counted deterministically: a sequence accepts its
  /// expected a + a^2 + ... + a^d drafts on average, carried over steps.
  int64_t draftTokens = 0;
  double acceptance = 0;
};

struct StaticPolicy {
  int64_t slots = 64;                  ///< decode batch, compiled
  std::vector<int64_t> prefillBuckets; ///< prompt lengths, ascending
  std::vector<int64_t> decodeBuckets;  ///< context lengths, ascending
  int64_t prefillsPerStep = 1;         ///< prefills between two decode steps
  /// Decode attention reads each slot's own KV, as a ragged kernel does
  /// (MaxText's ragged attention under JetStream, ragged paged attention):
  /// the program's attention is replaced by the table's decode attention at
  /// the slots' actual lengths (CostTable::decodeAttentionNs at the slot
  /// count, empty slots holding none). Off: every slot at the bucket.
  bool raggedAttention = true;
  double memoryUtilization = 0.9;
};

/// What happened to one request (times in seconds from the trace's start).
struct RequestResult {
  Request request;
  double firstToken = 0, finish = 0;
  int64_t preemptions = 0;
  bool rejected = false; ///< the engine cannot serve it (too long)
};

/// One engine step, for --steps and the tests.
struct StepRecord {
  double start = 0, seconds = 0;
  std::string kind;          ///< "mixed", "prefill" or "decode"
  int64_t decodes = 0;       ///< sequences taking one token
  int64_t prefillTokens = 0; ///< prompt tokens computed (padding excluded)
  int64_t paddedTokens = 0;  ///< tokens computed for nothing
  int64_t programTokens = 0; ///< static: the program's shape (b x len)
  int64_t usedBlocks = 0;    ///< continuous: held during the step
  int64_t preempted = 0;     ///< sequences preempted before the step
  std::vector<int64_t> ids;  ///< requests in the step
};

struct SimResult {
  std::vector<RequestResult> requests; ///< in trace order
  std::vector<StepRecord> steps;       ///< only when asked for
  double makespan = 0;                 ///< last step's end
  double busySeconds = 0;              ///< sum of step times
  int64_t stepCount = 0;
  int64_t kvBlocks = 0; ///< continuous: blocks in the pool
  int64_t kvCapacityTokens = 0;
  double kvOccupancyMean = 0;   ///< time-weighted share of the KV cache
  double kvOccupancyPeak = 0;   ///< that holds live tokens
  int64_t usefulTokens = 0;     ///< tokens of work the requests needed
  int64_t paddedTokens = 0;     ///< tokens computed for nothing (static)
  int64_t recomputedTokens = 0; ///< prefilled again after a preemption
  int64_t preemptions = 0;

  /// Ends a run at `end`: the mean KV occupancy from its integral over the
  /// steps (`occupancySeconds`), and the useful tokens of the served
  /// requests (each prompt and every output token but the last, whose KV
  /// is never needed).
  void close(double end, double occupancySeconds);
};

/// Runs the trace (sorted by arrival) through one engine. Fails when the
/// table cannot price a step the policy allows (a token budget or a batch
/// beyond its points) or the policy is inconsistent (no bucket, slots
/// whose KV does not fit). `recordSteps` keeps every StepRecord.
llvm::Expected<SimResult> simulateContinuous(llvm::ArrayRef<Request> trace,
                                             const CostTable &table,
                                             const ContinuousPolicy &policy,
                                             bool recordSteps = false);
llvm::Expected<SimResult> simulateStatic(llvm::ArrayRef<Request> trace,
                                         const CostTable &table,
                                         const StaticPolicy &policy,
                                         bool recordSteps = false);

/// "K:A" (K drafted tokens in [1, 16], acceptance A in [0, 1]) into the
/// policy's draftTokens and acceptance.
llvm::Error parseSpeculative(llvm::StringRef text, ContinuousPolicy &policy);

/// One engine (a table and a policy) run over a trace.
using EngineFn =
    std::function<llvm::Expected<SimResult>(llvm::ArrayRef<Request>)>;

/// Prefill and decode on separate chips (DistServe, Splitwise; vLLM's and
/// SGLang's PD disaggregation, JetStream's disaggregated serving).
struct DisaggregatedPlan {
  int64_t prefillChips = 1, decodeChips = 1;
  double kvBytesPerToken = 0;
  double linkBytesPerS = 0; ///< a prefill chip to a decode chip, one way
};

/// "P:D" (each in [1, 4096]) into the plan's prefill and decode chips.
llvm::Error parseDisaggregation(llvm::StringRef text, DisaggregatedPlan &plan);

/// Requests go round-robin to the prefill chips, each running `prefill` on
/// its share with one output token (the first); each request's KV then
/// moves to a decode chip (prompt x kvBytesPerToken / linkBytesPerS after
/// its first token) and arrives there prefilled, round-robin in handoff
/// order, each decode chip running `decode` on its share. The merged
/// result: first tokens from the prefill chips, finishes from the decode
/// chips; steps, busy time, padding and preemptions summed; KV occupancy of
/// the decode chips (their mean).
llvm::Expected<SimResult> simulateDisaggregated(llvm::ArrayRef<Request> trace,
                                                const DisaggregatedPlan &plan,
                                                const EngineFn &prefill,
                                                const EngineFn &decode);

} // namespace mlir::npu::serve

#endif // NPU_SERVE_ENGINE_H
