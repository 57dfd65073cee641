//===- CompiledTable.cpp - a cost table from the backends -----------------===//

#include "npu/Serve/CompiledTable.h"

#include "npu/Analysis/Bill.h"
#include "npu/Compare/MultiChip.h"
#include "npu/Target/Interconnect.h"
#include "npu/Target/Target.h"

#include "mlir/IR/Threading.h"
#include "mlir/IR/Verifier.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::serve;

std::vector<int64_t> mlir::npu::serve::stepGrid(int64_t to) {
  std::vector<int64_t> powers = powersOfTwo(1, to), out;
  for (size_t i = 0; i < powers.size(); ++i) {
    out.push_back(powers[i]);
    if (powers[i] >= 64 && i + 1 < powers.size())
      out.push_back(powers[i] / 2 * 3);
  }
  return out;
}

std::vector<int64_t> mlir::npu::serve::powersOfTwo(int64_t from, int64_t to) {
  std::vector<int64_t> out;
  for (int64_t v = std::max<int64_t>(from, 1);; v *= 2) {
    out.push_back(v);
    if (v >= to || v > (int64_t(1) << 40))
      break;
  }
  return out;
}

TableShapes mlir::npu::serve::continuousShapes(int64_t budget, int64_t maxSeqs,
                                               int64_t maxContext) {
  TableShapes shapes;
  shapes.prefillLengths = stepGrid(budget);
  shapes.decodeBatches = powersOfTwo(1, maxSeqs);
  shapes.decodeLengths = powersOfTwo(256, maxContext);
  return shapes;
}

TableShapes mlir::npu::serve::staticShapes(const StaticPolicy &policy,
                                           bool candidates) {
  TableShapes shapes;
  shapes.prefillLengths = policy.prefillBuckets;
  shapes.decodeLengths = policy.decodeBuckets;
  if (candidates) {
    shapes.prefillLengths.clear();
    shapes.decodeLengths.clear();
    for (auto [out, from, to] :
         {std::tuple{&shapes.prefillLengths, 64, policy.prefillBuckets.back()},
          std::tuple{&shapes.decodeLengths, 512, policy.decodeBuckets.back()}})
      for (int64_t v : stepGrid(to))
        if (v >= from)
          out->push_back(v);
  }
  if (policy.raggedAttention) {
    std::vector<int64_t> shorter;
    for (int64_t v : powersOfTwo(64, shapes.decodeLengths.front()))
      if (v < shapes.decodeLengths.front())
        shorter.push_back(v);
    shapes.decodeLengths.insert(shapes.decodeLengths.begin(), shorter.begin(),
                                shorter.end());
  }
  return shapes;
}

int64_t mlir::npu::serve::autoSlots(const CostTable &table, int64_t longest,
                                    double utilization) {
  double room = table.kvCapacityBytes(utilization);
  int64_t n = 256;
  while (n > 1 && double(n) * double(longest) * table.kvBytesPerToken > room)
    n /= 2;
  return n;
}

namespace {

/// One shape, imported; null after a diagnostic.
OwningOpRef<ModuleOp> importShape(MLIRContext *ctx, const ModelConfig &config,
                                  ImportOptions options, Location loc) {
  if (failed(verifyImportOptions(config, options, loc)))
    return {};
  OwningOpRef<ModuleOp> module = importModel(config, options, ctx);
  if (!module)
    return {};
  if (Type big = findOversizedType(*module)) {
    emitError(loc) << "the shape makes tensor " << big << " too large";
    return {};
  }
  if (failed(mlir::verify(*module)))
    return {};
  return module;
}

/// `module` compiled: @model's time and the attention kernels' share.
FailureOr<ShapePoint> priceShape(ModuleOp module, CompareSide side,
                                 StringRef target, Location loc) {
  FailureOr<ModelTime> time =
      compileModelTime(module, side, target, "npu-serve", loc);
  if (failed(time))
    return failure();
  ShapePoint point;
  point.totalNs = time->totalNs;
  point.attentionNs = time->attentionNs;
  return point;
}

/// Each shape imported in order (diagnostics in order) and compiled in
/// parallel: its @model time and attention share, with its batch and length.
FailureOr<std::vector<ShapePoint>>
compileShapes(MLIRContext *ctx, const ModelConfig &config,
              ArrayRef<ImportOptions> jobs, CompareSide side, StringRef target,
              Location loc) {
  std::vector<OwningOpRef<ModuleOp>> modules;
  for (const ImportOptions &o : jobs) {
    modules.push_back(importShape(ctx, config, o, loc));
    if (!modules.back())
      return failure();
  }
  std::vector<FailureOr<ShapePoint>> points(jobs.size(), failure());
  parallelFor(ctx, 0, jobs.size(), [&](size_t i) {
    points[i] = priceShape(*modules[i], side, target, loc);
  });
  std::vector<ShapePoint> out;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (failed(points[i]))
      return failure();
    out.push_back(*points[i]);
    out.back().batch = jobs[i].batch;
    out.back().length =
        jobs[i].phase == Phase::Prefill ? jobs[i].seqLen : jobs[i].contextLen;
  }
  return out;
}

