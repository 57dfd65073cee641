//===- MultiChip.cpp - one step of a model on a system, both sides --------===//

#include "npu/Compare/MultiChip.h"

#include "npu/Compare/Compare.h"
#include "npu/Compare/CompareInput.h"

#include "npu/Analysis/Bill.h"
#include "npu/Compare/CompareInput.h"
#include "npu/Parallel/ParallelMap.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Threading.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::parallel;

namespace {

/// dp x tp x cp x pp = chips; for a model with routed experts, ep over the
/// chips of a stage (tp = 1). Stages: every divisor up to the layers.
/// Context parallelism (a prefill's prompts cut over cp chips, tp = 1): cp
/// of 2, 4 and 8 where it divides the stage and the prompt (a longer ring
/// passes more K/V per layer than a node's links hide; a heuristic).
std::vector<Split> enumerateSplits(const ModelConfig &config, int64_t chips,
                                   const ImportOptions &options) {
  std::vector<Split> splits;
  for (int64_t pp = 1; pp <= std::min(chips, config.numLayers); ++pp) {
    if (chips % pp != 0)
      continue;
    int64_t stage = chips / pp;
    for (int64_t cp = 1; cp <= std::min<int64_t>(stage, 8); cp *= 2) {
      if (stage % cp != 0 || (cp > 1 && (options.phase != Phase::Prefill ||
                                         options.seqLen % cp != 0)))
        continue;
      int64_t replicas = stage / cp;
      for (int64_t tp = 1; tp <= replicas; ++tp)
        if (replicas % tp == 0 && (tp == 1 || cp == 1))
          splits.push_back({replicas / tp, tp, 1, pp, cp});
      if (config.numRoutedExperts)
        for (int64_t ep = 2; ep <= stage; ++ep)
          if (stage % ep == 0)
            splits.push_back({replicas, 1, ep, pp, cp});
    }
  }
  return splits;
}

struct Evaluator {
  MLIRContext *ctx;
  const ModelConfig &config;
  const ImportOptions &global;
  const target::System &system;
  int side;
  int64_t globalTokens;
  /// Refuse a split whose bill exceeds the chip's HBM (off: the caller
  /// manages the KV cache itself, as a serving engine's pool does).
  bool checkHbm = true;

  /// Adds the split's collective `role` over a group of `groupChips`
  /// chips, `perStep` times a step, of `bytes` bytes each. Its kind, its
  /// group (pipeline stages on the outermost axes, the rest innermost) and
  /// whether it may run beside compute (not the GPU-like side's
  /// tensor-parallel all-reduces: on the stream) follow from its role. An
  /// expert dispatch or combine's `bytes` are one copy of the chip's
  /// tokens: each goes once to each chip that holds one of its experts,
  /// and across nodes once to each node, then is forwarded inside it
  /// (DeepEP's kernels).
  LogicalResult addCollective(SplitStep &step, CollectiveRole role,
                              int64_t groupChips, double bytes,
                              int64_t perStep) {
    bool outermost = role == CollectiveRole::PpSend;
    bool routed =
        role == CollectiveRole::EpDispatch || role == CollectiveRole::EpCombine;
    CollectiveKind kind = role == CollectiveRole::TpAllReduce
                              ? CollectiveKind::AllReduce
                          : routed ? CollectiveKind::AllToAll
                                   : CollectiveKind::SendRecv;
    llvm::Expected<target::System> group =
        innerGroup(system, groupChips, outermost);
    if (!group) {
      step.infeasible = llvm::toString(group.takeError());
      return failure();
    }
    double scaleOutBytes = 0;
    if (routed) {
      parallel::RoutedDestinations d = parallel::routedDestinations(
          *group, {}, config.numRoutedExperts, config.numExpertsPerToken,
          config.numGroups, config.topkGroups);
      scaleOutBytes = bytes * d.nodes;
      bytes *= d.chips;
    }
    // A send goes to the next chip along the group's outermost axis.
    std::vector<std::string> axes;
    if (kind == CollectiveKind::SendRecv)
      axes.push_back(group->axes.back().name);
    // Each of the layer's micro-batches in flight sends its share (a stage,
    // on the outermost axes, sends its pipeline micro-batch whole).
    int64_t shares = outermost ? 1 : step.inFlight;
    llvm::Expected<CollectiveCost> cost = priceCollective(
        *group, kind, axes, bytes / double(shares), SwitchAlgorithm::Fastest,
        scaleOutBytes / double(shares));
    if (!cost) {
      step.infeasible = llvm::toString(cost.takeError());
      return failure();
    }
    StepCollective c;
    c.role = role;
    c.kind = kind;
    c.chips = groupChips;
    c.axes = group->getShapeString();
    c.bytes = bytes;
    c.perStep = perStep;
    c.seconds = cost->seconds * double(shares);
    c.microBatchSeconds = cost->seconds;
    c.overlapped = side == 0 || role != CollectiveRole::TpAllReduce;
    // The outermost level the group uses runs the collective's kernel.
    const target::Interconnect &ic = *system.chip.interconnect;
    bool out = llvm::any_of(
        group->axes, [](const target::SystemAxis &x) { return x.scaleOut; });
    // A send between pipeline stages is a copy: copy engines or RDMA move
    // it without SMs ("0 SM PP", DeepEP V2's README).
    int64_t units =
        kind == CollectiveKind::SendRecv
            ? 0
            : (out ? *ic.scaleOut : ic.scaleUp).computeUnitsPerCollective;
    TargetAttr chip = system.chip.attr;
    int64_t cores = chip.getGpu() ? chip.getGpu().getSmCount()
                                  : chip.getTpu().getTensorCoreCount();
    c.coreFraction = double(units) / double(cores);
    step.collectives.push_back(c);
    return success();
  }

