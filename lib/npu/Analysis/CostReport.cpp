//===- CostReport.cpp - reading #npu.cost back out of a module ------------===//

#include "npu/Analysis/CostReport.h"
#include "npu/Analysis/CallOrder.h"
#include "npu/Support/InputFiles.h"
#include "npu/Support/JsonStream.h"
#include "npu/Support/JsonText.h"
#include "npu/Support/OutputFiles.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::npu;

static double ns(llvm::APFloat v) { return v.convertToDouble(); }

std::string mlir::npu::getKernelLabel(KernelOp kernel) {
  std::string label = stringifyKernelKind(kernel.getKind()).str();
  SmallVector<std::string> names;
  for (Operation *op : kernel.getComputeOps())
    names.push_back(op->getName().stripDialect().str());
  return label + "(" + llvm::join(names, ",") + ")";
}

std::string mlir::npu::getTileString(Operation *op) {
  auto tiling = op->getAttrOfType<TilingAttr>("npu.tiling");
  if (!tiling)
    return "-";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(tiling.getTile(), os, "x");
  // A TPU GEMM's K-step loads in chunks: /kN.
  if (tiling.getChunks() > 1)
    os << "/k" << tiling.getChunks();
  // The launch arrangements that are not the default, one per launch:
  // cluster cMxN, raster group gG, KV splits sS ("-" for a default one).
  auto launches = op->getAttrOfType<ArrayAttr>("npu.launch");
  if (!launches ||
      llvm::all_of(launches.getAsRange<LaunchAttr>(), [](LaunchAttr l) {
        return l.getClusterM() == 1 && l.getClusterN() == 1 &&
               l.getRasterGroup() == 1 && l.getKvSplits() == 1;
      }))
    return s;
  os << "/";
  llvm::interleave(
      launches.getAsRange<LaunchAttr>(), os,
      [&](LaunchAttr l) {
        bool any = false;
        if (l.getClusterM() * l.getClusterN() > 1) {
          os << "c" << l.getClusterM() << "x" << l.getClusterN();
          any = true;
        }
        if (l.getRasterGroup() > 1) {
          os << "g" << l.getRasterGroup();
          any = true;
        }
        if (l.getKvSplits() > 1) {
          os << "s" << l.getKvSplits();
          any = true;
        }
        if (!any)
          os << "-";
      },
      ",");
  return s;
}

llvm::json::Object mlir::npu::costToJSON(CostAttr c) {
  llvm::json::Object o{{"time_ns", ns(c.getTimeNs())},
                       {"compute_ns", ns(c.getComputeNs())},
                       {"memory_ns", ns(c.getMemoryNs())},
                       {"overhead_ns", ns(c.getOverheadNs())},
                       {"hbm_read_bytes", c.getHbmReadBytes()},
                       {"hbm_write_bytes", c.getHbmWriteBytes()},
                       {"onchip_bytes", c.getOnchipBytes()},
                       {"flops", c.getFlops()},
                       {"padded_flops", c.getPaddedFlops()},
                       {"bound", stringifyCostBound(c.getBound())},
                       {"matrix_utilization", ns(c.getMatrixUtilization())}};
  if (auto h = c.getL2HitRate())
    o["l2_hit_rate"] = ns(*h);
  if (auto w = c.getWaves())
    o["waves"] = ns(*w);
  return o;
}

CostAttr mlir::npu::getItemCost(Operation *op) {
  if (auto cost = op->getAttrOfType<CostAttr>("npu.cost"))
    return isa<KernelOp, func::CallOp>(op) ? cost : CostAttr();
  auto call = dyn_cast<func::CallOp>(op);
  if (!call)
    return {};
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      op, call.getCalleeAttr());
  return callee ? callee->getAttrOfType<CostAttr>("npu.cost") : CostAttr();
}