/// The import options of one shape.
ImportOptions shapeOptions(const ImportOptions &base, bool prefill,
                           int64_t batch, int64_t length) {
  ImportOptions o = base;
  o.phase = prefill ? Phase::Prefill : Phase::Decode;
  o.batch = batch;
  (prefill ? o.seqLen : o.contextLen) = length;
  return o;
}

/// A table's programs: each prefill length (batch 1), then the decode grid
/// batch-major.
std::vector<ImportOptions> tableJobs(const ImportOptions &base,
                                     const TableShapes &shapes) {
  std::vector<ImportOptions> jobs;
  for (int64_t len : shapes.prefillLengths)
    jobs.push_back(shapeOptions(base, true, 1, len));
  for (int64_t b : shapes.decodeBatches)
    for (int64_t len : shapes.decodeLengths)
      jobs.push_back(shapeOptions(base, false, b, len));
  return jobs;
}

/// Adds each priced job to the table's prefill or decode points.
void addPoints(ArrayRef<ImportOptions> jobs, ArrayRef<ShapePoint> points,
               CostTable &table) {
  for (size_t i = 0; i < jobs.size(); ++i)
    (jobs[i].phase == Phase::Prefill ? table.prefill : table.decode)
        .push_back(points[i]);
}

/// Each job as `system` runs it under `split` (evaluateSplit, in parallel):
/// the system's step and the chip's memory. The engine's KV pool bounds
/// the cache, not each job's bill. Fails, naming the shape, on a job that
/// does not import or does not fit the split.
FailureOr<std::vector<SplitStep>>
evaluateShapes(MLIRContext *ctx, const ModelConfig &config,
               ArrayRef<ImportOptions> jobs, const target::System &system,
               const parallel::Split &split, Location loc) {
  for (const ImportOptions &o : jobs)
    if (failed(verifyImportOptions(config, o, loc)))
      return failure();
  std::vector<SplitStep> steps(jobs.size());
  parallelFor(ctx, 0, jobs.size(), [&](size_t i) {
    steps[i] = evaluateSplit(ctx, config, jobs[i], system, split,
                             /*checkHbm=*/false);
  });
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (steps[i].infeasible.empty())
      continue;
    bool prefill = jobs[i].phase == Phase::Prefill;
    return emitError(loc) << system.name << " under " << split.str() << ": the "
                          << (prefill ? "prefill" : "decode") << " of "
                          << jobs[i].batch << " x "
                          << (prefill ? jobs[i].seqLen : jobs[i].contextLen)
                          << " tokens: " << steps[i].infeasible;
  }
  return steps;
}

/// The sustained bandwidth to one other chip (CostTable::linkBytesPerS).
double linkBandwidth(const std::optional<target::Interconnect> &ic) {
  if (!ic)
    return 0;
  const target::LinkLevel &up = ic->scaleUp;
  return up.topology == target::LinkTopology::Torus
             ? up.sustainedLinkBytesPerSPerDirection
             : up.chipBytesPerSPerDirection();
}

} // namespace