  /// `chip`'s model imported and verified; null if it does not import.
  OwningOpRef<ModuleOp> importVerified(const ChipModel &chip) {
    OwningOpRef<ModuleOp> module = importModel(chip.config, chip.options, ctx);
    if (!module || findOversizedType(*module) || failed(verify(*module)))
      return nullptr;
    return module;
  }

  /// The chip's model under `split`, imported, with its bill checked
  /// against the chip's HBM and its shape read; null (and
  /// `step.infeasible`) otherwise.
  OwningOpRef<ModuleOp> importChip(const Split &split, SplitStep &step,
                                   ChipModel &chip, ModelShape &shape) {
    llvm::Expected<ChipModel> model =
        shardModel(config, global, split, system.getChipCount());
    if (!model) {
      step.infeasible = llvm::toString(model.takeError());
      return nullptr;
    }
    chip = *model;
    OwningOpRef<ModuleOp> module = importVerified(chip);
    if (!module) {
      step.infeasible = "the per-chip model does not import";
      return nullptr;
    }
    TargetAttr target = system.chip.attr;
    FailureOr<ModelBill> bill = computeBill(*module, target);
    FailureOr<ModelShape> read = failure();
    if (succeeded(bill))
      read = readModelShape(*module, *bill);
    if (failed(read)) {
      step.infeasible = "the per-chip model has no bill (a count overflows)";
      return nullptr;
    }
    shape = *read;
    // The module is one micro-batch; the stage keeps every micro-batch's
    // KV cache.
    auto bytes = [](Count c) { return static_cast<int64_t>(c.value()); };
    step.parameterBytes = bytes(bill->parameterBytes);
    step.kvCacheBytes = bytes(bill->kvCacheBytes) * chip.microBatches;
    step.activationBytes = bytes(bill->peakLiveActivationBytes);
    step.hbmNeededBytes =
        step.parameterBytes + step.kvCacheBytes + step.activationBytes;
    if (checkHbm && step.hbmNeededBytes > target.getHbmBytes()) {
      step.infeasible =
          llvm::formatv("needs {0:f1} GB of HBM per chip (weights {1:f1}, KV "
                        "cache {2:f1}, activations {3:f1}), the chip has "
                        "{4:f1}",
                        step.hbmNeededBytes / 1e9, step.parameterBytes / 1e9,
                        step.kvCacheBytes / 1e9, step.activationBytes / 1e9,
                        target.getHbmBytes() / 1e9)
              .str();
      return nullptr;
    }
    return module;
  }

