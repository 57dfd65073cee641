//===- ProgramMeasure.cpp - what a lowered TPU memory program does --------===//

#include "npu/Analysis/ProgramMeasure.h"
#include "npu/Analysis/SramLiveness.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

using namespace mlir;
using namespace mlir::npu;

namespace {
class Measurer {
public:
  Measurer(func::FuncOp func, int64_t budget) : budget(budget) {
    // The ops that hold a transfer, so that everything else is skipped.
    func.walk([&](Operation *op) {
      if (!isa<DmaStartOp, memref::CopyOp>(op))
        return;
      for (Operation *p = op; p && p != func; p = p->getParentOp())
        holdsTransfer.insert(p);
    });
    func.walk([&](linalg::LinalgOp op) {
      if (llvm::none_of(op->getOperands(), [](Value v) {
            return isa<MemRefType>(v.getType()) && isHbm(v.getType());
          }))
        return;
      if (result.hbmComputeOps++ == 0) {
        llvm::raw_string_ostream os(result.hbmComputeOp);
        os << "'" << op->getName() << "' at " << op->getLoc();
      }
    });
    collectPlannedBuffers(func);
    if (auto peak = func->getAttrOfType<IntegerAttr>("npu.sram_peak"))
      result.vmemPeakBytes = peak.getInt();
    walkBlock(func.getBody().front(), 1);
  }
  ProgramMeasure result;

private:
  int64_t budget;
  llvm::DenseSet<Operation *> holdsTransfer;
  DenseMap<Value, int64_t> env; // induction variables bound
  /// Buffers whose contents the program states under its static plan
  /// (`npu.planned_values` on the op that computes them: a MoE dispatch's
  /// counts and offsets), which loop bounds load.
  DenseMap<Value, DenseI64ArrayAttr> planned;

  /// The buffers of `npu.planned_values`, trusted only when nothing but
  /// ops before their producer in its block (its initial fill) writes them.
  void collectPlannedBuffers(func::FuncOp func) {
    func.walk([&](linalg::LinalgOp op) {
      auto values = op->getAttrOfType<DenseI64ArrayAttr>("npu.planned_values");
      if (!values || op.getNumDpsInits() != 1 ||
          !isa<MemRefType>(op.getDpsInits()[0].getType()))
        return;
      Value root = getRootBuffer(op.getDpsInits()[0]);
      bool alone = true;
      func.walk([&](Operation *other) {
        if (other != op.getOperation() && mayWriteBuffer(other, root) &&
            !(other->getBlock() == op->getBlock() &&
              other->isBeforeInBlock(op)))
          alone = false;
      });
      if (alone && root == op.getDpsInits()[0])
        planned[root] = values;
    });
  }

  /// A load of a planned buffer: its element under the plan.
  std::optional<int64_t> evalPlannedLoad(memref::LoadOp load) {
    auto it = planned.find(load.getMemRef());
    if (it == planned.end() || load.getIndices().size() != 1)
      return std::nullopt;
    std::optional<int64_t> i = eval(load.getIndices()[0]);
    ArrayRef<int64_t> values = it->second.asArrayRef();
    if (!i || *i < 0 || *i >= static_cast<int64_t>(values.size()))
      return std::nullopt;
    return values[*i];
  }
  DenseMap<Operation *, bool> invariantBodies;

  void fail(Operation *op, const Twine &why) {
    if (!result.unmeasured.empty())
      return;
    std::string at;
    llvm::raw_string_ostream os(at);
    os << why << " ('" << op->getName() << "' at " << op->getLoc() << ")";
    result.unmeasured = at;
  }
  bool stopped() const { return !result.unmeasured.empty(); }

