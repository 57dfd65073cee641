//===- CompiledTable.cpp - a cost table from the backends -----------------===//

#include "npu/Serve/CompiledTable.h"

#include "npu/Analysis/Bill.h"
#include "npu/Analysis/CallOrder.h"
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

namespace {

double timeNs(CostAttr cost) { return cost.getTimeNs().convertToDouble(); }

/// One shape, imported; null after a diagnostic.
OwningOpRef<ModuleOp> importShape(MLIRContext *ctx, const ModelConfig &config,
                                  ImportOptions options, Location loc) {
  if (failed(verifyImportOptions(config, options, loc)))
    return {};
  OwningOpRef<ModuleOp> module = importModel(config, options, ctx);
  if (!module)
    return {};
  if (Type big = findOversizedType(*module)) {
    emitError(loc) << "npu-serve: the shape makes tensor " << big
                   << " too large";
    return {};
  }
  if (failed(mlir::verify(*module)))
    return {};
  return module;
}

/// `module` compiled: @model's time and the attention kernels' share.
FailureOr<ShapePoint> priceShape(ModuleOp module, CompareSide side,
                                 StringRef target, Location loc) {
  if (failed(runBackendPipeline(module, side, target)))
    return failure();
  auto model = module.lookupSymbol<func::FuncOp>("model");
  auto total = model ? model->getAttrOfType<CostAttr>("npu.cost") : CostAttr();
  if (!total)
    return emitError(loc, "npu-serve: the compiled model has no @model with "
                          "a modelled cost");
  FailureOr<CallOrder> order = getCallOrder(module, "npu-serve", model);
  if (failed(order))
    return failure();
  ShapePoint point;
  point.totalNs = timeNs(total);
  for (func::FuncOp f : order->calleesFirst) {
    double runs = double(order->getExecutions(f).value());
    for (auto kernel : f.getBody().getOps<KernelOp>()) {
      auto cost = kernel->getAttrOfType<CostAttr>("npu.cost");
      if (cost && (kernel.getKind() == KernelKind::Attention ||
                   kernel.getKind() == KernelKind::MlaAbsorbed))
        point.attentionNs += runs * timeNs(cost);
    }
  }
  // The makespan may hide a little of a kernel under another; the
  // attention share stays within the total.
  point.attentionNs = std::min(point.attentionNs, point.totalNs);
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
  if (file->interconnect) {
    const target::LinkLevel &up = file->interconnect->scaleUp;
    table.linkBytesPerS = up.topology == target::LinkTopology::Torus
                              ? up.sustainedLinkBytesPerSPerDirection
                              : up.chipBytesPerSPerDirection();
  }
  return table;
}

LogicalResult
mlir::npu::serve::compilePoints(MLIRContext *ctx, const ModelConfig &config,
                                const ImportOptions &base, CompareSide side,
                                StringRef target, const TableShapes &shapes,
                                CostTable &table, Location loc) {
  std::vector<ImportOptions> jobs;
  for (int64_t len : shapes.prefillLengths)
    jobs.push_back(shapeOptions(base, true, 1, len));
  for (int64_t b : shapes.decodeBatches)
    for (int64_t len : shapes.decodeLengths)
      jobs.push_back(shapeOptions(base, false, b, len));
  FailureOr<std::vector<ShapePoint>> points =
      compileShapes(ctx, config, jobs, side, target, loc);
  if (failed(points))
    return failure();
  for (size_t i = 0; i < jobs.size(); ++i)
    (jobs[i].phase == Phase::Prefill ? table.prefill : table.decode)
        .push_back((*points)[i]);
  if (llvm::Error e = table.verify())
    return emitError(loc) << "npu-serve: " << llvm::toString(std::move(e));
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
