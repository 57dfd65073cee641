//===- Trace.cpp - request traces for the serving simulator ---------------===//

#include "npu/Serve/Trace.h"

#include "npu/Support/Random.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <cmath>
#include <random>

using namespace mlir::npu;
using namespace mlir::npu::serve;

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Gamma(shape, 1) by Marsaglia and Tsang (2000); a shape below 1 through
/// Gamma(shape + 1) * U^(1/shape).
double gamma(std::mt19937_64 &rng, double shape) {
  if (shape < 1.0) {
    double g = gamma(rng, shape + 1.0);
    return g * std::pow(1.0 - drawUnit(rng), 1.0 / shape);
  }
  double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = drawNormal(rng), v = 1.0 + c * x;
    if (v <= 0)
      continue;
    v = v * v * v;
    double u = 1.0 - drawUnit(rng);
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v))
      return d * v;
  }
}

} // namespace

llvm::Expected<std::vector<Request>>
mlir::npu::serve::generateTrace(const TraceSpec &spec) {
  if (spec.requests < 1 || spec.requests > kMaxRequests)
    return fail("requests " + llvm::Twine(spec.requests) + " outside [1, " +
                llvm::Twine(kMaxRequests) + "]");
  if (!std::isfinite(spec.rate) || spec.rate <= 0)
    return fail("rate must be a finite number of requests per second > 0");
  if (!std::isfinite(spec.burstiness) || spec.burstiness <= 0)
    return fail("burstiness must be a finite number > 0");
  for (const LengthModel *m : {&spec.prompt, &spec.output})
    if (m->shape == LengthModel::Shape::List &&
        int64_t(m->lengths.size()) != spec.requests)
      return fail("a list of " + llvm::Twine(m->lengths.size()) +
                  " lengths for " + llvm::Twine(spec.requests) + " requests");
  std::vector<int64_t> prompts =
      sampleContextLengths(spec.requests, spec.prompt, spec.seed);
  std::vector<int64_t> outputs =
      sampleContextLengths(spec.requests, spec.output, spec.seed + 1);
  std::mt19937_64 rng(spec.seed + 2);
  std::vector<Request> trace(spec.requests);
  double t = 0;
  // Gamma(k, 1/(rate k)) has mean 1/rate for every shape k.
  double scale = 1.0 / (spec.rate * spec.burstiness);
  for (int64_t i = 0; i < spec.requests; ++i) {
    t += gamma(rng, spec.burstiness) * scale;
    trace[i] = {i, t, prompts[i], outputs[i]};
  }
  return trace;
}

llvm::Expected<std::vector<Request>>
mlir::npu::serve::parseTraceCsv(llvm::StringRef text) {
  std::vector<Request> trace;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  double last = 0;
  for (size_t n = 0; n < lines.size(); ++n) {
    llvm::StringRef line = lines[n].split('#').first.trim();
    if (line.empty())
      continue;
    std::string where = ("trace line " + llvm::Twine(n + 1)).str();
    if (trace.empty() && llvm::isAlpha(line.front()))
      continue; // a header
    llvm::SmallVector<llvm::StringRef> f;
    line.split(f, ',');
    if (f.size() != 3)
      return fail(where + ": expected arrival_s,prompt_tokens,output_tokens");
    double arrival = 0;
    if (f[0].trim().getAsDouble(arrival) || !std::isfinite(arrival) ||
        arrival < 0)
      return fail(where + ": arrival '" + f[0].trim() +
                  "' is not a finite number of seconds >= 0");
    if (arrival < last)
      return fail(where + ": arrival " + f[0].trim() +
                  " is before the previous request's");
    last = arrival;
    int64_t len[2];
    for (int i = 0; i < 2; ++i) {
      llvm::StringRef v = f[i + 1].trim();
      if (v.getAsInteger(10, len[i]) || len[i] < 1 ||
          len[i] > kMaxContextLength)
        return fail(where + ": " + (i ? "output" : "prompt") + " tokens '" + v +
                    "' is not an integer in [1, 2^40]");
    }
    if (int64_t(trace.size()) == kMaxRequests)
      return fail(where + ": more than " + llvm::Twine(kMaxRequests) +
                  " requests");
    trace.push_back({int64_t(trace.size()), arrival, len[0], len[1]});
  }
  if (trace.empty())
    return fail("the trace holds no request");
  return trace;
}
