//===- npu-fuzz-serve.cpp - fuzz the serving simulator's inputs and engines
//===//
//
// Input: a cost table (npu-serve-costs/1 JSON), a line "%%", then a CSV
// trace. Each part must parse or fail with an llvm::Error. When both parse
// (and the trace asks for at most 20,000 output tokens, so that an input
// runs in well under a second), every engine runs it -- continuous with
// blocks on demand, with reserved contexts and (a table with draft points)
// speculative, static over the table's
// programs, and both disaggregated -- and each must succeed or fail with
// an llvm::Error, and a run must be consistent: every request rejected or
// served with arrival <= first token <= finish, finite times, blocks held
// within the pool.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "npu/Serve/Engine.h"
#include "npu/Support/InputFiles.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir::npu;
using namespace mlir::npu::serve;

static void check(const SimResult *run, const char *engine) {
  if (!std::isfinite(run->makespan) || !std::isfinite(run->busySeconds))
    npu_fuzz::fail(llvm::formatv("{0}: makespan {1}", engine, run->makespan));
  for (const RequestResult &r : run->requests) {
    if (r.rejected)
      continue;
    if (!(r.request.arrival <= r.firstToken && r.firstToken <= r.finish) ||
        !std::isfinite(r.finish))
      npu_fuzz::fail(llvm::formatv("{0}: request {1} arrives at {2}, first "
                                   "token {3}, finishes {4}",
                                   engine, r.request.id, r.request.arrival,
                                   r.firstToken, r.finish));
  }
  for (const StepRecord &s : run->steps)
    if (run->kvBlocks && s.usedBlocks > run->kvBlocks)
      npu_fuzz::fail(llvm::formatv("{0}: {1} blocks held of {2}", engine,
                                   s.usedBlocks, run->kvBlocks));
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto [tableText, traceText] = text.split("\n%%\n");
  llvm::Expected<llvm::json::Value> json = parseJsonInput(tableText);
  if (!json) {
    (void)llvm::toString(json.takeError());
    return 0;
  }
  llvm::Expected<CostTable> table = costTableFromJSON(*json);
  llvm::Expected<std::vector<Request>> trace = parseTraceCsv(traceText);
  if (!table || !trace) {
    if (!table)
      (void)llvm::toString(table.takeError());
    if (!trace)
      (void)llvm::toString(trace.takeError());
    return 0;
  }
  int64_t outputs = 0;
  for (const Request &r : *trace)
    outputs += std::min<int64_t>(r.output, 1 << 20);
  if (outputs > 20000)
    return 0;
  auto consume = [](llvm::Expected<SimResult> run, const char *engine) {
    if (!run) {
      (void)llvm::toString(run.takeError());
      return;
    }
    check(&*run, engine);
  };
  ContinuousPolicy c;
  c.maxBatchedTokens = std::min<int64_t>(64, table->maxStepTokens());
  c.maxSeqs = std::min<int64_t>(4, table->maxDecodeBatch());
  c.blockSize = 4;
  consume(simulateContinuous(*trace, *table, c, true), "continuous");
  if (!table->draft.empty() && table->maxDecodeBatch() >= 2) {
    ContinuousPolicy spec = c;
    spec.maxSeqs = std::min<int64_t>(4, table->maxDecodeBatch() / 2);
    spec.draftTokens = 1;
    spec.acceptance = 0.7;
    consume(simulateContinuous(*trace, *table, spec, true), "speculative");
  }
  ContinuousPolicy reserve = c;
  reserve.reserveContext = true;
  consume(simulateContinuous(*trace, *table, reserve, true), "reserve");
  StaticPolicy s;
  s.slots = table->maxDecodeBatch();
  for (const ShapePoint &p : table->prefill)
    s.prefillBuckets.push_back(p.length);
  for (const ShapePoint &p : table->decode)
    if (p.batch == s.slots)
      s.decodeBuckets.push_back(p.length);
  consume(simulateStatic(*trace, *table, s, true), "static");
  DisaggregatedPlan plan;
  plan.kvBytesPerToken = table->kvBytesPerToken;
  plan.linkBytesPerS = 1e9;
  EngineFn cont = [&](llvm::ArrayRef<Request> t) {
    return simulateContinuous(t, *table, c);
  };
  EngineFn stat = [&](llvm::ArrayRef<Request> t) {
    return simulateStatic(t, *table, s);
  };
  consume(simulateDisaggregated(*trace, plan, cont, cont), "pd-continuous");
  consume(simulateDisaggregated(*trace, plan, stat, stat), "pd-static");
  return 0;
}
