//===- Compare.cpp - compile for both targets and match the kernels -------===//

#include "npu/Compare/Compare.h"
#include "npu/Analysis/CallOrder.h"
#include "npu/Analysis/CostReport.h"
#include "npu/Analysis/CostSum.h"
#include "npu/Analysis/GpuCostModel.h"
#include "npu/Analysis/KernelCost.h"
#include "npu/Pipelines/Pipelines.h"
#include "npu/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::npu;

static constexpr StringLiteral kIdAttr = "npu_compare.id";
/// Hand-written tile decisions for one side only (a tile's working set is
/// target-specific, so one `npu.tiling` cannot serve both pipelines).
static constexpr StringLiteral kSideTiling[2] = {"npu_compare.tpu_tiling",
                                                 "npu_compare.gpu_tiling"};

static double ns(llvm::APFloat v) { return v.convertToDouble(); }

//===----------------------------------------------------------------------===//
// Rows
//===----------------------------------------------------------------------===//

std::string CompareGroup::label() const {
  return llvm::join(
      llvm::map_range(items,
                      [](const CompareItem &i) { return StringRef(i.label); }),
      " + ");
}

std::string CompareGroup::tiles() const {
  return llvm::join(
      llvm::map_range(items,
                      [](const CompareItem &i) { return StringRef(i.tile); }),
      " + ");
}

int64_t CompareGroup::paddingFlops() const {
  int64_t pad = 0;
  for (const CompareItem &i : items)
    if (!i.isCall)
      pad += i.cost.getPaddedFlops() - i.matrixFlops;
  return pad;
}

double CompareRow::deltaNs() const {
  auto time = [](const CompareGroup &g) {
    return g.cost ? ns(g.cost.getTimeNs()) : 0.0;
  };
  return time(side[0]) - time(side[1]);
}

bool CompareRow::isCall() const {
  for (const CompareGroup &g : side)
    for (const CompareItem &i : g.items)
      if (i.isCall)
        return true;
  return false;
}

std::vector<std::string> CompareRow::differences() const {
  std::vector<std::string> d;
  if (!isMatched()) {
    d.push_back(side[0].empty() ? "gpu only" : "tpu only");
    return d;
  }
  if (isCall())
    return d;
  if (side[0].label() != side[1].label())
    d.push_back("fusion");
  if (side[0].tiles() != side[1].tiles())
    d.push_back("tile");
  if (side[0].paddingFlops() != side[1].paddingFlops())
    d.push_back("padding");
  return d;
}

std::vector<const CompareRow *> Comparison::rankedKernelRows() const {
  std::vector<const CompareRow *> rows;
  for (const CompareFunction &f : functions)
    for (const CompareRow &r : f.rows)
      if (!r.isCall())
        rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const CompareRow *a, const CompareRow *b) {
                     return std::fabs(a->weightedDeltaNs()) >
                            std::fabs(b->weightedDeltaNs());
                   });
  return rows;
}