/// Block dispatch of a GPU-like kernel starting at `startNs` (its `npu.grid`)
/// as events on thread `tid`: the launch overhead, then per grid one event
/// per full wave (merged into one event beyond kMaxWaveEvents waves) and one
/// for the tail. The launch overhead is what the kernel's time leaves after
/// its grids' waves.
static void addWaveEvents(Operation *kernel, double startNs, double endNs,
                          int64_t pid, int64_t tid, JsonStream &events) {
  auto grids = kernel->getAttrOfType<ArrayAttr>("npu.grid");
  if (!grids)
    return;
  constexpr int64_t kMaxWaveEvents = 16;
  auto add = [&](std::string name, double at, double dur,
                 llvm::json::Object args) {
    if (dur <= 0)
      return;
    events.value(llvm::json::Object{{"name", std::move(name)},
                                    {"cat", "wave"},
                                    {"ph", "X"},
                                    {"ts", at / 1e3},
                                    {"dur", dur / 1e3},
                                    {"pid", pid},
                                    {"tid", tid},
                                    {"args", std::move(args)}});
  };
  double body = 0;
  for (auto g : grids.getAsRange<GridAttr>())
    body += g.getBodyNs();
  double t = startNs;
  double launch = std::max(0.0, (endNs - startNs) - body);
  add("launch", t, launch, {});
  t += launch;
  for (auto [i, g] : llvm::enumerate(grids.getAsRange<GridAttr>())) {
    std::string grid = "grid " + std::to_string(i + 1) + ": ";
    // The DRAM latency the launch exposes once, before its first tiles.
    double fill = ns(g.getFillNs());
    llvm::json::Object args{{"blocks", g.getBlocks()},
                            {"threads", g.getThreads()},
                            {"blocks_per_sm", g.getBlocksPerSm()},
                            {"full_waves", g.getFullWaves()},
                            {"tail_blocks", g.getTailBlocks()},
                            {"fill_ns", fill}};
    add(grid + "fill", t, fill, llvm::json::Object(args));
    t += fill;
    double wave = ns(g.getWaveNs()), tail = ns(g.getTailNs());
    int64_t full = g.getFullWaves();
    if (full > kMaxWaveEvents) {
      add(grid + "waves 1-" + std::to_string(full), t, double(full) * wave,
          llvm::json::Object(args));
      t += double(full) * wave;
    } else {
      for (int64_t w = 0; w < full; ++w, t += wave)
        add(grid + "wave " + std::to_string(w + 1), t, wave,
            llvm::json::Object(args));
    }
    add(grid + "tail (" + std::to_string(g.getTailBlocks()) + " blocks)", t,
        tail, std::move(args));
    t += tail;
  }
}

/// The trace's events, one at a time (JsonStream): its size grows with the
/// kernels, the memory it takes does not.
static void writeTraceEvents(ModuleOp module, const CallOrder &order,
                             JsonStream &events) {
  int64_t pid = 0;
  auto addKernels = [&](func::FuncOp func, double offsetNs, int64_t p,
                        int64_t tid) {
    for (Operation &op : func.getBody().front()) {
      auto kernel = dyn_cast<KernelOp>(op);
      auto slot = op.getAttrOfType<SlotAttr>("npu.slot");
      auto cost = op.getAttrOfType<CostAttr>("npu.cost");
      if (!kernel || !slot || !cost)
        continue;
      llvm::json::Object args = costToJSON(cost);
      args["tile"] = getTileString(&op);
      events.value(llvm::json::Object{
          {"name", getKernelLabel(kernel)},
          {"cat", stringifyKernelKind(kernel.getKind())},
          {"ph", "X"},
          {"ts", (offsetNs + ns(slot.getStartNs())) / 1e3},
          {"dur", (ns(slot.getEndNs()) - ns(slot.getStartNs())) / 1e3},
          {"pid", p},
          {"tid", tid},
          {"args", std::move(args)}});
      addWaveEvents(kernel, offsetNs + ns(slot.getStartNs()),
                    offsetNs + ns(slot.getEndNs()), p, tid + 1, events);
    }
  };
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!order.isRoot(func) || !func->hasAttr("npu.cost"))
      continue;
    ++pid;
    events.value(llvm::json::Object{
        {"name", "process_name"},
        {"ph", "M"},
        {"pid", pid},
        {"args", llvm::json::Object{
                     {"name", jsonText("@" + func.getSymName().str())}}}});
    addKernels(func, 0, pid, 2);
    for (Operation &op : func.getBody().front()) {
      auto call = dyn_cast<func::CallOp>(op);
      auto slot = op.getAttrOfType<SlotAttr>("npu.slot");
      if (!call || !slot)
        continue;
      func::FuncOp callee = order.getCallee(call);
      if (!callee)
        continue;
      double start = ns(slot.getStartNs());
      events.value(
          llvm::json::Object{{"name", jsonText("@" + call.getCallee().str())},
                             {"cat", "call"},
                             {"ph", "X"},
                             {"ts", start / 1e3},
                             {"dur", (ns(slot.getEndNs()) - start) / 1e3},
                             {"pid", pid},
                             {"tid", 1}});
      addKernels(callee, start, pid, 2);
    }
  }
}

LogicalResult mlir::npu::writeCostTrace(ModuleOp module, StringRef path) {
  FailureOr<CallOrder> order = getCallOrder(module, "trace");
  if (failed(order))
    return failure();
  LogicalResult written = success();
  LogicalResult staged = writeOutputFile(
      path,
      [&](llvm::raw_ostream &out) {
        JsonStream js(out, 0);
        js.object([&] {
          js.attributeArray("traceEvents",
                            [&] { writeTraceEvents(module, *order, js); });
          js.attribute("displayTimeUnit", "ns");
        });
        written = js.finish(module.getLoc(), "trace");
      },
      module.getLoc());
  return success(succeeded(written) && succeeded(staged));
}
