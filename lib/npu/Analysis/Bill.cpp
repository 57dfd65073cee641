//===- Bill.cpp - the accounting of a model on a chip ---------------------===//

#include "npu/Analysis/Bill.h"
#include "npu/Analysis/CallOrder.h"
#include "npu/Analysis/KernelModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>

using namespace mlir;
using namespace mlir::npu;

//===----------------------------------------------------------------------===//
// Roofline
//===----------------------------------------------------------------------===//

/// The element type whose peak rate the op's matrix FLOPs run at: over the
/// float operands that feed the matrix unit, getProductType's (an fp8
/// weight makes a W8A8 product; otherwise the widest). Attention takes the
/// widest: an fp8 K/V cache is widened to the query's type in the kernel
/// (FlashMLA, ragged paged attention). The routing weights of
/// npu.moe_experts (f32) scale the experts' outputs on the vector unit: they
/// ran DeepSeek-V3's experts at the fp32 rate before. A weight stored in a
/// scaled format runs at its native product's rate where `target` has it,
/// else at the activations' (describeRhs, getMatrixPath).
static Type getMatrixType(Operation *op, TargetAttr target) {
  auto moe = dyn_cast<MoEExpertsOp>(op);
  auto mm = dyn_cast<MatmulOp>(op);
  Value weight = mm ? mm.getRhs() : moe ? moe.getWGate() : Value();
  if (weight && weight.getDefiningOp<DequantizeOp>()) {
    Value act = mm ? mm.getLhs() : moe.getX();
    KernelDesc k;
    describeRhs(k, cast<ShapedType>(act.getType()).getElementType(), weight);
    return getMatrixPath(k, MatrixRates::get(target, 1)).type;
  }
  Type type;
  bool widest = isa<AttentionOp>(op);
  for (Value v : op->getOperands()) {
    if (moe && v == moe.getWeights())
      continue;
    Type t = v.getType();
    auto shaped = dyn_cast<ShapedType>(t);
    if (!shaped || !isa<FloatType>(shaped.getElementType()))
      continue;
    Type e = shaped.getElementType();
    if (!widest)
      type = getProductType(type, e);
    else if (!type || e.getIntOrFloatBitWidth() > type.getIntOrFloatBitWidth())
      type = e;
  }
  return type ? type : Float32Type::get(op->getContext());
}

Roofline mlir::npu::getRoofline(const Work &work, Type matrixType,
                                TargetAttr target) {
  // A chip without the dtype's rate (fp8 on an A100) runs it at bf16's.
  double peak = getMatrixPeakFlopPerS(target, matrixType);
  double vector = target.getVectorFlopPerS().convertToDouble();
  double transc = target.getTranscendentalPerS().convertToDouble();
  double bw = target.getHbmBandwidthBytesPerS().convertToDouble();
  Roofline r;
  r.computeSeconds = double(work.matrixFlops.value()) / peak +
                     double(work.vectorFlops.value()) / vector +
                     double(work.transcendentalFlops.value()) / transc;
  r.memorySeconds = double((work.bytesRead + work.bytesWritten).value()) / bw;
  r.boundSeconds = std::max(r.computeSeconds, r.memorySeconds);
  return r;
}

double BillLine::intensity() const {
  Count bytes = work.bytesRead + work.bytesWritten;
  if (bytes.isOverflow() || bytes.value() == 0)
    return 0;
  return double(work.totalFlops().value()) / double(bytes.value());
}

/// Adds `line` scaled by `times` into `into`.
static void accumulate(BillLine &into, const BillLine &line, int64_t times) {
  Count n(static_cast<uint64_t>(times));
  Work w = line.work;
  w.matrixFlops *= n;
  w.vectorFlops *= n;
  w.transcendentalFlops *= n;
  w.bytesRead *= n;
  w.bytesWritten *= n;
  w.paramBytes *= n;
  into.work += w;
  into.attentionCoreFlops += line.attentionCoreFlops * n;
  into.activationBytes += line.activationBytes * n;
  into.roofline.computeSeconds += line.roofline.computeSeconds * times;
  into.roofline.memorySeconds += line.roofline.memorySeconds * times;
  into.roofline.boundSeconds += line.roofline.boundSeconds * times;
}

