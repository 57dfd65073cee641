//===- RaggedDecode.h - ragged decode batches -------------------*- C++ -*-===//
//
// The sequences of a decode batch have different context lengths, known
// only at run time. The compile-time-decided path must plan for them with
// static shapes -- pad every sequence to the planned maximum, or group the
// sequences into static length buckets, truncating (dropping the oldest KV
// tokens of) sequences longer than the plan -- while the run-time-decided
// path runs one ragged (varlen) kernel over the actual lengths. This prices
// both on a seeded sample of the lengths (docs/compare.md, "Ragged decode").
//
//===----------------------------------------------------------------------===//

#ifndef NPU_COMPARE_RAGGEDDECODE_H
#define NPU_COMPARE_RAGGEDDECODE_H

#include "npu/Analysis/KernelModel.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir::npu {

/// Longest context length a scenario accepts (2^40 tokens): lengths are
/// multiplied by batch, heads and head dims, and the products must stay in
/// 64 bits (the work interface's counts also check every product).
constexpr int64_t kMaxContextLength = int64_t(1) << 40;

/// The distribution of per-sequence context lengths (KV tokens, the new
/// token included).
struct LengthModel {
  enum class Shape { Uniform, LongTail, List } shape = Shape::Uniform;
  int64_t min = 1, max = 1;     ///< uniform: [min, max]; longtail: [1, max]
  int64_t median = 1;           ///< longtail: median of the lognormal
  double sigma = 1.0;           ///< longtail: sigma of log(length)
  std::vector<int64_t> lengths; ///< list: one per sequence
};

/// "uniform:<min>:<max>", "longtail:<median>:<max>[:<sigma>]" (lognormal
/// with that median and sigma, default 1, rounded and clipped to [1, max])
/// or "list:<l1>:<l2>:..." (one length per sequence). Every length is an
/// integer in [1, kMaxContextLength], min <= max, median <= max, sigma > 0.
/// Fails with a message in `error`.
std::optional<LengthModel> parseLengthModel(llvm::StringRef text,
                                            std::string &error);

/// Context lengths of `batch` sequences, seeded: drawn from mt19937_64's
/// raw output, not from the library's distributions, so the same seed gives
/// the same lengths with any standard library (the lognormal up to libm's
/// last bit). A list is returned as given (the caller checks that it has
/// `batch` entries).
std::vector<int64_t> sampleContextLengths(int64_t batch, const LengthModel &m,
                                          uint64_t seed);

/// The default bucket set: the powers of two below `plan`, then `plan`.
std::vector<int64_t> powerOfTwoBuckets(int64_t plan);

/// A static plan for a batch of `lengths`: each sequence runs in the
/// smallest bucket not shorter than min(length, plan), where plan =
/// buckets.back(); padding to a single bucket {plan} is the plain pad plan.
struct PaddingPlan {
  std::vector<int64_t> buckets;   ///< sorted, unique, last = the plan
  std::vector<int64_t> sequences; ///< sequences per bucket
  int64_t kernels = 0;            ///< non-empty buckets
  int64_t actualTokens = 0;       ///< sum of the lengths
  int64_t keptTokens = 0;         ///< sum of min(length, plan)
  int64_t paddedTokens = 0;       ///< sum of bucket - min(length, plan)
  int64_t droppedTokens = 0;      ///< sum of max(0, length - plan)
  int64_t truncatedSequences = 0; ///< sequences longer than the plan
};
/// `buckets` must be sorted, unique and positive.
PaddingPlan planPadding(llvm::ArrayRef<int64_t> lengths,
                        llvm::ArrayRef<int64_t> buckets);

/// The decode attention at another shape: `batch` sequences with `kvLen`
/// KV tokens each, everything else as in the module: describeKernel of the
/// op with those dimensions, and the op's own work (FLOPs and the bytes it
/// reads; the description carries FLOPs only).
struct AttentionVariant {
  KernelDesc desc;
  Work work;
};
using AttentionAt =
    std::function<FailureOr<AttentionVariant>(int64_t batch, int64_t kvLen)>;

/// An AttentionAt for `op` (a clone with the new shapes, described and
/// erased at each call; `op` itself is not changed).
AttentionAt makeAttentionAt(AttentionOp op);

/// The cost of a static plan on the TPU-like target: each non-empty bucket
/// one kernel over its sequences at the bucket length, with the TPU-like
/// model's best tile. Wasted work is the plan's minus the work at the kept
/// lengths.
struct StaticPlanCost {
  double timeNs = 0;
  Count wastedFlops;   ///< matrix FLOPs
  Count wastedKvBytes; ///< bytes read
};
std::optional<StaticPlanCost> priceStaticPlan(const PaddingPlan &plan,
                                              llvm::ArrayRef<int64_t> lengths,
                                              const AttentionAt &at,
                                              TargetAttr tpu);

/// The run-time path on the GPU-like target: one ragged launch whose grid
/// holds each sequence's blocks at its actual length (one tile and one KV
/// split for all, clamped to short sequences). The blocks are dispatched over
/// the SMs as they free up (gpumodel::simulateDispatch on each block's compute
/// time), and HBM/L2 serve all of them: time = launch + exposed DRAM latency
/// (once, or once per wave with one block per SM; one more for a split's
/// combine) + max(dispatch makespan,
/// sum of the sequences' memory times).
struct RaggedGpuCost {
  double timeNs = 0;
  double computeMakespanNs =
      0;               ///< the dispatch of the blocks (compute or latency)
  double memoryNs = 0; ///< sum over sequences
  int64_t blocks = 0;
  int64_t blocksPerSM = 0; ///< slots per SM used by the dispatch
  int64_t kvSplits = 1;    ///< the launch's KV split (fewer for short ones)
  Count flops;             ///< matrix FLOPs at the actual lengths
};
/// (`graphLaunches`: its launch replayed from a CUDA graph.)
std::optional<RaggedGpuCost> priceRaggedGpu(llvm::ArrayRef<int64_t> lengths,
                                            const AttentionAt &at,
                                            TargetAttr gpu,
                                            bool graphLaunches = false);

/// One length scenario on the first decode `npu.attention` of a module.
struct RaggedScenario {
  std::string lengthsSpec; ///< as given ("longtail:1024:4096")
  uint64_t seed = 0;
  int64_t batch = 0, qHeads = 0, kvHeads = 0, qkDim = 0, vDim = 0;
  bool latent = false;
  int64_t plan = 0; ///< the module's compiled KV length
  std::vector<int64_t> lengths;
  PaddingPlan pad, bucket;
  StaticPlanCost padCost, bucketCost;
  RaggedGpuCost runtime;
};

/// Runs each length model on the first `npu.attention` of `module` (the
/// layers share its shape), which must be a decode attention (one query per
/// sequence): sample, pad and bucket plans, both costs. `buckets` empty:
/// powerOfTwoBuckets. Emits an error and fails on a bad spec or bucket, a
/// list of the wrong size, a module without decode attention, or lengths
/// whose work overflows 64 bits.
FailureOr<std::vector<RaggedScenario>>
runRaggedScenarios(ModuleOp module, llvm::ArrayRef<std::string> specs,
                   llvm::ArrayRef<int64_t> buckets, uint64_t seed,
                   TargetAttr tpu, TargetAttr gpu);

void printRaggedScenarios(llvm::ArrayRef<RaggedScenario> scenarios,
                          llvm::raw_ostream &os);
llvm::json::Value raggedScenariosToJSON(llvm::ArrayRef<RaggedScenario> s);

} // namespace mlir::npu

#endif // NPU_COMPARE_RAGGEDDECODE_H