  /// The split's collectives for `m` micro-batches of `shape` each.
  LogicalResult addCollectives(SplitStep &step, const ChipModel &chip,
                               const ModelShape &shape) {
    const Split &split = step.split;
    const ImportOptions &options = chip.options;
    int64_t m = chip.microBatches;
    double T = double(shape.tokens), D = double(shape.hidden),
           a = double(shape.activationBytes);
    if (split.tp > 1 &&
        failed(addCollective(step, CollectiveRole::TpAllReduce, split.tp,
                             T * D * a, 2 * shape.layers * m)))
      return failure();
    // Dispatch in fp8 with its scales where the experts' matmuls take fp8
    // (DeepEP quantizes before sending); combine each chip's sum back at
    // the activations' precision.
    double dispatchBytes =
        expertsTakeFp8(options.weightDType) ? parallel::kFp8DispatchBytes : a;
    if (split.ep > 1 &&
        (failed(addCollective(step, CollectiveRole::EpDispatch, split.ep,
                              T * D * dispatchBytes, shape.moeLayers * m)) ||
         failed(addCollective(step, CollectiveRole::EpCombine, split.ep,
                              T * D * a, shape.moeLayers * m))))
      return failure();
    // Context parallelism (ring attention): each layer passes every chip's
    // K/V (its T tokens' kv bytes) cp - 1 hops round the ring, beside the
    // attention's blocks on both sides.
    if (split.cp > 1 &&
        failed(addCollective(step, CollectiveRole::CpRing, split.cp,
                             T * double(shape.kvBytesPerTokenPerLayer),
                             shape.layers * (split.cp - 1) * m)))
      return failure();
    // A stage sends each micro-batch's residual to the next one, by DMA
    // beside the next micro-batch's compute, on both sides.
    if (split.pp > 1 && failed(addCollective(step, CollectiveRole::PpSend,
                                             split.pp, T * D * a, m)))
      return failure();
    return success();
  }

  /// The split's collectives of one run of `layer`, beside their kernels:
  /// a tensor-parallel all-reduce after the attention's output projection
  /// (the first GEMM after the attention) and after the FFN (the last
  /// FFN-like kernel), the expert dispatch before the MoE kernel and the
  /// combine after it (the shared expert, fused after the routed experts,
  /// adds their sum: it waits). `owner`: the StepCollective of each.
  void placeCollectives(const SplitStep &step, const LayerProfile &layer,
                        std::vector<LayerCollective> &placed,
                        std::vector<int> &owner) const {
    const std::vector<LayerKernel> &k = layer.kernels;
    int n = static_cast<int>(k.size());
    auto first = [&](int from, auto pred) {
      for (int i = std::max(from, 0); i < n; ++i)
        if (pred(k[i].kind))
          return i;
      return -1;
    };
    int attention = first(0, isAttentionKind);
    int outProj = first(
        attention, [](KernelKind kind) { return kind == KernelKind::Gemm; });
    if (outProj < 0)
      outProj = attention >= 0 ? attention : n - 1;
    int ffn = -1;
    for (int i = outProj + 1; i < n; ++i)
      if (k[i].kind == KernelKind::GatedMlp ||
          k[i].kind == KernelKind::MoeFfn || k[i].kind == KernelKind::Gemm)
        ffn = i;
    if (ffn < 0)
      ffn = n - 1;
    int moe =
        first(0, [](KernelKind kind) { return kind == KernelKind::MoeFfn; });
    for (size_t i = 0; i < step.collectives.size(); ++i) {
      const StepCollective &c = step.collectives[i];
      auto add = [&](int after, int anchor, double ns, bool beside) {
        placed.push_back({c.what().str(), c.track(), ns, after, anchor,
                          !c.overlapped, beside});
        owner.push_back(static_cast<int>(i));
      };
      double ns = c.microBatchSeconds * 1e9;
      switch (c.role) {
      case CollectiveRole::TpAllReduce:
        add(outProj, outProj, ns, false);
        add(ffn, ffn, ns, false);
        break;
      case CollectiveRole::EpDispatch:
        if (moe > 0)
          add(moe - 1, moe, ns, false);
        break;
      case CollectiveRole::EpCombine:
        if (moe >= 0)
          add(moe, moe, ns, false);
        break;
      case CollectiveRole::CpRing:
        // All of the layer's hops, beside the attention's blocks.
        if (attention >= 0)
          add(attention - 1, attention, ns * double(step.split.cp - 1), true);
        break;
      case CollectiveRole::PpSend:
        break;
      }
    }
  }