FailureOr<CostTable>
mlir::npu::serve::describeMemory(MLIRContext *ctx, const ModelConfig &config,
                                 StringRef model, const ImportOptions &base,
                                 CompareSide side, StringRef target,
                                 int64_t largestPrefill, Location loc) {
  FailureOr<TargetAttr> chip = loadCompareTarget(
      ctx, target, side == CompareSide::Tpu ? TargetKind::Tpu : TargetKind::Gpu,
      side == CompareSide::Tpu ? "--tpu" : "--gpu", loc);
  if (failed(chip))
    return failure();
  OwningOpRef<ModuleOp> module = importShape(
      ctx, config, shapeOptions(base, true, 1, largestPrefill), loc);
  if (!module)
    return failure();
  FailureOr<ModelBill> bill = computeBill(*module, *chip);
  if (failed(bill))
    return failure();
  CostTable table;
  table.model = model.str();
  table.target = chip->getName().str();
  table.kind = side == CompareSide::Tpu ? "tpu" : "gpu";
  table.hbmBytes = double(chip->getHbmBytes());
  table.weightBytes = double(bill->parameterBytes.value());
  table.kvBytesPerToken = double(bill->kvCacheBytesPerToken.value());
  table.activationBytes = double(bill->peakLiveActivationBytes.value());
  llvm::Expected<target::TargetFile> file = target::loadTarget(ctx, target);
  if (!file)
    return emitError(loc) << llvm::toString(file.takeError());
  // To one other chip: through a switch at all of the chip's links, on a
  // torus over the one link to a neighbour.
  table.linkBytesPerS = linkBandwidth(file->interconnect);
  return table;
}

LogicalResult
mlir::npu::serve::compilePoints(MLIRContext *ctx, const ModelConfig &config,
                                const ImportOptions &base, CompareSide side,
                                StringRef target, const TableShapes &shapes,
                                CostTable &table, Location loc) {
  std::vector<ImportOptions> jobs = tableJobs(base, shapes);
  FailureOr<std::vector<ShapePoint>> points =
      compileShapes(ctx, config, jobs, side, target, loc);
  if (failed(points))
    return failure();
  addPoints(jobs, *points, table);
  if (llvm::Error e = table.verify())
    return emitError(loc) << llvm::toString(std::move(e));
  return success();
}

FailureOr<std::vector<InterpolationCheck>> mlir::npu::serve::checkInterpolation(
    MLIRContext *ctx, const ModelConfig &config, const ImportOptions &base,
    CompareSide side, StringRef target, const CostTable &table, bool continuous,
    Location loc) {
  std::vector<InterpolationCheck> checks;
  for (size_t i = 1; i < table.prefill.size(); ++i) {
    int64_t a = table.prefill[i - 1].length, b = table.prefill[i].length;
    if (b - a >= 2)
      checks.push_back({true, 1, (a + b) / 2, 0, 0});
  }
  std::vector<int64_t> batches, lengths;
  for (const ShapePoint &p : table.decode) {
    if (batches.empty() || batches.back() != p.batch)
      batches.push_back(p.batch);
    if (p.batch == table.decode.front().batch)
      lengths.push_back(p.length);
  }
  // Each cell's midpoint; a single batch (a static table): its lengths'.
  for (size_t i = batches.size() > 1 ? 1 : 0; i < batches.size(); ++i)
    for (size_t j = 1; j < lengths.size(); ++j) {
      int64_t b = i ? (batches[i - 1] + batches[i]) / 2 : batches[0];
      checks.push_back({false, b, (lengths[j - 1] + lengths[j]) / 2, 0, 0});
    }
  std::vector<ImportOptions> jobs;
  for (const InterpolationCheck &c : checks)
    jobs.push_back(shapeOptions(base, c.prefill, c.batch, c.length));
  FailureOr<std::vector<ShapePoint>> points =
      compileShapes(ctx, config, jobs, side, target, loc);
  if (failed(points))
    return failure();
  for (size_t i = 0; i < checks.size(); ++i) {
    InterpolationCheck &c = checks[i];
    c.compiledNs = (*points)[i].totalNs;
    if (c.prefill) {
      c.predictedNs =
          table.denseNs(c.length) + table.chunkAttentionNs(c.length, 0);
    } else if (continuous) {
      c.predictedNs = table.decodeDenseNs(c.batch) +
                      table.decodeAttentionNs(c.batch, c.batch * c.length);
    } else {
      const ShapePoint *program =
          table.findDecode(c.batch, *llvm::lower_bound(lengths, c.length));
      c.predictedNs = program->totalNs - program->attentionNs +
                      table.decodeAttentionNs(c.batch, c.batch * c.length);
    }
  }
  return checks;
}

