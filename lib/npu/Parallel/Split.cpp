//===- Split.cpp - one model cut over a system of chips -------------------===//

#include "npu/Parallel/Split.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::parallel;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string Split::str() const {
  return "dp=" + std::to_string(dp) + ",tp=" + std::to_string(tp) +
         ",ep=" + std::to_string(ep) + ",pp=" + std::to_string(pp) +
         (cp > 1 ? ",cp=" + std::to_string(cp) : "");
}

llvm::Expected<Split> parallel::parseSplit(StringRef text) {
  Split split;
  llvm::StringSet<> seen;
  for (StringRef part : llvm::split(text, ',')) {
    auto [key, value] = part.trim().split('=');
    int64_t n = 0;
    if (value.getAsInteger(10, n) || n < 1 || n > (int64_t(1) << 20))
      return fail("split '" + text + "': '" + part +
                  "' is not <key>=<positive integer below 2^20>");
    if (!seen.insert(key).second)
      return fail("split '" + text + "': '" + key + "' is given twice");
    if (key == "dp")
      split.dp = n;
    else if (key == "tp")
      split.tp = n;
    else if (key == "ep")
      split.ep = n;
    else if (key == "pp")
      split.pp = n;
    else if (key == "cp")
      split.cp = n;
    else
      return fail("split '" + text + "': unknown key '" + key +
                  "' (dp, tp, ep, pp, cp)");
  }
  return split;
}

/// The last of `split.pp` stages: ceil(L/pp) layers, the dense ones only
/// where the stage reaches back to them, the micro-batches of the replica.
static llvm::Error pipelineStage(const ModelConfig &config, const Split &split,
                                 ChipModel &chip) {
  if (split.pp == 1)
    return llvm::Error::success();
  if (split.pp > config.numLayers)
    return fail("split " + split.str() +
                ": more pipeline stages than layers (" +
                llvm::Twine(config.numLayers) + ")");
  // The chip models the last ceil(L/pp) layers (the costliest stage).
  chip.config.keepLastLayers(llvm::divideCeil(config.numLayers, split.pp));
  chip.config.numMTPLayers = 0;
  chip.options.includeMTP = false;
  // It takes the residual stream from the stage before: no embedding.
  chip.options.fromHidden = true;
  // Micro-batches: one sequence each in a prefill; in a decode as many as
  // the stages (each stage busy with one), dividing the replica's batch.
  int64_t batch = chip.options.batch;
  int64_t m =
      chip.options.phase == Phase::Prefill ? batch : std::min(batch, split.pp);
  while (batch % m != 0)
    --m;
  chip.microBatches = m;
  chip.options.batch = batch / m;
  return llvm::Error::success();
}