  /// Schedules every layer function with its collectives (m micro-batches
  /// of the stage each run it) and sums what stays exposed; a stage's send
  /// runs beside the next micro-batch's compute.
  void scheduleStep(SplitStep &step, int64_t m) {
    bool tpu = side == 0;
    for (const LayerProfile &layer : step.layers.layers) {
      std::vector<LayerCollective> placed;
      std::vector<int> owner;
      if (layer.function != "@model")
        placeCollectives(step, layer, placed, owner);
      LayerSchedule schedule =
          scheduleLayer(layer.kernels, placed, step.inFlight, tpu);
      double runs = double(layer.runs * m);
      for (auto [i, c] : llvm::enumerate(placed)) {
        step.collectives[owner[i]].exposedSeconds +=
            schedule.exposedNs[i] * 1e-9 * runs;
        const LayerKernel &beside = layer.kernels[c.anchor];
        step.perKernel.push_back(
            {layer.function, stringifyKernelKind(beside.kind).str(), beside.ns,
             c.what, c.ns * step.inFlight, schedule.exposedNs[i],
             schedule.overlappedNs[i], layer.runs * m});
      }
      step.schedules.push_back(std::move(schedule));
    }
    double overlapped = 0, fraction = 0;
    for (StepCollective &c : step.collectives) {
      step.commSeconds += c.stepSeconds();
      if (c.role == CollectiveRole::PpSend)
        c.exposedSeconds = std::max(0.0, c.stepSeconds() - step.computeSeconds);
      step.exposedSeconds += c.exposedSeconds;
      double hidden = hiddenPart(c.stepSeconds(), c.exposedSeconds);
      if (c.overlapped && hidden > 0) {
        overlapped += hidden;
        fraction = std::max(fraction, c.coreFraction);
      }
    }
    // The compute that runs beside the collectives, on 1 - f of the cores.
    step.sharedCoresSeconds =
        std::min(overlapped, step.computeSeconds) * fraction / (1 - fraction);
  }

  /// The step of `base` (the split, its bill) with `inFlight` micro-batches
  /// per layer, the chip running `time` (one micro-batch's module; the
  /// layer, `layers`, for each of them) `inFlight` times per stage
  /// micro-batch.
  SplitStep runStep(const SplitStep &base, const ChipModel &chip,
                    const ModelShape &shape, const ModelTime &time,
                    ModelLayers layers, int inFlight) {
    SplitStep step = base;
    step.inFlight = inFlight;
    double compute = time.totalNs * 1e-9 * double(inFlight);
    double attention = time.attentionNs * 1e-9 * double(inFlight);
    // One stage's step: m micro-batches through pp stages. A prefill fills
    // and drains the pipeline, (m + pp - 1) micro-batch times; a decode
    // step keeps it full, max(m, pp).
    int64_t m = chip.microBatches, pp = step.split.pp;
    int64_t slots = pp == 1                                ? 1
                    : chip.options.phase == Phase::Prefill ? m + pp - 1
                                                           : std::max(m, pp);
    step.computeSeconds = compute * double(slots);
    step.bubbleSeconds = compute * double(slots - m);
    step.attentionSeconds = attention * double(slots);
    if (failed(addCollectives(step, chip, shape)))
      return step;
    step.layers = std::move(layers);
    // Context parallelism: the chip compiled T/cp tokens of each prompt,
    // whose causal attention is (T/cp)^2 / 2 of work; ring attention gives
    // it T^2 / (2 cp), cp times that, balanced over the chips by a zigzag
    // order ([A]: the attention's time scales with its work).
    if (step.split.cp > 1) {
      step.computeSeconds +=
          attention * double(step.split.cp - 1) * double(slots);
      step.attentionSeconds *= double(step.split.cp);
      for (LayerProfile &layer : step.layers.layers)
        for (LayerKernel &k : layer.kernels)
          if (isAttentionKind(k.kind))
            k.ns *= double(step.split.cp);
    }
    scheduleStep(step, m);
    step.tokensPerSecondPerChip = double(globalTokens) / step.stepSeconds() /
                                  double(system.getChipCount());
    return step;
  }