  /// Each dimension of a memref's shape: an attribute where static, else
  /// the value that sets it; nullopt where nothing in the IR says.
  std::optional<SmallVector<OpFoldResult>> sizesOf(Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    if (type.hasStaticShape())
      return getAsIndexOpFoldResult(memref.getContext(), type.getShape());
    Operation *def = memref.getDefiningOp();
    if (auto view = dyn_cast_or_null<memref::SubViewOp>(def)) {
      SmallVector<OpFoldResult> sizes;
      llvm::SmallBitVector dropped = view.getDroppedDims();
      for (auto [i, size] : llvm::enumerate(view.getMixedSizes()))
        if (!dropped.test(i))
          sizes.push_back(size);
      return sizes;
    }
    if (auto alloc = dyn_cast_or_null<memref::AllocOp>(def))
      return alloc.getMixedSizes();
    if (auto alloc = dyn_cast_or_null<memref::AllocaOp>(def))
      return alloc.getMixedSizes();
    if (auto cast = dyn_cast_or_null<memref::CastOp>(def))
      return sizesOf(cast.getSource());
    if (auto cast = dyn_cast_or_null<memref::MemorySpaceCastOp>(def))
      return sizesOf(cast.getSource());
    if (auto cast = dyn_cast_or_null<memref::ReinterpretCastOp>(def))
      return cast.getMixedSizes();
    // A split of a view's dims (a rotary embedding's [.., pairs, 2] view of
    // a row tile): its output shape.
    if (auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(def))
      return expand.getMixedOutputShape();
    return std::nullopt;
  }

  std::optional<int64_t> eval(OpFoldResult ofr) {
    if (std::optional<int64_t> c = getConstantIntValue(ofr))
      return c;
    return eval(cast<Value>(ofr));
  }

