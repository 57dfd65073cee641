//===- RaggedDecode.cpp - decode batches with different context lengths ---===//

#include "npu/Compare/RaggedDecode.h"

#include "npu/Analysis/GpuCostModel.h"
#include "npu/Analysis/TpuCostModel.h"
#include "npu/GpuModel/Dispatch.h"
#include "npu/Support/Random.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <map>
#include <random>

using namespace mlir;
using namespace mlir::npu;

namespace {
const char *kUsage = "expected 'uniform:<min>:<max>', "
                     "'longtail:<median>:<max>[:<sigma>]' or "
                     "'list:<l1>:<l2>:...'";

/// A length of `spec`: an integer in [1, kMaxContextLength].
std::optional<int64_t> parseLength(StringRef field, StringRef spec,
                                   std::string &error) {
  int64_t v = 0;
  if (field.getAsInteger(10, v)) {
    error = ("'" + field + "' in '" + spec + "' is not an integer").str();
    return std::nullopt;
  }
  if (v < 1 || v > kMaxContextLength) {
    error =
        ("length " + std::to_string(v) + " in '" + spec +
         "' must be in [1, 2^40 = " + std::to_string(kMaxContextLength) + "]")
            .str();
    return std::nullopt;
  }
  return v;
}
} // namespace

std::optional<LengthModel> mlir::npu::parseLengthModel(StringRef text,
                                                       std::string &error) {
  SmallVector<StringRef> f;
  text.split(f, ':');
  LengthModel m;
  auto lengths = [&](size_t from, size_t to) -> bool {
    for (size_t i = from; i < to; ++i) {
      std::optional<int64_t> v = parseLength(f[i], text, error);
      if (!v)
        return false;
      m.lengths.push_back(*v);
    }
    return true;
  };
  // Fields 1 and 2 as `low` <= m.max, named `lowName` in errors.
  auto lowAndMax = [&](const char *lowName, int64_t &low) -> bool {
    if (!lengths(1, 3))
      return false;
    low = m.lengths[0];
    m.max = m.lengths[1];
    m.lengths.clear();
    if (low <= m.max)
      return true;
    error = (lowName + (" " + std::to_string(low)) + " > max " +
             std::to_string(m.max) + " in '" + text + "'")
                .str();
    return false;
  };
  if (f[0] == "uniform" && f.size() == 3) {
    if (!lowAndMax("min", m.min))
      return std::nullopt;
    return m;
  }
  if (f[0] == "longtail" && (f.size() == 3 || f.size() == 4)) {
    m.shape = LengthModel::Shape::LongTail;
    if (!lowAndMax("median", m.median))
      return std::nullopt;
    if (f.size() == 4 && (f[3].getAsDouble(m.sigma) ||
                          !std::isfinite(m.sigma) || m.sigma <= 0)) {
      error =
          ("sigma '" + f[3] + "' in '" + text + "' must be a finite number > 0")
              .str();
      return std::nullopt;
    }
    return m;
  }
  if (f[0] == "list" && f.size() >= 2) {
    m.shape = LengthModel::Shape::List;
    if (!lengths(1, f.size()))
      return std::nullopt;
    m.min = *llvm::min_element(m.lengths);
    m.max = *llvm::max_element(m.lengths);
    return m;
  }
  error = ("unknown lengths '" + text + "' (" + kUsage + ")").str();
  return std::nullopt;
}

std::vector<int64_t> mlir::npu::sampleContextLengths(int64_t batch,
                                                     const LengthModel &m,
                                                     uint64_t seed) {
  if (m.shape == LengthModel::Shape::List)
    return m.lengths;
  std::mt19937_64 rng(seed);
  std::vector<int64_t> out;
  out.reserve(batch);
  for (int64_t b = 0; b < batch; ++b) {
    if (m.shape == LengthModel::Shape::Uniform) {
      double span = double(m.max - m.min + 1);
      out.push_back(std::min(m.max, m.min + int64_t(drawUnit(rng) * span)));
      continue;
    }
    // Lognormal by Box-Muller: z standard normal, length = median * e^(s z),
    // rounded and clipped to [1, max].
    double z = drawNormal(rng);
    double len = std::round(double(m.median) * std::exp(m.sigma * z));
    out.push_back(int64_t(std::clamp(len, 1.0, double(m.max))));
  }
  return out;
}

