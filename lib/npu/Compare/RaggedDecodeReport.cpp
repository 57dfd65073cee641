//===- RaggedDecodeReport.cpp - ragged decode scenarios: run and report ---===//

#include "npu/Analysis/KernelCost.h"
#include "npu/Compare/RaggedDecode.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <numeric>

using namespace mlir;
using namespace mlir::npu;

FailureOr<std::vector<RaggedScenario>>
mlir::npu::runRaggedScenarios(ModuleOp module, ArrayRef<std::string> specs,
                              ArrayRef<int64_t> buckets, uint64_t seed,
                              TargetAttr tpu, TargetAttr gpu) {
  // The first attention over each sequence's whole context: a windowed or
  // chunked layer (Mistral, GPT-OSS's local layers, Llama-4's RoPE layers)
  // sees only the last window or its chunk, not the sampled length.
  AttentionOp attn;
  bool anyAttention = false;
  module.walk([&](AttentionOp op) {
    anyAttention = true;
    if (!attn && op.getWindowSize() == 0 && op.getChunkSize() == 0)
      attn = op;
  });
  // Option errors have no location ("npu-compare: error: ..."); those
  // about the module point at it or at the attention op.
  Location opt = UnknownLoc::get(module.getContext());
  if (!attn)
    return emitError(module.getLoc(),
                     anyAttention
                         ? "--decode-lengths: every npu.attention is windowed "
                           "or chunked; the ragged scenarios price an "
                           "attention over each sequence's whole context"
                         : "--decode-lengths: the module has no npu.attention "
                           "op");
  AttentionOp::Dims d = attn.getDims();
  if (d.qLen != 1)
    return attn.emitError("--decode-lengths: the first full npu.attention has "
                          "Sq = ")
           << d.qLen
           << " queries per sequence; ragged decode needs a decode "
              "attention (Sq = 1)";
  int64_t plan = d.kvLen;
  std::vector<int64_t> bucketSet;
  for (int64_t b : buckets) {
    if (b < 1 || b > plan)
      return attn.emitError("--decode-buckets: bucket ")
             << b << " is outside [1, " << plan
             << "] (the module's compiled context length)";
    bucketSet.push_back(b);
  }
  llvm::sort(bucketSet);
  bucketSet.erase(std::unique(bucketSet.begin(), bucketSet.end()),
                  bucketSet.end());
  if (bucketSet.empty())
    bucketSet = powerOfTwoBuckets(plan);
  else if (bucketSet.back() != plan)
    bucketSet.push_back(plan);

  AttentionAt at = makeAttentionAt(attn);
  std::vector<RaggedScenario> out;
  for (const std::string &spec : specs) {
    std::string error;
    std::optional<LengthModel> model = parseLengthModel(spec, error);
    if (!model)
      return emitError(opt, "--decode-lengths: ") << error;
    RaggedScenario s;
    s.lengthsSpec = spec;
    s.seed = seed;
    s.batch = d.batch;
    s.qHeads = d.qHeads;
    s.kvHeads = d.kvHeads;
    s.qkDim = d.qkDim;
    s.vDim = d.vDim;
    s.latent = attn.isLatent();
    s.plan = plan;
    s.lengths = sampleContextLengths(d.batch, *model, seed);
    if (int64_t(s.lengths.size()) != d.batch)
      return emitError(opt, "--decode-lengths: '")
             << spec << "' gives " << s.lengths.size()
             << " lengths, but the batch has " << d.batch << " sequences";
    // Every product the pricing forms must fit in 64 bits: the whole batch
    // at the longest length (or the plan) is the largest of them.
    int64_t longest = std::max(*llvm::max_element(s.lengths), plan);
    if (failed(at(d.batch, longest)))
      return emitError(opt, "--decode-lengths: '")
             << spec << "': a batch of " << d.batch << " at " << longest
             << " KV tokens overflows the 64-bit FLOP and byte counts";
    s.pad = planPadding(s.lengths, {plan});
    s.bucket = planPadding(s.lengths, bucketSet);
    std::optional<StaticPlanCost> padCost =
        priceStaticPlan(s.pad, s.lengths, at, tpu);
    std::optional<StaticPlanCost> bucketCost =
        priceStaticPlan(s.bucket, s.lengths, at, tpu);
    std::optional<RaggedGpuCost> runtime =
        priceRaggedGpu(s.lengths, at, gpu, usesGraphLaunches(module));
    if (!padCost || !bucketCost || !runtime)
      return attn.emitError("--decode-lengths: no tile of the decode "
                            "attention fits");
    s.padCost = *padCost;
    s.bucketCost = *bucketCost;
    s.runtime = *runtime;
    out.push_back(std::move(s));
  }
  return out;
}

static std::string bucketText(const PaddingPlan &p) {
  if (p.buckets == powerOfTwoBuckets(p.buckets.back()))
    return llvm::formatv("powers of two up to {0}", p.buckets.back()).str();
  std::string s;
  for (int64_t b : p.buckets)
    s += (s.empty() ? "" : ", ") + std::to_string(b);
  return s;
}

