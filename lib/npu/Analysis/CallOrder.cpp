//===- CallOrder.cpp - the functions a report prices, walked iteratively --===//

#include "npu/Analysis/CallOrder.h"
#include "npu/Dialect/Npu/IR/NpuDialect.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::npu;

/// Whether `op` may sit in the body of a priced function: npu ops, calls
/// and the return are priced; other ops must do no work: no regions (their
/// ops would run an unknown number of times), and a tensor or memref result
/// only from a constant, a cast or view, or an op that creates one from
/// nothing (tensor.empty, memref.alloc). Scalar ops (an index from a tensor)
/// are host work and cost nothing here.
static bool isPricedStructure(Operation &op) {
  if (isa<NpuDialect>(op.getDialect()) || isa<func::CallOp, func::ReturnOp>(op))
    return true;
  if (op.getNumRegions())
    return false;
  if (llvm::none_of(op.getResultTypes(), llvm::IsaPred<ShapedType>))
    return true;
  if (op.hasTrait<mlir::OpTrait::ConstantLike>() || isa<CastOpInterface>(op) ||
      isa<ViewLikeOpInterface>(op))
    return true;
  // Creates a tensor or buffer from sizes only.
  return llvm::none_of(op.getOperandTypes(), llvm::IsaPred<ShapedType>) &&
         (isPure(&op) || hasSingleEffect<MemoryEffects::Allocate>(&op));
}

FailureOr<CallOrder> mlir::npu::getCallOrder(ModuleOp module, StringRef tool,
                                             func::FuncOp root) {
  CallOrder order;
  SymbolTable symbols(module);
  SmallVector<func::FuncOp> funcs;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal())
      funcs.push_back(f);
  llvm::DenseSet<Attribute> warnedExternal;
  for (func::FuncOp f : funcs) {
    if (!f.getBody().hasOneBlock())
      return emitError(f.getLoc())
             << tool << ": @" << f.getSymName()
             << " has more than one block: only straight-line bodies of npu "
                "ops and calls are priced";
    SmallVector<func::CallOp> &calls = order.calls[f];
    for (Operation &op : f.getBody().front()) {
      if (!isPricedStructure(op))
        return emitError(op.getLoc())
               << tool << ": '" << op.getName() << "' in @" << f.getSymName()
               << " is not priced: the reports price npu ops and calls, and "
                  "would count "
               << (op.getNumRegions() ? "the ops in its regions"
                                      : "the work it does")
               << " zero times (express it with npu ops)";
      auto call = dyn_cast<func::CallOp>(op);
      if (!call)
        continue;
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee || callee.isExternal()) {
        // A host function (a test harness prints its result): no device
        // work, said once per callee.
        if (warnedExternal.insert(call.getCalleeAttr().getAttr()).second)
          emitWarning(call.getLoc())
              << tool << ": @" << call.getCallee()
              << " has no body: a call to it is priced as no work";
        continue;
      }
      order.callee[call] = callee;
      calls.push_back(call);
      ++order.callSites[callee];
    }
  }

  // Depth-first, with an explicit stack: callees first, cycles found on the
  // stack.
  enum class State { New, OnStack, Done };
  llvm::DenseMap<Operation *, State> state;
  struct Frame {
    func::FuncOp func;
    size_t next;
  };
  SmallVector<Frame> stack;
  for (func::FuncOp start : funcs) {
    if (state.lookup(start) != State::New)
      continue;
    stack.push_back({start, 0});
    state[start] = State::OnStack;
    while (!stack.empty()) {
      Frame &top = stack.back();
      ArrayRef<func::CallOp> calls = order.calls[top.func];
      if (top.next == calls.size()) {
        state[top.func] = State::Done;
        order.calleesFirst.push_back(top.func);
        stack.pop_back();
        continue;
      }
      func::CallOp call = calls[top.next++];
      func::FuncOp callee = order.callee[call];
      State s = state.lookup(callee);
      if (s == State::Done)
        continue;
      if (s == State::OnStack) {
        std::string cycle;
        auto it = llvm::find_if(
            stack, [&](const Frame &f) { return f.func == callee; });
        for (; it != stack.end(); ++it)
          cycle += ("@" + it->func.getSymName() + " -> ").str();
        cycle += ("@" + callee.getSymName()).str();
        return emitError(call.getLoc())
               << tool << ": recursive call (" << cycle
               << "): a recursive program has no static cost";
      }
      state[callee] = State::OnStack;
      stack.push_back({callee, 0});
    }
  }

  // The longest chain of calls below each function, callees first.
  llvm::DenseMap<Operation *, int64_t> depth;
  for (func::FuncOp f : order.calleesFirst) {
    int64_t &d = depth[f];
    for (func::CallOp call : order.calls[f]) {
      d = std::max(d, 1 + depth.lookup(order.callee[call]));
      if (d > kMaxCallDepth)
        return emitError(call.getLoc())
               << tool << ": calls nest more than " << kMaxCallDepth
               << " deep (the limit, docs/limits.md)";
    }
  }

  // Runs per step: callers before callees.
  for (func::FuncOp f : funcs)
    if (order.isRoot(f)) {
      order.roots.push_back(f);
      if (!root)
        order.executions[f] = Count(1);
    }
  if (root)
    order.executions[root] = Count(1);
  for (func::FuncOp f : llvm::reverse(order.calleesFirst)) {
    Count runs = order.executions.lookup(f);
    for (func::CallOp call : order.calls[f])
      order.executions[order.callee[call]] += runs;
  }
  return order;
}