std::vector<int64_t> mlir::npu::powerOfTwoBuckets(int64_t plan) {
  std::vector<int64_t> out;
  for (int64_t b = 1; b < plan; b *= 2)
    out.push_back(b);
  out.push_back(plan);
  return out;
}

PaddingPlan mlir::npu::planPadding(ArrayRef<int64_t> lengths,
                                   ArrayRef<int64_t> buckets) {
  PaddingPlan p;
  p.buckets.assign(buckets.begin(), buckets.end());
  p.sequences.assign(buckets.size(), 0);
  int64_t plan = buckets.back();
  for (int64_t len : lengths) {
    int64_t kept = std::min(len, plan);
    size_t i = llvm::lower_bound(buckets, kept) - buckets.begin();
    ++p.sequences[i];
    p.actualTokens += len;
    p.keptTokens += kept;
    p.paddedTokens += buckets[i] - kept;
    p.droppedTokens += len - kept;
    p.truncatedSequences += len > plan;
  }
  p.kernels = llvm::count_if(p.sequences, [](int64_t n) { return n > 0; });
  return p;
}

AttentionAt mlir::npu::makeAttentionAt(AttentionOp op) {
  return [op](int64_t batch, int64_t kvLen) -> FailureOr<AttentionVariant> {
    AttentionOp attn = op;
    auto reshaped = [&](Value v, bool kv) {
      auto t = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> shape(t.getShape());
      shape[0] = batch;
      if (kv)
        shape[2] = kvLen;
      return RankedTensorType::get(shape, t.getElementType(), t.getEncoding());
    };
    // The clone lives in a scratch function (the work interface looks at
    // the function that owns its operands).
    Location loc = attn.getLoc();
    MLIRContext *ctx = attn.getContext();
    SmallVector<Value> operands = {attn.getQuery(), attn.getKey()};
    if (Value v = attn.getValue())
      operands.push_back(v);
    SmallVector<Type> types;
    for (Value v : operands)
      types.push_back(reshaped(v, v != attn.getQuery()));
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(loc);
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(scratch->getBody());
    auto fn = func::FuncOp::create(b, loc, "ragged_decode_variant",
                                   FunctionType::get(ctx, types, {}));
    Block *entry = fn.addEntryBlock();
    IRMapping map;
    map.map(operands, entry->getArguments());
    b.setInsertionPointToEnd(entry);
    Operation *clone = b.clone(*attn.getOperation(), map);
    clone->getResult(0).setType(reshaped(attn.getResult(), false));
    FailureOr<KernelModel> m = describeKernel(KernelKind::Attention, {clone});
    Work work = cast<AttentionOp>(clone).computeWork();
    if (failed(m) || m->phases.size() != 1 || work.isOverflow() ||
        m->phases[0].work.isOverflow())
      return failure();
    return AttentionVariant{m->phases.front(), work};
  };
}