void mlir::npu::printRaggedScenarios(ArrayRef<RaggedScenario> scenarios,
                                     raw_ostream &os) {
  if (scenarios.empty())
    return;
  const RaggedScenario &f = scenarios.front();
  os << llvm::formatv(
      "\nragged decode (first full npu.attention: B = {0} sequences, Hq = {1}, "
      "Hkv = {2}, Dqk = {3}, Dv = {4}{5}; compiled context {6} KV tokens; "
      "seed {7}; one attention op)\n"
      "  pad (tpu): every sequence at the compiled length; bucket (tpu): "
      "each sequence in the smallest bucket not shorter than it ({8}), one "
      "kernel per non-empty bucket; sequences longer than the compiled "
      "length are truncated (dropped tokens); runtime (gpu): one ragged "
      "kernel at the actual lengths\n",
      f.batch, f.qHeads, f.kvHeads, f.qkDim, f.vDim, f.latent ? ", latent" : "",
      f.plan, f.seed, bucketText(f.bucket));
  os << llvm::formatv("  {0,-22} {1,7} {2,9} {3,7}  {4,-8} {5,7} {6,11} "
                      "{7,13} {8,13} {9,11} {10,11}\n",
                      "lengths", "min", "mean", "max", "policy", "kernels",
                      "padded tok", "wasted GFLOP", "wasted KV MB",
                      "dropped tok", "time_us");
  for (const RaggedScenario &s : scenarios) {
    double mean = double(s.pad.actualTokens) / double(s.lengths.size());
    auto row = [&](StringRef policy, int64_t kernels, int64_t padded,
                   double gflop, double mb, int64_t dropped, double ns) {
      os << llvm::formatv("  {0,-8} {1,7} {2,11} {3,13:f3} {4,13:f3} {5,11} "
                          "{6,11:f3}\n",
                          policy, kernels, padded, gflop, mb, dropped,
                          ns / 1e3);
    };
    auto staticRow = [&](StringRef policy, const PaddingPlan &p,
                         const StaticPlanCost &c) {
      row(policy, p.kernels, p.paddedTokens,
          double(c.wastedFlops.value()) / 1e9,
          double(c.wastedKvBytes.value()) / 1e6, p.droppedTokens, c.timeNs);
    };
    os << llvm::formatv("  {0,-22} {1,7} {2,9:f1} {3,7}", s.lengthsSpec,
                        *llvm::min_element(s.lengths), mean,
                        *llvm::max_element(s.lengths));
    staticRow("pad", s.pad, s.padCost);
    os.indent(50);
    staticRow("bucket", s.bucket, s.bucketCost);
    os.indent(50);
    row("runtime", 1, 0, 0, 0, 0, s.runtime.timeNs);
  }
}

static llvm::json::Object planToJSON(const PaddingPlan &p,
                                     const StaticPlanCost &c) {
  llvm::json::Array buckets;
  for (auto [len, n] : llvm::zip(p.buckets, p.sequences))
    if (n > 0)
      buckets.push_back(llvm::json::Object{{"length", len}, {"sequences", n}});
  return llvm::json::Object{
      {"kernels", p.kernels},
      {"padded_kv_tokens", p.paddedTokens},
      {"dropped_tokens", p.droppedTokens},
      {"truncated_sequences", p.truncatedSequences},
      {"wasted_flops", int64_t(c.wastedFlops.value())},
      {"wasted_kv_bytes", int64_t(c.wastedKvBytes.value())},
      {"time_ns", c.timeNs},
      {"buckets", std::move(buckets)}};
}

llvm::json::Value
mlir::npu::raggedScenariosToJSON(ArrayRef<RaggedScenario> scenarios) {
  llvm::json::Array rows;
  for (const RaggedScenario &s : scenarios) {
    const RaggedGpuCost &r = s.runtime;
    rows.push_back(llvm::json::Object{
        {"lengths", s.lengthsSpec},
        {"seed", int64_t(s.seed)},
        {"batch", s.batch},
        {"q_heads", s.qHeads},
        {"kv_heads", s.kvHeads},
        {"qk_dim", s.qkDim},
        {"v_dim", s.vDim},
        {"latent", s.latent},
        {"planned_context", s.plan},
        {"bucket_lengths", llvm::json::Array(s.bucket.buckets)},
        {"context_lengths", llvm::json::Array(s.lengths)},
        {"kv_tokens", s.pad.actualTokens},
        {"pad", planToJSON(s.pad, s.padCost)},
        {"bucket", planToJSON(s.bucket, s.bucketCost)},
        {"runtime",
         llvm::json::Object{{"kernels", 1},
                            {"blocks", r.blocks},
                            {"blocks_per_sm", r.blocksPerSM},
                            {"kv_splits", r.kvSplits},
                            {"flops", int64_t(r.flops.value())},
                            {"compute_makespan_ns", r.computeMakespanNs},
                            {"memory_ns", r.memoryNs},
                            {"time_ns", r.timeNs}}}});
  }
  return rows;
}