//===----------------------------------------------------------------------===//
// Values: activations versus state
//===----------------------------------------------------------------------===//

/// Whether `v` is held state rather than an activation: a function input
/// (tokens, caches, parameters), a parameter, a KV cache, or a call result
/// that its callee returns from one of those. Callees come first in
/// `order`, so a call result looks its callee's answer up in `stateResults`.
using StateResults = llvm::DenseMap<Operation *, llvm::SmallVector<bool>>;
static bool isState(Value v, const CallOrder &order,
                    const StateResults &stateResults) {
  if (isa<BlockArgument>(v))
    return true;
  Operation *def = v.getDefiningOp();
  if (isa<WeightOp, KVCacheAppendOp>(def))
    return true;
  if (auto call = dyn_cast<func::CallOp>(def)) {
    auto it = stateResults.find(order.getCallee(call));
    return it != stateResults.end() &&
           it->second[cast<OpResult>(v).getResultNumber()];
  }
  return false;
}

/// Bytes an op's result adds to live memory: none for views (they alias their
/// input) and for state.
static Count getActivationBytes(Value v, const CallOrder &order,
                                const StateResults &stateResults) {
  Operation *def = v.getDefiningOp();
  if (!isa<ShapedType>(v.getType()) || isState(v, order, stateResults) ||
      isa_and_nonnull<ReshapeOp, SliceOp, KVCacheReadOp, DequantizeOp>(def))
    return Count(0);
  return getNumBytes(v);
}

/// Peak bytes of live activations while `func` runs: at each op, the
/// activations defined earlier and still used at or after it, plus the op's
/// results, plus (for a call) the callee's own peak.
static Count
getPeakLive(func::FuncOp func, const CallOrder &order,
            const StateResults &stateResults,
            const llvm::DenseMap<Operation *, Count> &calleePeaks) {
  Block &block = func.getBody().front();
  llvm::DenseMap<Operation *, unsigned> index;
  unsigned i = 0;
  for (Operation &op : block)
    index[&op] = i++;
  // [def, lastUse] of every activation.
  struct Range {
    unsigned def, last;
    Count bytes;
  };
  std::vector<Range> ranges;
  for (Operation &op : block)
    for (Value r : op.getResults()) {
      Count bytes = getActivationBytes(r, order, stateResults);
      if (bytes.value() == 0 && !bytes.isOverflow())
        continue;
      unsigned last = index[&op];
      for (Operation *user : r.getUsers())
        if (Operation *top = block.findAncestorOpInBlock(*user))
          last = std::max(last, index[top]);
      ranges.push_back({index[&op], last, bytes});
    }
  // Sweep: a range is live from its definition to its last use, so the
  // whole function costs O(ops + uses).
  unsigned n = index.size();
  std::vector<Count> starts(n + 1, Count(0)), endsBefore(n + 1, Count(0));
  for (const Range &r : ranges) {
    starts[r.def] += r.bytes;
    endsBefore[r.last + 1] += r.bytes;
  }
  Count peak(0), cur(0);
  for (Operation &op : block) {
    unsigned at = index[&op];
    cur = cur - endsBefore[at] + starts[at];
    Count live = cur;
    // A call's results are counted inside the callee's peak (they are the
    // values it returns), so only its live inputs are added here.
    if (auto call = dyn_cast<func::CallOp>(op)) {
      live = live - starts[at];
      auto it = calleePeaks.find(order.getCallee(call));
      if (it != calleePeaks.end())
        live += it->second;
    }
    if (live.isOverflow() || live.value() > peak.value())
      peak = live;
  }
  return peak;
}

//===----------------------------------------------------------------------===//
// computeBill
//===----------------------------------------------------------------------===//