std::optional<StaticPlanCost>
mlir::npu::priceStaticPlan(const PaddingPlan &plan, ArrayRef<int64_t> lengths,
                           const AttentionAt &at, TargetAttr tpu) {
  FailureOr<TpuParams> tp = TpuParams::get(tpu);
  if (failed(tp))
    return std::nullopt;
  StaticPlanCost cost;
  Count planFlops, planBytes, keptFlops, keptBytes;
  for (auto [len, n] : llvm::zip(plan.buckets, plan.sequences)) {
    if (n == 0)
      continue;
    FailureOr<AttentionVariant> k = at(n, len);
    std::optional<TpuTileChoice> c =
        succeeded(k) ? chooseTpuTile(k->desc, *tp) : std::nullopt;
    if (!c)
      return std::nullopt;
    cost.timeNs += c->cost.timeNs;
    planFlops += k->work.matrixFlops;
    planBytes += k->work.bytesRead;
  }
  // The useful work: every sequence at its kept length (work is linear in
  // the batch, so sequences of equal length are described together).
  std::map<int64_t, int64_t> kept;
  for (int64_t len : lengths)
    ++kept[std::min(len, plan.buckets.back())];
  for (auto [len, n] : kept) {
    FailureOr<AttentionVariant> k = at(n, len);
    if (failed(k))
      return std::nullopt;
    keptFlops += k->work.matrixFlops;
    keptBytes += k->work.bytesRead;
  }
  cost.wastedFlops = planFlops - keptFlops;
  cost.wastedKvBytes = planBytes - keptBytes;
  if (cost.wastedFlops.isOverflow() || cost.wastedKvBytes.isOverflow())
    return std::nullopt;
  return cost;
}

/// One sequence of the ragged batch: its attention alone and the launch's
/// tile clamped to it.
struct RaggedSeq {
  AttentionVariant variant;
  SmallVector<int64_t, 4> tile;
};

/// The ragged launch with one tile and `splits` KV splits (fewer for a
/// sequence with fewer KV tiles); `seqs` holds each distinct length.
static std::optional<RaggedGpuCost> priceRaggedLaunch(
    ArrayRef<int64_t> lengths, const llvm::DenseMap<int64_t, RaggedSeq> &seqs,
    const GpuParams &gp, const GpuBlockPlan &wholePlan, int64_t splits) {
  // Per distinct length: blocks of one sequence, the compute time of one
  // of them alone on an SM, and the sequence's memory time.
  struct Seq {
    int64_t blocks;
    double blockComputeNs, blockLatencyNs, memoryNs;
    Count flops;
  };
  llvm::DenseMap<int64_t, Seq> byLength;
  RaggedGpuCost cost;
  for (int64_t len : lengths) {
    auto it = byLength.find(len);
    if (it == byLength.end()) {
      const RaggedSeq &seq = seqs.find(len)->second;
      const KernelDesc &k = seq.variant.desc;
      ArrayRef<int64_t> t = seq.tile;
      GpuLaunch l;
      l.kvSplits = splits;
      while (l.kvSplits > 1 && !checkGpuLaunch(k, t, 0, l, gp).empty())
        l.kvSplits /= 2;
      std::optional<GpuCost> c =
          getGpuPhaseCost(k, t, gp, /*simulateL2=*/false, {l});
      if (!c || c->grids.size() != 1 || c->grids[0].plan.blocks < 1)
        return std::nullopt;
      // computeNs is the grid's compute over all SMs: blocks x (one
      // block's compute at an SM's rates) / SMs.
      int64_t blocks = c->grids[0].plan.blocks;
      double perBlock = c->computeNs * double(gp.sms) / double(blocks);
      // Little's law, as the GPU-like model bounds a block: its HBM bytes
      // at one DRAM latency per pipeline-full of bytes in flight (the
      // launch's pipeline: one kernel, one tile, for all sequences).
      double hbmPerBlock =
          double((c->hbmReadBytes + c->hbmWriteBytes).value()) / double(blocks);
      double latencyBound =
          wholePlan.inflightBytes > 0
              ? hbmPerBlock * gp.dramLatencyNs / double(wholePlan.inflightBytes)
              : 0.0;
      it = byLength
               .insert({len, Seq{blocks, perBlock, latencyBound, c->memoryNs,
                                 seq.variant.work.matrixFlops}})
               .first;
    }
    cost.blocks += it->second.blocks;
    cost.memoryNs += it->second.memoryNs;
    cost.flops += it->second.flops;
  }
  // Resident blocks per SM, as the GPU-like model counts them: the
  // occupancy limit, or fewer when the grid does not fill it.
  cost.blocksPerSM = std::min<int64_t>(wholePlan.blocksPerSM,
                                       llvm::divideCeil(cost.blocks, gp.sms));
  std::vector<double> times;
  times.reserve(cost.blocks);
  for (int64_t len : lengths) {
    const Seq &s = byLength.find(len)->second;
    times.insert(times.end(), s.blocks,
                 std::max(s.blockComputeNs * double(cost.blocksPerSM),
                          s.blockLatencyNs));
  }
  llvm::Expected<gpumodel::DispatchResult> d = gpumodel::simulateDispatch(
      times, uint32_t(gp.sms), uint32_t(cost.blocksPerSM));
  if (!d) {
    llvm::consumeError(d.takeError());
    return std::nullopt;
  }
  cost.computeMakespanNs = d->makespan;
  // DRAM latency as the GPU-like model exposes it (docs/cost-model-gpu.md):
  // once per wave of blocks that start on idle SMs (one block per SM),
  // else once per launch; a split adds the combine's read-back round trip.
  double roundTrips = wholePlan.blocksPerSM == 1
                          ? double(llvm::divideCeil(cost.blocks, gp.sms))
                          : 1.0;
  if (splits > 1)
    roundTrips += 1;
  cost.kvSplits = splits;
  cost.timeNs = gp.launchNs + roundTrips * gp.dramLatencyNs +
                std::max(cost.computeMakespanNs, cost.memoryNs);
  return cost;
}