  /// The chip's module compiled and its layers read; `why` says what
  /// failed.
  FailureOr<std::pair<ModelTime, ModelLayers>> compileChip(ModuleOp module,
                                                           std::string &why) {
    FailureOr<ModelTime> time =
        compileModelTime(module, CompareSide(side), system.chip.path,
                         "npu-compare", module->getLoc());
    if (failed(time)) {
      why = "the per-chip model does not compile";
      return failure();
    }
    FailureOr<ModelLayers> layers = readModelLayers(module, "npu-compare");
    if (failed(layers)) {
      why = "the per-chip model has no @model";
      return failure();
    }
    return std::make_pair(*time, std::move(*layers));
  }

  SplitStep evaluate(const Split &split) {
    SplitStep step;
    step.split = split;
    ChipModel chip;
    ModelShape shape;
    OwningOpRef<ModuleOp> module = importChip(split, step, chip, shape);
    if (!module)
      return step;
    auto whole = compileChip(*module, step.infeasible);
    if (failed(whole))
      return step;
    SplitStep one = runStep(step, chip, shape, whole->first, whole->second, 1);
    // The micro-batch split in two (its sequences, or one prompt's tokens
    // in two chunks: [A] the second chunk's attention is priced without
    // the first chunk's keys), each half compiled: one's collectives run
    // beside the other's compute, but a weight-bound kernel takes about as
    // long for half the tokens. Each side runs the faster of the two.
    const ImportOptions &options = chip.options;
    bool sequences = options.batch >= 2;
    if (!sequences && !(options.phase == Phase::Prefill && options.seqLen >= 2))
      return one;
    ChipModel half = chip;
    if (sequences)
      half.options.batch = llvm::divideCeil(options.batch, 2);
    else
      half.options.seqLen = llvm::divideCeil(options.seqLen, 2);
    // A half that does not import or compile leaves the whole.
    OwningOpRef<ModuleOp> halfModule = importVerified(half);
    std::string why;
    if (!halfModule)
      return one;
    auto halves = compileChip(*halfModule, why);
    if (failed(halves))
      return one;
    SplitStep two =
        runStep(step, chip, shape, halves->first, halves->second, 2);
    if (!two.infeasible.empty() || !one.infeasible.empty())
      return one.infeasible.empty() ? one : two;
    return two.stepSeconds() < one.stepSeconds() ? two : one;
  }
};

} // namespace

StringRef StepCollective::what() const {
  switch (role) {
  case CollectiveRole::TpAllReduce:
    return "TP all-reduce";
  case CollectiveRole::EpDispatch:
    return "EP dispatch";
  case CollectiveRole::EpCombine:
    return "EP combine";
  case CollectiveRole::CpRing:
    return "CP ring";
  case CollectiveRole::PpSend:
    return "PP send";
  }
  llvm_unreachable("unknown collective role");
}

std::string StepCollective::track() const {
  StringRef group = what().split(' ').first;
  return llvm::formatv("{0} group, {1} chips ({2})", group, chips, axes).str();
}

SplitStep mlir::npu::evaluateSplit(MLIRContext *ctx, const ModelConfig &config,
                                   const ImportOptions &global,
                                   const target::System &system,
                                   const Split &split, bool checkHbm) {
  int side = system.chip.attr.getKind() == TargetKind::Tpu ? 0 : 1;
  int64_t perSequence =
      global.phase == Phase::Prefill ? global.seqLen : int64_t(1);
  Evaluator eval{
      ctx, config, global, system, side, global.batch * perSequence, checkHbm};
  return eval.evaluate(split);
}