llvm::Expected<ChipModel> parallel::shardModel(const ModelConfig &config,
                                               const ImportOptions &global,
                                               const Split &split,
                                               int64_t chips) {
  ChipModel chip;
  ModelConfig &perChip = chip.config;
  ImportOptions &perChipOptions = chip.options;
  std::string name = split.str();
  auto divides = [&](int64_t n, int64_t d, StringRef what) -> llvm::Error {
    if (n % d == 0)
      return llvm::Error::success();
    return fail("split " + name + ": " + llvm::Twine(d) + " does not divide " +
                what + " (" + llvm::Twine(n) + ")");
  };
  if (split.chips() != chips)
    return fail("split " + name +
                ": dp x tp x cp x pp = " + llvm::Twine(split.chips()) +
                " chips, the system has " + llvm::Twine(chips));
  perChip = config;
  perChipOptions = global;
  if (llvm::Error e = divides(global.batch, split.dp, "the batch"))
    return std::move(e);
  perChipOptions.batch = global.batch / split.dp;
  // Context parallelism: each chip holds T/cp of every sequence (its K/V
  // too); the attention's K/V come round the ring (priced by the caller).
  if (split.cp > 1) {
    if (global.phase != Phase::Prefill)
      return fail("split " + name +
                  ": cp > 1 cuts a prefill's prompts (a decode step has one "
                  "token per sequence)");
    if (llvm::Error e = divides(global.seqLen, split.cp, "the prompt length"))
      return std::move(e);
    perChipOptions.seqLen = global.seqLen / split.cp;
  }
  if (llvm::Error e = pipelineStage(config, split, chip))
    return std::move(e);

  // Tensor parallelism: heads, FFN columns and the vocabulary are cut; KV
  // heads too, or replicated where there are fewer than tp (as vLLM does).
  if (llvm::Error e = divides(config.numHeads, split.tp, "the heads"))
    return std::move(e);
  perChip.numHeads = config.numHeads / split.tp;
  if (config.numKVHeads % split.tp == 0)
    perChip.numKVHeads = config.numKVHeads / split.tp;
  else if (split.tp % config.numKVHeads == 0)
    perChip.numKVHeads = 1;
  else
    return fail("split " + name +
                ": tp neither divides nor is a multiple of "
                "the KV heads (" +
                llvm::Twine(config.numKVHeads) + ")");
  if (llvm::Error e =
          divides(config.intermediateSize, split.tp, "the FFN width"))
    return std::move(e);
  perChip.intermediateSize = config.intermediateSize / split.tp;
  perChip.vocabSize = llvm::divideCeil(config.vocabSize, split.tp);

  // Expert parallelism (attention data-parallel under it): the importer
  // builds one chip of the group (ImportOptions::expertParallel); experts
  // that do not divide evenly are rounded up per chip, as redundant experts
  // fill the last slots in DeepSeek-V3's deployment.
  if (split.ep > 1) {
    int64_t stage = split.dp * split.tp * split.cp;
    if (split.ep > stage)
      return fail("split " + name +
                  ": ep must divide dp x tp x cp, the chips of "
                  "a pipeline stage");
    if (!config.numRoutedExperts)
      return fail("split " + name + ": ep > 1 needs routed experts");
    if (split.tp != 1)
      return fail("split " + name +
                  ": ep > 1 is modelled with "
                  "data-parallel attention (tp=1), as DeepSeek-V3 is served");
    if (llvm::Error e = divides(stage, split.ep,
                                "the chips of a pipeline stage (dp x tp x cp)"))
      return std::move(e);
    if (split.ep > config.numRoutedExperts)
      return fail("split " + name +
                  ": more expert-parallel chips than "
                  "routed experts (" +
                  llvm::Twine(config.numRoutedExperts) + ")");
    perChipOptions.expertParallel = split.ep;
  } else if (config.numRoutedExperts) {
    if (llvm::Error e = divides(config.moeIntermediateSize, split.tp,
                                "the expert FFN width"))
      return std::move(e);
    perChip.moeIntermediateSize = config.moeIntermediateSize / split.tp;
  }
  return chip;
}

llvm::Expected<target::System>
parallel::innerGroup(const target::System &system, int64_t chips,
                     bool outermost) {
  target::System group = system;
  group.axes.clear();
  int64_t left = chips;
  std::vector<target::SystemAxis> axes = system.axes;
  if (outermost)
    std::reverse(axes.begin(), axes.end());
  for (const target::SystemAxis &axis : axes) {
    if (left == 1)
      break;
    target::SystemAxis part = axis;
    if (left % axis.size == 0) {
      left /= axis.size;
    } else if (axis.size % left == 0) {
      part.size = left;
      part.wraparound = false; // a part of a ring is a line
      left = 1;
    } else {
      return fail("a group of " + llvm::Twine(chips) +
                  " chips does not tile the axes of system '" + system.name +
                  "' (" + system.getShapeString() + ")");
    }
    group.axes.push_back(part);
  }
  if (left != 1)
    return fail("a group of " + llvm::Twine(chips) +
                " chips is larger than system '" + system.name + "'");
  if (outermost)
    std::reverse(group.axes.begin(), group.axes.end());
  group.name = system.name + "[" + std::to_string(chips) + "]";
  return group;
}