std::optional<RaggedGpuCost>
mlir::npu::priceRaggedGpu(ArrayRef<int64_t> lengths, const AttentionAt &at,
                          TargetAttr gpu, bool graphLaunches) {
  FailureOr<GpuParams> gp = GpuParams::get(gpu, {graphLaunches});
  if (failed(gp) || lengths.empty())
    return std::nullopt;
  // One kernel, one tile: the compiler's choice for the longest sequence
  // over the whole batch.
  int64_t longest = *llvm::max_element(lengths);
  FailureOr<AttentionVariant> whole = at(int64_t(lengths.size()), longest);
  if (failed(whole))
    return std::nullopt;
  std::optional<SmallVector<int64_t, 4>> tile = chooseGpuTile(whole->desc, *gp);
  std::optional<GpuBlockPlan> wholePlan =
      tile ? planGpuBlock(whole->desc, *tile, *gp) : std::nullopt;
  if (!wholePlan)
    return std::nullopt;
  // The KV split is chosen at run time, for the actual lengths (as the
  // schedulers of FlashInfer and FlashDecoding++ do): the least time over
  // powers of two up to the longest sequence's KV tiles and at most
  // GpuLaunch::kMaxKvSplits, smaller first.
  // Each distinct length's attention, described once for all the splits.
  llvm::DenseMap<int64_t, RaggedSeq> seqs;
  for (int64_t len : lengths) {
    if (seqs.count(len))
      continue;
    FailureOr<AttentionVariant> v = at(1, len);
    if (failed(v))
      return std::nullopt;
    RaggedSeq seq{std::move(*v), SmallVector<int64_t, 4>(*tile)};
    for (auto [ti, n] : llvm::zip(seq.tile, seq.variant.desc.loops))
      ti = std::min(ti, n);
    seqs.insert({len, std::move(seq)});
  }
  // Each power of two prices every sequence's blocks: the cap keeps the cost
  // of the search independent of the lengths' values.
  int64_t maxSplits = std::min<int64_t>(
      llvm::divideCeil(longest, AttentionNest<>::from(*tile).kv),
      GpuLaunch::kMaxKvSplits);
  std::optional<RaggedGpuCost> best;
  for (int64_t splits = 1; splits <= maxSplits; splits *= 2) {
    std::optional<RaggedGpuCost> c =
        priceRaggedLaunch(lengths, seqs, *gp, *wholePlan, splits);
    if (!c)
      return std::nullopt;
    if (!best || c->timeNs < best->timeNs * (1 - 1e-9))
      best = c;
  }
  return best;
}