FailureOr<MultiChipComparison>
mlir::npu::compareMultiChip(MLIRContext *ctx, StringRef configPath,
                            const ImportOptions &globalIn, int64_t batchPerChip,
                            StringRef tpuSystem, StringRef gpuSystem,
                            StringRef splitText, Location loc) {
  FailureOr<ModelConfig> config = readConfigFile(configPath, loc);
  if (failed(config) || failed(verifyImportOptions(*config, globalIn, loc)))
    return failure();
  std::optional<Split> fixed;
  if (splitText != "auto") {
    llvm::Expected<Split> s = parseSplit(splitText);
    if (!s)
      return emitError(loc) << llvm::toString(s.takeError());
    fixed = *s;
  }
  MultiChipComparison cmp;
  int64_t perSequence =
      globalIn.phase == Phase::Prefill ? globalIn.seqLen : int64_t(1);
  StringRef names[2] = {tpuSystem, gpuSystem};
  for (int s = 0; s < 2; ++s) {
    llvm::Expected<target::System> system = target::loadSystem(ctx, names[s]);
    if (!system)
      return emitError(loc) << llvm::toString(system.takeError());
    TargetKind want = s == 0 ? TargetKind::Tpu : TargetKind::Gpu;
    if (system->chip.attr.getKind() != want)
      return emitError(loc)
             << "npu-compare: --systems: the " << (s == 0 ? "first" : "second")
             << " system must be of " << (s == 0 ? "TPU" : "GPU")
             << "-like chips; '" << names[s] << "' is not";
    MultiChipSide &side = cmp.side[s];
    side.systemName = system->name;
    side.chips = system->getChipCount();
    side.chip = system->chip.attr.getName().str();
    ImportOptions global = globalIn;
    if (batchPerChip)
      global.batch = batchPerChip * side.chips;
    side.batch = global.batch;
    side.globalTokens = global.batch * perSequence;
    Evaluator eval{ctx, *config, global, *system, s, side.globalTokens};
    std::vector<Split> splits =
        fixed ? std::vector<Split>{*fixed}
              : enumerateSplits(*config, system->getChipCount(), global);
    // The candidates are independent: compiled on the context's threads.
    // Pipeline stages only where nothing fits without them. Stages in place
    // of replicas never speed an inference step (a prefill pays the bubble,
    // a decode reads each stage's weights once per micro-batch), so they
    // are memory relief; a heuristic all the same: stages could still beat
    // a different split with heavy tensor-parallel traffic, which this
    // skips. A fixed --split is always compiled.
    side.candidates.resize(splits.size());
    for (auto [i, step] : llvm::enumerate(side.candidates)) {
      step.split = splits[i];
      step.infeasible = "not compiled: a split without pipeline stages "
                        "fits (stages are searched as memory relief)";
    }
    auto evaluate = [&](bool stages) {
      parallelFor(ctx, 0, splits.size(), [&](size_t i) {
        if ((splits[i].pp > 1) == stages)
          side.candidates[i] = eval.evaluate(splits[i]);
      });
    };
    evaluate(/*stages=*/false);
    bool fits = llvm::any_of(side.candidates, [](const SplitStep &c) {
      return c.split.pp == 1 && c.infeasible.empty();
    });
    if (fixed || !fits)
      evaluate(/*stages=*/true);
    for (auto [i, step] : llvm::enumerate(side.candidates))
      if (step.infeasible.empty() &&
          (side.best < 0 ||
           step.stepSeconds() < side.candidates[side.best].stepSeconds()))
        side.best = static_cast<int>(i);
    if (side.best < 0) {
      InFlightDiagnostic diag = emitError(loc);
      diag << "no split of the model fits system '" << system->name << "'";
      for (const SplitStep &step : side.candidates)
        diag << "; " << step.split.str() << ": " << step.infeasible;
      return failure();
    }
  }
  return cmp;
}
