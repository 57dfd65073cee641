//===- ScheduleKernels.cpp - the npu-schedule-kernels pass
//------------------------===//
//
// The static timeline: kernels (and calls) as operations of a scheduling
// problem on one resource, the chip, with SSA dependences; solved by the
// list scheduler of npu/Scheduling and checked with verify(). Times are
// integer picoseconds inside the problem (rounded up), ns on the IR.
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/CallOrder.h"
#include "npu/Analysis/CostSum.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"
#include "npu/Scheduling/Algorithms.h"
#include "npu/Scheduling/Problem.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

#include <cmath>

namespace mlir::npu {
#define GEN_PASS_DEF_NPUSCHEDULEKERNELS
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
class FunctionScheduler {
public:
  FunctionScheduler(const CallOrder &order) : order(order) {}

  /// Schedules `func`, whose callees are scheduled; fails with a
  /// diagnostic.
  LogicalResult schedule(func::FuncOp func) {
    auto fail = [&]() {
      return mlir::emitError(func.getLoc())
             << "npu-schedule-kernels: @" << func.getSymName() << ": ";
    };
    sched::Problem problem;
    sched::ResourceId chip = problem.addResource("chip", 1);
    llvm::DenseMap<Operation *, sched::OpId> ids;
    SmallVector<Operation *> scheduled;
    CostSum sum;
    for (Operation &op : func.getBody().front()) {
      CostAttr cost;
      if (auto kernel = dyn_cast<KernelOp>(op)) {
        cost = kernel->getAttrOfType<CostAttr>("npu.cost");
        if (!cost)
          return kernel.emitError(
              "npu-schedule-kernels: kernel has no 'npu.cost' "
              "(run npu-estimate-cost first)");
      } else if (auto call = dyn_cast<func::CallOp>(op)) {
        func::FuncOp callee = order.getCallee(call);
        if (!callee) // a host function: no work
          continue;
        cost = callee->getAttrOfType<CostAttr>("npu.cost");
        if (!cost)
          continue;
      } else {
        continue;
      }
      double ps = std::ceil(cost.getTimeNs().convertToDouble() * 1000.0);
      if (!(ps < 9e18))
        return op.emitError("npu-schedule-kernels: modelled time does not fit "
                            "in 64-bit picoseconds");
      sched::OpId id = problem.addOperation(op.getName().getStringRef(), chip,
                                            static_cast<sched::Time>(ps));
      ids[&op] = id;
      scheduled.push_back(&op);
      sum.add(cost);
      // Dependences: the scheduled producers of the operands, through
      // views and other unscheduled ops.
      for (Operation *producer : getProducers(&op, ids))
        problem.addDependence(ids[producer], id);
    }
    llvm::Expected<sched::Schedule> s = sched::scheduleList(problem);
    if (!s)
      return fail() << llvm::toString(s.takeError());
    llvm::Expected<sched::Time> makespan = problem.verify(*s);
    if (!makespan)
      return fail() << "invalid schedule: "
                    << llvm::toString(makespan.takeError());
    MLIRContext *ctx = func.getContext();
    for (Operation *op : scheduled) {
      const sched::OpInfo &info = problem.getOperation(ids[op]);
      double start = double(*s->getStart(ids[op])) / 1000.0;
      double end = start + double(info.latency) / 1000.0;
      op->setAttr("npu.slot",
                  SlotAttr::get(ctx, llvm::APFloat(start), llvm::APFloat(end)));
    }
    if (!scheduled.empty()) {
      std::optional<CostAttr> total = sum.get(ctx, double(*makespan) / 1000.0);
      if (!total)
        return fail() << "a total overflows 64 bits";
      func->setAttr("npu.cost", *total);
    }
    return success();
  }

private:
  /// Scheduled ops whose results `op` uses, directly or through
  /// unscheduled ops (memoized).
  SmallVector<Operation *>
  getProducers(Operation *op,
               const llvm::DenseMap<Operation *, sched::OpId> &ids) {
    llvm::SetVector<Operation *> out;
    SmallVector<Value> work(op->getOperands());
    llvm::DenseSet<Operation *> seen;
    while (!work.empty()) {
      Operation *def = work.pop_back_val().getDefiningOp();
      if (!def || !seen.insert(def).second)
        continue;
      if (ids.count(def))
        out.insert(def);
      else
        work.append(def->getOperands().begin(), def->getOperands().end());
    }
    return out.takeVector();
  }

  const CallOrder &order;
};

struct NpuScheduleKernelsPass
    : public npu::impl::NpuScheduleKernelsBase<NpuScheduleKernelsPass> {
  void runOnOperation() override {
    FailureOr<CallOrder> order =
        getCallOrder(getOperation(), "npu-schedule-kernels");
    if (failed(order))
      return signalPassFailure();
    bool anyKernel = false;
    getOperation().walk([&](KernelOp) { anyKernel = true; });
    if (!anyKernel) {
      mlir::emitError(
          getOperation().getLoc(),
          "npu-schedule-kernels: the module has no npu.kernel to schedule (an "
          "empty module, or a model with no layers)");
      return signalPassFailure();
    }
    FunctionScheduler scheduler(*order);
    for (func::FuncOp func : order->calleesFirst)
      if (failed(scheduler.schedule(func)))
        return signalPassFailure();
  }
};
} // namespace