FailureOr<CostTable> mlir::npu::serve::compileSystemTable(
    MLIRContext *ctx, const ModelConfig &config, StringRef model,
    const ImportOptions &base, const target::System &system,
    const parallel::Split &split, const TableShapes &shapes, Location loc) {
  if (split.dp != 1 || split.ep != 1)
    return emitError(loc) << "a system serves as one instance "
                             "under a tensor or pipeline split (dp=1, ep=1); "
                             "got "
                          << split.str();
  std::vector<ImportOptions> jobs = tableJobs(base, shapes);
  FailureOr<std::vector<SplitStep>> steps =
      evaluateShapes(ctx, config, jobs, system, split, loc);
  if (failed(steps))
    return failure();
  CostTable table;
  table.model = model.str();
  table.target = system.name;
  table.kind = system.chip.attr.getKind() == TargetKind::Tpu ? "tpu" : "gpu";
  table.chips = system.getChipCount();
  double chips = double(table.chips);
  std::vector<ShapePoint> points;
  for (size_t i = 0; i < jobs.size(); ++i)
    points.push_back(
        {jobs[i].batch,
         jobs[i].phase == Phase::Prefill ? jobs[i].seqLen : jobs[i].contextLen,
         (*steps)[i].stepSeconds() * 1e9, (*steps)[i].attentionSeconds * 1e9});
  addPoints(jobs, points, table);
  // The memory of the largest prefill's chip, times the chips; its KV
  // cache holds that prompt.
  const SplitStep &largest = (*steps)[shapes.prefillLengths.size() - 1];
  table.hbmBytes = chips * double(system.chip.attr.getHbmBytes());
  table.weightBytes = chips * double(largest.parameterBytes);
  table.activationBytes = chips * double(largest.activationBytes);
  table.kvBytesPerToken = chips * double(largest.kvCacheBytes) /
                          double(shapes.prefillLengths.back());
  table.linkBytesPerS = linkBandwidth(system.chip.interconnect);
  if (llvm::Error e = table.verify())
    return emitError(loc) << llvm::toString(std::move(e));
  return table;
}

LogicalResult mlir::npu::serve::compileDraftPoints(
    MLIRContext *ctx, const ModelConfig &config, const ImportOptions &base,
    CompareSide side, StringRef target, const target::System *system,
    const parallel::Split *split, int64_t maxSequences, CostTable &table,
    Location loc) {
  if (config.numMTPLayers < 1)
    return emitError(loc) << "speculative decoding needs a drafter to "
                             "price: the config has no MTP module "
                             "(num_nextn_predict_layers)";
  ImportOptions mtp = base;
  mtp.includeMTP = true;
  std::vector<ImportOptions> jobs;
  std::vector<const ShapePoint *> without;
  for (const ShapePoint &p : table.prefill)
    if (p.length <= std::max<int64_t>(maxSequences, 1)) {
      jobs.push_back(shapeOptions(mtp, true, 1, p.length));
      without.push_back(&p);
    }
  std::vector<double> with(jobs.size());
  if (system) {
    FailureOr<std::vector<SplitStep>> steps =
        evaluateShapes(ctx, config, jobs, *system, *split, loc);
    if (failed(steps))
      return failure();
    for (size_t i = 0; i < jobs.size(); ++i)
      with[i] = (*steps)[i].stepSeconds() * 1e9;
  } else {
    FailureOr<std::vector<ShapePoint>> points =
        compileShapes(ctx, config, jobs, side, target, loc);
    if (failed(points))
      return failure();
    for (size_t i = 0; i < jobs.size(); ++i)
      with[i] = (*points)[i].totalNs;
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    double cost = with[i] - without[i]->totalNs;
    if (!(cost > 0))
      return emitError(loc) << "the MTP module adds no time to the prefill "
                               "of "
                            << jobs[i].seqLen << " tokens";
    table.draft.push_back({1, jobs[i].seqLen, cost, 0});
  }
  if (llvm::Error e = table.verify())
    return emitError(loc) << llvm::toString(std::move(e));
  return success();
}
