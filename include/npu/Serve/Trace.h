//===- Trace.h - request traces for the serving simulator -------*- C++ -*-===//
//
// A trace is a list of requests: when each arrives, how many prompt tokens
// it brings and how many tokens it asks for. npu-serve reads one from a CSV
// file or draws one, seeded: Poisson arrivals (or bursty ones: gamma
// inter-arrival times with a shape below 1, as vLLM's benchmark_serving
// --burstiness draws them) and prompt and output lengths from the length
// models of npu-compare --ragged-lengths (docs/serving.md, "Traces").
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SERVE_TRACE_H
#define NPU_SERVE_TRACE_H

#include "npu/Compare/RaggedDecode.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace mlir::npu::serve {

struct Request {
  int64_t id = 0;
  double arrival = 0; ///< seconds from the start of the trace
  int64_t prompt = 1; ///< prompt tokens (>= 1)
  int64_t output = 1; ///< tokens to generate, the first one included (>= 1)
  /// Arrives with its prompt's KV and its first token, made elsewhere (a
  /// prefill instance of a disaggregated deployment): the engine only
  /// decodes it.
  bool prefilled = false;
};

/// Most requests a trace holds (each request costs a few hundred bytes of
/// state in a run).
constexpr int64_t kMaxRequests = int64_t(1) << 24;

struct TraceSpec {
  int64_t requests = 100;
  double rate = 1.0;       ///< mean arrivals per second (> 0)
  double burstiness = 1.0; ///< gamma shape of the inter-arrival times: 1
                           ///< is Poisson, below 1 burstier
  LengthModel prompt, output;
  uint64_t seed = 0;
};

/// Draws the trace: inter-arrival times from a gamma distribution of shape
/// `burstiness` and mean 1/rate (exponential for shape 1), prompt and output
/// lengths from their models, all from mt19937_64's raw output (the same
/// seed gives the same trace with any standard library). The first request
/// arrives at its first inter-arrival time. A length model "list:..." must
/// hold one length per request.
llvm::Expected<std::vector<Request>> generateTrace(const TraceSpec &spec);

/// Parses a CSV trace: one request per line, `arrival_s,prompt_tokens,
/// output_tokens`, an optional header line starting with a letter, `#`
/// comments and blank lines skipped. Arrivals are finite, >= 0 and
/// non-decreasing; lengths are integers in [1, kMaxContextLength]. Errors
/// name the line.
llvm::Expected<std::vector<Request>> parseTraceCsv(llvm::StringRef text);

} // namespace mlir::npu::serve

#endif // NPU_SERVE_TRACE_H