const CompareFunction *Comparison::getEntry() const {
  for (const CompareFunction &f : functions)
    if (f.name == entry)
      return &f;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Targets
//===----------------------------------------------------------------------===//

FailureOr<TargetAttr>
mlir::npu::loadCompareTarget(MLIRContext *ctx, StringRef name, TargetKind kind,
                             StringRef flag, Location loc) {
  llvm::Expected<target::TargetFile> file = target::loadTarget(ctx, name);
  if (!file) {
    emitError(loc) << flag << "=" << name << ": unknown or invalid target ("
                   << llvm::toString(file.takeError())
                   << "); npu-target-info --list names the targets";
    return failure();
  }
  TargetKind actual = file->attr.getKind();
  if (actual != kind) {
    emitError(loc) << flag << "=" << name << ": '" << file->attr.getName()
                   << "' is a " << stringifyTargetKind(actual)
                   << "-like target, but " << flag << " needs a "
                   << stringifyTargetKind(kind) << "-like one";
    return failure();
  }
  return file->attr;
}

//===----------------------------------------------------------------------===//
// Compiling and matching
//===----------------------------------------------------------------------===//

namespace {
/// Gives every top-level op of every function body an id.
void tagOps(ModuleOp module) {
  Builder b(module.getContext());
  int64_t next = 0;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    for (Operation &op : func.getBody().front().without_terminator())
      op.setAttr(kIdAttr, b.getI64IntegerAttr(next++));
  }
}

/// Turns the side's hand-written tile decisions into `npu.tiling` and drops
/// the other side's.
void applySideTilings(ModuleOp module, int side) {
  module.walk([&](KernelOp kernel) {
    if (auto tiling = kernel->getAttrOfType<TilingAttr>(kSideTiling[side]))
      kernel->setAttr("npu.tiling", tiling);
    kernel->removeAttr(kSideTiling[0]);
    kernel->removeAttr(kSideTiling[1]);
  });
}

/// The ids of the graph ops an item (kernel or call) holds.
SmallVector<int64_t> itemIds(Operation *item) {
  SmallVector<int64_t> ids;
  item->walk([&](Operation *op) {
    if (auto id = op->getAttrOfType<IntegerAttr>(kIdAttr))
      ids.push_back(id.getInt());
  });
  return ids;
}

struct SideItems {
  std::vector<CompareItem> items;
  std::vector<SmallVector<int64_t>> ids;
};

SideItems collectItems(func::FuncOp func, bool isGpu) {
  SideItems s;
  for (Operation &op : func.getBody().front()) {
    if (!isa<KernelOp, func::CallOp>(op))
      continue;
    CostAttr cost = getItemCost(&op);
    if (!cost)
      continue;
    CompareItem item;
    item.cost = cost;
    if (auto kernel = dyn_cast<KernelOp>(op)) {
      item.label = getKernelLabel(kernel);
      item.tile = getTileString(&op);
      Work w = kernel.computeWork();
      if (std::optional<int64_t> f = w.matrixFlops.toInt64())
        item.matrixFlops = *f;
      if (isGpu)
        if (FailureOr<KernelModel> model = describeKernel(kernel);
            succeeded(model))
          item.launches = getGpuKernelLaunches(*model);
    } else {
      item.label = ("call @" + cast<func::CallOp>(op).getCallee()).str();
      item.tile = "-";
      item.isCall = true;
    }
    if (auto slot = op.getAttrOfType<SlotAttr>("npu.slot")) {
      item.startNs = ns(slot.getStartNs());
      item.endNs = ns(slot.getEndNs());
    }
    s.items.push_back(std::move(item));
    s.ids.push_back(itemIds(&op));
  }
  return s;
}

CostAttr sumItems(MLIRContext *ctx, const std::vector<CompareItem> &items) {
  if (items.size() == 1)
    return items.front().cost;
  CostSum sum;
  for (const CompareItem &i : items)
    sum.add(i.cost);
  std::optional<CostAttr> c = sum.get(ctx, sum.getTimeNs());
  return c ? *c : CostAttr();
}

/// Rows of one function: items of the two sides that share a graph op are
/// one row (union-find over items; TPU items are 0..n-1, GPU n..n+m-1).
std::vector<CompareRow> matchRows(MLIRContext *ctx, StringRef function,
                                  const SideItems &tpu, const SideItems &gpu) {
  size_t n = tpu.items.size(), m = gpu.items.size();
  llvm::EquivalenceClasses<size_t> classes;
  for (size_t i = 0; i < n + m; ++i)
    classes.insert(i);
  std::map<int64_t, size_t> tpuOwner;
  for (size_t i = 0; i < n; ++i)
    for (int64_t id : tpu.ids[i])
      tpuOwner.emplace(id, i);
  for (size_t j = 0; j < m; ++j)
    for (int64_t id : gpu.ids[j]) {
      auto it = tpuOwner.find(id);
      if (it != tpuOwner.end())
        classes.unionSets(it->second, n + j);
    }
  // Rows in order of their first TPU item, GPU-only rows where their first
  // item falls.
  std::map<size_t, size_t> rowOf; // leader -> row index
  std::vector<CompareRow> rows;
  auto rowFor = [&](size_t index) -> CompareRow & {
    size_t leader = classes.getLeaderValue(index);
    auto [it, inserted] = rowOf.try_emplace(leader, rows.size());
    if (inserted) {
      rows.emplace_back();
      rows.back().function = function.str();
    }
    return rows[it->second];
  };
  for (size_t i = 0; i < n; ++i)
    rowFor(i).side[0].items.push_back(tpu.items[i]);
  for (size_t j = 0; j < m; ++j)
    rowFor(n + j).side[1].items.push_back(gpu.items[j]);
  for (CompareRow &r : rows)
    for (CompareGroup &g : r.side)
      if (!g.empty())
        g.cost = sumItems(ctx, g.items);
  return rows;
}

} // namespace

LogicalResult mlir::npu::runBackendPipeline(ModuleOp module, CompareSide side,
                                            StringRef target, StringRef fusion,
                                            StringRef gpuLaunch) {
  PassManager pm(module.getContext());
  BackendPipelineOptions options;
  options.target = target.str();
  options.fusion = fusion.str();
  options.gpuLaunch = gpuLaunch.str();
  if (side == CompareSide::Tpu)
    buildTpuPipeline(pm, options);
  else
    buildGpuPipeline(pm, options);
  return pm.run(module);
}