  std::optional<int64_t> eval(Value v) {
    if (auto it = env.find(v); it != env.end())
      return it->second;
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)))
      return c.getSExtValue();
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (auto delin = dyn_cast<affine::AffineDelinearizeIndexOp>(def))
      return evalDelinearize(delin, cast<OpResult>(v).getResultNumber());
    if (auto load = dyn_cast<memref::LoadOp>(def))
      return evalPlannedLoad(load);
    // A value chosen by a branch (a prefetch's table entry, 0 past the
    // table): the taken region's.
    if (auto branch = dyn_cast<scf::IfOp>(def)) {
      std::optional<int64_t> cond = eval(branch.getCondition());
      if (!cond)
        return std::nullopt;
      Region &taken = *cond ? branch.getThenRegion() : branch.getElseRegion();
      if (taken.empty())
        return std::nullopt;
      return eval(taken.front().getTerminator()->getOperand(
          cast<OpResult>(v).getResultNumber()));
    }
    SmallVector<int64_t> args;
    if (!isa<memref::DimOp>(def))
      for (Value operand : def->getOperands()) {
        std::optional<int64_t> x = eval(operand);
        if (!x)
          return std::nullopt;
        args.push_back(*x);
      }
    // The result of a checked operation, none on overflow.
    auto checked = [](auto op, int64_t a, int64_t b) -> std::optional<int64_t> {
      int64_t r = 0;
      if (op(a, b, r))
        return std::nullopt;
      return r;
    };
    return llvm::TypeSwitch<Operation *, std::optional<int64_t>>(def)
        .Case([&](arith::AddIOp) {
          return checked(llvm::AddOverflow<int64_t>, args[0], args[1]);
        })
        .Case([&](arith::SubIOp) {
          return checked(llvm::SubOverflow<int64_t>, args[0], args[1]);
        })
        .Case([&](arith::MulIOp) {
          return checked(llvm::MulOverflow<int64_t>, args[0], args[1]);
        })
        .Case<arith::DivSIOp, arith::DivUIOp, arith::FloorDivSIOp>(
            [&](Operation *) -> std::optional<int64_t> {
              if (args[1] <= 0 || args[0] < 0)
                return std::nullopt;
              return args[0] / args[1];
            })
        .Case([&](arith::CeilDivSIOp) -> std::optional<int64_t> {
          if (args[1] <= 0 || args[0] < 0)
            return std::nullopt;
          return llvm::divideCeil(args[0], args[1]);
        })
        .Case<arith::RemSIOp, arith::RemUIOp>(
            [&](Operation *) -> std::optional<int64_t> {
              if (args[1] <= 0 || args[0] < 0)
                return std::nullopt;
              return args[0] % args[1];
            })
        .Case<arith::MinSIOp, arith::MinUIOp>(
            [&](Operation *) { return std::min(args[0], args[1]); })
        .Case<arith::MaxSIOp, arith::MaxUIOp>(
            [&](Operation *) { return std::max(args[0], args[1]); })
        .Case([&](arith::AndIOp) { return args[0] & args[1]; })
        .Case([&](arith::OrIOp) { return args[0] | args[1]; })
        .Case([&](arith::SelectOp) { return args[0] ? args[1] : args[2]; })
        .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
              arith::ExtUIOp>([&](Operation *) { return args[0]; })
        .Case([&](arith::CmpIOp cmp) -> std::optional<int64_t> {
          APInt lhs(64, args[0], /*isSigned=*/true);
          APInt rhs(64, args[1], /*isSigned=*/true);
          return arith::applyCmpPredicate(cmp.getPredicate(), lhs, rhs) ? 1 : 0;
        })
        .Case<affine::AffineApplyOp, affine::AffineMinOp, affine::AffineMaxOp>(
            [&](Operation *op) { return evalAffine(op, args); })
        .Case([&](memref::DimOp dim) -> std::optional<int64_t> {
          std::optional<int64_t> index = eval(dim.getIndex());
          std::optional<SmallVector<OpFoldResult>> sizes =
              sizesOf(dim.getSource());
          if (!index || !sizes || *index < 0 ||
              *index >= static_cast<int64_t>(sizes->size()))
            return std::nullopt;
          return eval((*sizes)[*index]);
        })
        .Default([](Operation *) { return std::nullopt; });
  }

  /// Result `index` of `linear` split over the basis (row-major).
  std::optional<int64_t> evalDelinearize(affine::AffineDelinearizeIndexOp op,
                                         unsigned index) {
    std::optional<int64_t> linear = eval(op.getLinearIndex());
    if (!linear || *linear < 0)
      return std::nullopt;
    SmallVector<int64_t> basis;
    for (OpFoldResult b : op.getMixedBasis()) {
      std::optional<int64_t> x = eval(b);
      if (!x || *x <= 0)
        return std::nullopt;
      basis.push_back(*x);
    }
    // Without an outer bound the basis names every result's size but the
    // first's.
    unsigned shift = op.hasOuterBound() ? 0 : 1;
    int64_t stride = 1;
    for (unsigned i = op.getNumResults() - 1; i > index; --i)
      if (llvm::MulOverflow(stride, basis[i - shift], stride))
        return std::nullopt;
    int64_t r = *linear / stride;
    if (index >= shift)
      r %= basis[index - shift];
    return r;
  }

  std::optional<int64_t> evalAffine(Operation *op, ArrayRef<int64_t> args) {
    AffineMap map;
    if (auto apply = dyn_cast<affine::AffineApplyOp>(op))
      map = apply.getAffineMap();
    else if (auto min = dyn_cast<affine::AffineMinOp>(op))
      map = min.getAffineMap();
    else
      map = cast<affine::AffineMaxOp>(op).getAffineMap();
    Builder b(op->getContext());
    SmallVector<Attribute> operands;
    for (int64_t a : args)
      operands.push_back(b.getIndexAttr(a));
    SmallVector<Attribute> results;
    if (failed(map.constantFold(operands, results)) || results.empty())
      return std::nullopt;
    std::optional<int64_t> best;
    for (Attribute a : results) {
      auto i = dyn_cast_or_null<IntegerAttr>(a);
      if (!i)
        return std::nullopt;
      int64_t x = i.getInt();
      if (!best || (isa<affine::AffineMinOp>(op) && x < *best) ||
          (isa<affine::AffineMaxOp>(op) && x > *best))
        best = x;
    }
    return best;
  }

  /// Whether `v` may change from one iteration of `loop` to the next.
  bool variesIn(Value v, scf::ForOp loop) {
    Region &body = loop.getRegion();
    if (!body.isAncestor(v.getParentRegion()))
      return false; // defined outside: fixed while the loop runs
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto inner = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!inner || inner == loop || arg != inner.getInductionVar())
        return true; // this loop's IV, or a loop-carried value
      return variesIn(inner.getLowerBound(), loop) ||
             variesIn(inner.getUpperBound(), loop) ||
             variesIn(inner.getStep(), loop);
    }
    Operation *def = v.getDefiningOp();
    if (def->getNumRegions())
      return true;
    return llvm::any_of(def->getOperands(),
                        [&](Value x) { return variesIn(x, loop); });
  }

  bool sizesVaryIn(Value memref, scf::ForOp loop) {
    std::optional<SmallVector<OpFoldResult>> sizes = sizesOf(memref);
    if (!sizes)
      return false; // unknown either way: reported when counted
    return llvm::any_of(*sizes, [&](OpFoldResult s) {
      auto v = dyn_cast<Value>(s);
      return v && variesIn(v, loop);
    });
  }

  /// Whether what the loop's body moves is the same in every iteration
  /// (structural: computed once per loop, however often it is entered).
  bool bodyIsInvariant(scf::ForOp loop) {
    auto [it, inserted] = invariantBodies.try_emplace(loop, false);
    if (inserted)
      it->second = computeBodyIsInvariant(loop);
    return it->second;
  }

  bool computeBodyIsInvariant(scf::ForOp loop) {
    bool varies = false;
    loop.getBody()->walk([&](Operation *op) {
      if (auto dma = dyn_cast<DmaStartOp>(op))
        varies |= sizesVaryIn(dma.getSource(), loop) ||
                  (dma.getPredicate() && variesIn(dma.getPredicate(), loop));
      else if (auto copy = dyn_cast<memref::CopyOp>(op))
        varies |= sizesVaryIn(copy.getSource(), loop);
      else if (auto inner = dyn_cast<scf::ForOp>(op))
        varies |= variesIn(inner.getLowerBound(), loop) ||
                  variesIn(inner.getUpperBound(), loop) ||
                  variesIn(inner.getStep(), loop);
      else if (auto branch = dyn_cast<scf::IfOp>(op))
        varies |=
            holdsTransfer.contains(op) && variesIn(branch.getCondition(), loop);
    });
    return !varies;
  }

  std::optional<int64_t> bytesOf(Operation *op, Value memref) {
    std::optional<SmallVector<OpFoldResult>> sizes = sizesOf(memref);
    if (!sizes) {
      fail(op, "a transfer's size is not known from the IR");
      return std::nullopt;
    }
    auto type = cast<MemRefType>(memref.getType());
    int64_t bytes = (type.getElementTypeBitWidth() + 7) / 8;
    for (OpFoldResult s : *sizes) {
      std::optional<int64_t> n = eval(s);
      if (!n) {
        fail(op, "a transfer's size is known only at run time");
        return std::nullopt;
      }
      if (llvm::MulOverflow(bytes, *n, bytes)) {
        fail(op, "a transfer's size overflows 64 bits");
        return std::nullopt;
      }
    }
    return bytes;
  }

  void add(Operation *op, int64_t &counter, int64_t amount, int64_t times) {
    int64_t product = 0;
    if (llvm::MulOverflow(amount, times, product) ||
        llvm::AddOverflow(counter, product, counter))
      fail(op, "a count overflows 64 bits");
  }

  void countDma(DmaStartOp dma, int64_t times) {
    if (Value p = dma.getPredicate()) {
      std::optional<int64_t> on = eval(p);
      if (!on)
        return fail(dma, "a DMA's predicate is known only at run time");
      if (!*on)
        return;
    }
    std::optional<int64_t> bytes = bytesOf(dma, dma.getSource());
    if (!bytes)
      return;
    bool read = isHbm(dma.getSource().getType());

    add(dma, read ? result.dmaReadBytes : result.dmaWriteBytes, *bytes, times);
    add(dma, result.dmas, 1, times);
  }

  void countCopy(memref::CopyOp copy, int64_t times) {
    if (!isHbm(copy.getSource().getType()) ||
        !isHbm(copy.getTarget().getType()))
      return; // on chip: not HBM traffic
    if (std::optional<int64_t> bytes = bytesOf(copy, copy.getSource()))
      add(copy, result.hbmCopyBytes, *bytes, times);
  }

  void walkFor(scf::ForOp loop, int64_t times) {
    std::optional<int64_t> lb = eval(loop.getLowerBound());
    std::optional<int64_t> ub = eval(loop.getUpperBound());
    std::optional<int64_t> step = eval(loop.getStep());
    if (!lb || !ub || !step || *step <= 0)
      return fail(loop, "a loop's trip count is known only at run time");
    int64_t trips = *ub > *lb ? llvm::divideCeil(*ub - *lb, *step) : 0;
    Value iv = loop.getInductionVar();
    // Integers the loop carries (a software-pipelined loop passes the next
    // tile's size on) are followed iteration by iteration, and its results
    // bound after it.
    SmallVector<std::optional<int64_t>> carried;
    for (Value init : loop.getInitArgs())
      carried.push_back(init.getType().isIntOrIndex() ? eval(init)
                                                      : std::nullopt);
    bool carriesIntegers = llvm::any_of(
        loop.getInitArgs(), [](Value v) { return v.getType().isIntOrIndex(); });
    if (trips > 0 && !carriesIntegers && bodyIsInvariant(loop)) {
      int64_t all = 0;
      if (llvm::MulOverflow(times, trips, all))
        return fail(loop, "a count overflows 64 bits");
      env[iv] = *lb;
      walkBlock(*loop.getBody(), all);
      env.erase(iv);
      return;
    }
    auto bind = [&](ValueRange values) {
      for (auto [v, x] : llvm::zip(values, carried)) {
        if (x)
          env[v] = *x;
        else
          env.erase(v);
      }
    };
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (int64_t i = 0; i < trips && !stopped(); ++i) {
      if (--budget < 0)
        return fail(loop, "the loops to enumerate exceed the iteration budget");
      env[iv] = *lb + i * *step;
      bind(loop.getRegionIterArgs());
      walkBlock(*loop.getBody(), times);
      for (auto [x, next] : llvm::zip(carried, yield.getOperands()))
        x = next.getType().isIntOrIndex() ? eval(next) : std::nullopt;
    }
    env.erase(iv);
    for (Value arg : loop.getRegionIterArgs())
      env.erase(arg);
    bind(loop.getResults());
  }

  void walkBlock(Block &block, int64_t times) {
    for (Operation &op : block) {
      if (stopped())
        return;
      if (!holdsTransfer.contains(&op))
        continue;
      if (auto dma = dyn_cast<DmaStartOp>(op)) {
        countDma(dma, times);
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        countCopy(copy, times);
      } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
        walkFor(loop, times);
      } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
        std::optional<int64_t> cond = eval(branch.getCondition());
        if (!cond)
          return fail(&op, "a branch around a transfer is decided at run time");
        Region &taken = *cond ? branch.getThenRegion() : branch.getElseRegion();
        if (!taken.empty())
          walkBlock(taken.front(), times);
      } else {
        return fail(&op, "a transfer inside an op the measure does not know");
      }
    }
  }
};
} // namespace

ProgramMeasure mlir::npu::measureTpuProgram(func::FuncOp func,
                                            int64_t iterationBudget) {
  return Measurer(func, iterationBudget).result;
}