/// The tokens of one step, from the module's `npu.model` (its batch times
/// its sequence length; decode: one token per sequence); none without it.
static LogicalResult readTokens(ModuleOp module, ModelBill &bill) {
  bill.model = module->getAttrOfType<DictionaryAttr>("npu.model");
  if (bill.model) {
    // The importer writes i64 attributes; anything else is not a count.
    auto get = [&](StringRef key) -> std::optional<int64_t> {
      auto a = bill.model.getAs<IntegerAttr>(key);
      if (!a || !a.getType().isSignlessInteger(64))
        return std::nullopt;
      return a.getInt();
    };
    auto phase = bill.model.getAs<StringAttr>("phase");
    std::optional<int64_t> perSeq = phase && phase.getValue() == "decode"
                                        ? std::optional<int64_t>(1)
                                        : get("seq_len");
    std::optional<int64_t> batch = get("batch");
    // A hand-written description can hold any i64: the product must be
    // checked, not wrapped (a UBSan report under fuzz/npu-fuzz-passes).
    if (batch && perSeq &&
        (*batch < 1 || *perSeq < 1 ||
         llvm::MulOverflow(*batch, *perSeq, bill.tokens))) {
      mlir::emitError(module.getLoc(), "npu.model: batch (")
          << *batch << ") times tokens per sequence (" << *perSeq
          << ") is not a token count in [1, 2^63)";
      return failure();
    }
  }
  return success();
}

/// The step's lines and total: @model's ops in order, each call as one
/// layer (its callee with every nested call expanded); without @model,
/// every root once.
static void billStep(ModelBill &bill, func::FuncOp model,
                     const CallOrder &order,
                     const llvm::DenseMap<Operation *, unsigned> &funcIndex,
                     llvm::DenseMap<Operation *, BillLine> &inclusive,
                     llvm::DenseMap<Operation *, Count> &peaks) {
  bill.total.name = "total";
  if (model) {
    // The step: @model's ops in order, each call as one layer (its callee
    // with every nested call expanded).
    const FunctionBill &mb = bill.functions[funcIndex.lookup(model)];
    size_t opLine = 0;
    int64_t layer = 0;
    for (Operation &op : model.getBody().front()) {
      if (auto call = dyn_cast<func::CallOp>(op)) {
        func::FuncOp callee = order.getCallee(call);
        if (!callee) // a host function: no work
          continue;
        BillLine line = inclusive[callee];
        line.name =
            ("layer " + Twine(layer++) + " (@" + callee.getSymName() + ")")
                .str();
        bill.layers.push_back(std::move(line));
      } else if (opLine < mb.ops.size() && mb.ops[opLine].op == &op) {
        bill.layers.push_back(mb.ops[opLine++]);
      }
    }
    for (const BillLine &l : bill.layers)
      accumulate(bill.total, l, 1);
    bill.peakLiveActivationBytes = peaks[model];
  } else {
    // No entry point: every root once.
    for (func::FuncOp f : order.roots) {
      accumulate(bill.total, inclusive[f], 1);
      if (peaks[f].value() > bill.peakLiveActivationBytes.value())
        bill.peakLiveActivationBytes = peaks[f];
    }
  }
}

/// What the step keeps in memory: the parameters (and those one token
/// uses) and the KV caches.
static void billStorage(ModuleOp module, const CallOrder &order,
                        ModelBill &bill) {
  // Parameters: every npu.weight is one distinct parameter.
  module.walk([&](WeightOp w) {
    bill.parameterBytes += getNumBytes(w.getResult());
    bill.parameterCount += getNumElements(w.getResult().getType());
  });

  // Per function, as many times as it runs (each call has its own weights
  // and caches): the routed experts a token does not visit are left out of
  // the active parameters; each KV-cache append adds its cache.
  bill.activeParameterCount = bill.parameterCount;
  for (func::FuncOp f : order.calleesFirst) {
    Count runs = order.getExecutions(f);
    f.walk([&](MoEExpertsOp op) {
      int64_t experts = op.getNumExperts(), k = op.getTopK();
      if (k >= experts)
        return;
      Count routed;
      for (Value v : op.getRoutedParams())
        routed += getNumElements(v.getType());
      bill.activeParameterCount =
          bill.activeParameterCount - routed / Count::fromSigned(experts) *
                                          Count::fromSigned(experts - k) * runs;
    });
    f.walk([&](KVCacheAppendOp op) {
      auto type = op.getCache().getType();
      bill.kvCacheBytes += getNumBytes(type) * runs;
      // Bytes per cached token of this cache: / (batch * rows).
      Count perToken =
          getNumBytes(type) / (Count::fromSigned(type.getDimSize(0)) *
                               Count::fromSigned(type.getDimSize(2)));
      bill.kvCacheBytesPerToken += perToken * runs;
    });
  }
}