FailureOr<ModelTime> mlir::npu::compileModelTime(ModuleOp module,
                                                 CompareSide side,
                                                 StringRef target,
                                                 StringRef tool, Location loc) {
  if (failed(runBackendPipeline(module, side, target)))
    return failure();
  auto model = module.lookupSymbol<func::FuncOp>("model");
  auto total = model ? model->getAttrOfType<CostAttr>("npu.cost") : CostAttr();
  if (!total)
    return emitError(loc) << tool
                          << ": the compiled model has no @model with a "
                             "modelled cost";
  FailureOr<CallOrder> order = getCallOrder(module, tool, model);
  if (failed(order))
    return failure();
  ModelTime time;
  time.totalNs = total.getTimeNs().convertToDouble();
  time.flops = double(total.getFlops());
  time.paddedFlops = double(total.getPaddedFlops());
  time.hbmBytes =
      double(total.getHbmReadBytes()) + double(total.getHbmWriteBytes());
  for (func::FuncOp f : order->calleesFirst) {
    double runs = double(order->getExecutions(f).value());
    for (auto kernel : f.getBody().getOps<KernelOp>()) {
      auto cost = kernel->getAttrOfType<CostAttr>("npu.cost");
      if (!cost)
        continue;
      double ns = runs * cost.getTimeNs().convertToDouble();
      KernelKind kind = kernel.getKind();
      if (isAttentionKind(kind))
        time.attentionNs += ns;
      else if (kind == KernelKind::MoeFfn)
        time.moeNs += ns;
    }
  }
  time.attentionNs = std::min(time.attentionNs, time.totalNs);
  time.moeNs = std::min(time.moeNs, time.totalNs);
  return time;
}

FailureOr<Comparison> mlir::npu::compareModule(ModuleOp module,
                                               StringRef tpuTarget,
                                               StringRef gpuTarget,
                                               StringRef fusion,
                                               StringRef gpuLaunch) {
  MLIRContext *ctx = module.getContext();
  OwningOpRef<ModuleOp> tagged = module.clone();
  tagOps(*tagged);
  Comparison cmp;
  cmp.fusion = fusion.str();
  for (int s = 0; s < 2; ++s) {
    cmp.module[s] = tagged->clone();
    applySideTilings(*cmp.module[s], s);
    if (failed(runBackendPipeline(*cmp.module[s], CompareSide(s),
                                  s == 0 ? tpuTarget : gpuTarget, fusion,
                                  gpuLaunch))) {
      emitError(module.getLoc())
          << "npu-compare: the " << (s == 0 ? "TPU" : "GPU")
          << "-like pipeline failed for target '"
          << (s == 0 ? tpuTarget : gpuTarget) << "'";
      return failure();
    }
    cmp.target[s] = (*cmp.module[s])->getAttrOfType<TargetAttr>("npu.target");
  }
  GpuRunMode gpuMode = getGpuRunMode(*cmp.module[1]);
  cmp.gpuGraphLaunches = gpuMode.graphLaunches;
  // The launch cost the GPU-like model priced.
  FailureOr<GpuParams> gpuParams = GpuParams::get(cmp.target[1], gpuMode);
  if (succeeded(gpuParams))
    cmp.gpuLaunchNs = gpuParams->launchNs;

  ModuleOp tpu = *cmp.module[0], gpu = *cmp.module[1];
  FailureOr<CallOrder> order = getCallOrder(tpu, "npu-compare");
  if (failed(order))
    return failure();
  SymbolTable gpuSymbols(gpu);
  CostSum rootSum[2];
  CostAttr lastRoot[2];
  int roots = 0;
  for (auto func : tpu.getOps<func::FuncOp>()) {
    auto gpuFunc = gpuSymbols.lookup<func::FuncOp>(func.getSymName());
    if (!gpuFunc)
      continue;
    CostAttr total[2] = {func->getAttrOfType<CostAttr>("npu.cost"),
                         gpuFunc->getAttrOfType<CostAttr>("npu.cost")};
    if (!total[0] || !total[1])
      continue;
    CompareFunction f;
    f.name = func.getSymName().str();
    f.isRoot = order->isRoot(func);
    f.calls = order->getExecutions(func).toInt64().value_or(INT64_MAX);
    f.total[0] = total[0];
    f.total[1] = total[1];
    f.rows = matchRows(ctx, f.name, collectItems(func, /*isGpu=*/false),
                       collectItems(gpuFunc, /*isGpu=*/true));
    for (CompareRow &r : f.rows)
      r.calls = f.calls;
    if (f.isRoot) {
      ++roots;
      cmp.roots.push_back(f.name);
      for (int s = 0; s < 2; ++s) {
        rootSum[s].add(total[s]);
        lastRoot[s] = total[s];
      }
      if (cmp.entry.empty() || f.name == "model")
        cmp.entry = f.name;
    }
    cmp.functions.push_back(std::move(f));
  }
  if (cmp.functions.empty()) {
    emitError(module.getLoc())
        << "npu-compare: no function has a modelled cost on both targets "
           "(the module has no npu ops that do work?)";
    return failure();
  }
  for (int s = 0; s < 2; ++s) {
    // One root (@model): its total as the schedule wrote it.
    std::optional<CostAttr> c =
        roots == 1 ? std::optional<CostAttr>(lastRoot[s])
                   : rootSum[s].get(ctx, rootSum[s].getTimeNs());
    if (!c) {
      emitError(module.getLoc()) << "npu-compare: a total overflows 64 bits";
      return failure();
    }
    cmp.total[s] = *c;
  }
  return cmp;
}
