//===- CallOrder.h - the functions a report prices, walked without recursion
//-*- C++ -*-===//
//
// Every report prices calls, and a callee may call others: the bill, the
// timeline (npu-schedule-kernels), npu-report-cost and npu-compare all need
// the functions callee-first and how many times each runs per step. One
// iterative walk serves them all, so every report counts a call nested k deep
// the same way, a chain of nested calls costs no stack, and the structure
// the reports rely on is checked once (docs/limits.md):
//  - a function body holds npu ops, calls and ops that do no work, in one
//    block: an op with regions (scf.for) or one that computes a tensor (a
//    linalg or arith op) would be priced zero times;
//  - a call to a function with no body (a host function that prints) is
//    priced as no work, with a warning;
//  - no call is recursive (self or mutual): a static program has no cost;
//  - calls nest at most kMaxCallDepth deep.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_ANALYSIS_CALLORDER_H
#define NPU_ANALYSIS_CALLORDER_H

#include "npu/Dialect/Npu/IR/NpuWork.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::npu {

/// The deepest chain of nested calls a report accepts (a model is two deep:
/// @model calls a layer). Deeper chains get a diagnostic at the call.
constexpr int64_t kMaxCallDepth = 1024;

struct CallOrder {
  /// The defined functions, every callee before its callers (module order
  /// where no call orders them).
  SmallVector<func::FuncOp> calleesFirst;
  /// The defined functions no function calls.
  SmallVector<func::FuncOp> roots;
  /// Call sites of each defined function (absent: none, a root).
  llvm::DenseMap<Operation *, int64_t> callSites;
  /// The calls in each function's body, in order.
  llvm::DenseMap<Operation *, SmallVector<func::CallOp>> calls;
  /// The callee of each call.
  llvm::DenseMap<Operation *, func::FuncOp> callee;
  /// How many times each function runs per run of the roots (each root
  /// once): the sum over its call sites of the caller's runs. Saturates
  /// (isOverflow) past 2^64.
  llvm::DenseMap<Operation *, Count> executions;

  Count getExecutions(func::FuncOp f) const {
    return executions.lookup(f.getOperation());
  }
  func::FuncOp getCallee(func::CallOp call) const {
    return callee.lookup(call.getOperation());
  }
  bool isRoot(func::FuncOp f) const {
    return !callSites.lookup(f.getOperation());
  }
};

/// Walks the call graph of `module` and checks its structure (above). On a
/// violation emits an error at the offending op, prefixed by `tool`, and
/// fails. With `root`, `executions` counts runs of `root` alone (functions
/// it does not reach run 0 times).
FailureOr<CallOrder> getCallOrder(ModuleOp module, StringRef tool,
                                  func::FuncOp root = {});

} // namespace mlir::npu

#endif // NPU_ANALYSIS_CALLORDER_H