FailureOr<ModelBill> mlir::npu::computeBill(ModuleOp module,
                                            TargetAttr target) {
  ModelBill bill;
  bill.target = target;
  bill.targetName = target.getName().str();
  if (failed(readTokens(module, bill)))
    return failure();

  // A module with no work has no bill: say so instead of printing zeros.
  bool anyWork = false;
  module.walk([&](WorkOpInterface) { anyWork = true; });
  if (!anyWork) {
    mlir::emitError(module.getLoc(),
                    "npu-report-bill: the module has no npu op to bill (an "
                    "empty module, or a model with no layers)");
    return failure();
  }
  // The step runs @model once if there is one, else every root once.
  auto model = SymbolTable(module).lookup<func::FuncOp>("model");
  if (model && model.isExternal())
    model = {};
  FailureOr<CallOrder> order = getCallOrder(module, "npu-report-bill", model);
  if (failed(order))
    return failure();

  // Per function, callees first: its own ops, its inclusive total (calls
  // expanded), which results are state, and its peak live activations.
  llvm::DenseMap<Operation *, unsigned> funcIndex;
  llvm::DenseMap<Operation *, BillLine> inclusive;
  llvm::DenseMap<Operation *, Count> peaks;
  StateResults stateResults;
  bool failed = false;
  for (func::FuncOp f : order->calleesFirst) {
    FunctionBill fb;
    fb.name = f.getName().str();
    fb.total.name = "total";
    Count runs = order->getExecutions(f);
    fb.calls = runs.toInt64().value_or(INT64_MAX);
    BillLine all;
    for (Operation &op : f.getBody().front()) {
      if (auto call = dyn_cast<func::CallOp>(op)) {
        if (func::FuncOp callee = order->getCallee(call))
          accumulate(all, inclusive.lookup(callee), 1);
        continue;
      }
      if (!isa<WorkOpInterface>(op))
        continue;
      FailureOr<Work> w = getCheckedWork(&op);
      if (mlir::failed(w)) {
        failed = true;
        continue;
      }
      // Ops that do no work (weights, views) are left out of the bill.
      if (w->totalFlops().value() == 0 &&
          (w->bytesRead + w->bytesWritten).value() == 0)
        continue;
      BillLine line;
      line.op = &op;
      line.name = op.getName().getStringRef().str();
      if (auto fl = dyn_cast<FileLineColLoc>(op.getLoc()))
        line.loc = (fl.getFilename().strref() + ":" + Twine(fl.getLine()) +
                    ":" + Twine(fl.getColumn()))
                       .str();
      line.work = *w;
      if (isa<AttentionOp>(op))
        line.attentionCoreFlops = w->matrixFlops;
      for (Value r : op.getResults())
        line.activationBytes += getActivationBytes(r, *order, stateResults);
      line.roofline = getRoofline(*w, getMatrixType(&op, target), target);
      accumulate(fb.total, line, 1);
      fb.ops.push_back(std::move(line));
    }
    accumulate(all, fb.total, 1);
    inclusive[f] = std::move(all);
    auto ret = cast<func::ReturnOp>(f.getBody().front().getTerminator());
    SmallVector<bool> &states = stateResults[f];
    for (Value v : ret.getOperands())
      states.push_back(isState(v, *order, stateResults));
    peaks[f] = getPeakLive(f, *order, stateResults, peaks);
    fb.peakLiveActivationBytes = peaks[f];
    funcIndex[f] = bill.functions.size();
    bill.functions.push_back(std::move(fb));
  }
  if (failed)
    return failure();

  billStorage(module, *order, bill);
  billStep(bill, model, *order, funcIndex, inclusive, peaks);
  if (bill.total.work.isOverflow() || bill.kvCacheBytes.isOverflow() ||
      bill.parameterBytes.isOverflow() || bill.hbmNeededBytes().isOverflow() ||
      bill.hbmNeededBytes().value() > uint64_t(INT64_MAX)) {
    mlir::emitError(module.getLoc(),
                    "the bill of this module does not fit in 63 bits");
    return failure();
  }
  return bill;
}

int64_t ModelBill::minChips() const {
  uint64_t hbm = static_cast<uint64_t>(target.getHbmBytes());
  uint64_t need = hbmNeededBytes().value();
  return static_cast<int64_t>((need + hbm - 1) / hbm);
}
