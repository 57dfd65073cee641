//===- Algorithms.h - Scheduling algorithms ---------------------*- C++ -*-===//
//
// Free functions over a Problem (Problem.h), as in CIRCT. Each one calls
// check() first and returns its error unchanged, so a client needs a single
// call; each documents the contract its result satisfies.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SCHEDULING_ALGORITHMS_H
#define NPU_SCHEDULING_ALGORITHMS_H

#include "npu/Scheduling/Problem.h"

namespace mlir::npu::sched {

/// As-soon-as-possible start times, ignoring resource limits: every operation
/// starts when its last predecessor's latency and delay have elapsed. The
/// result passes verifyPrecedence() but not necessarily verify(); its makespan
/// is the critical path length, a lower bound on every valid schedule's.
/// O(V + E).
llvm::Expected<Schedule> scheduleASAP(const Problem &problem);

/// For each operation, the length of the longest path from its start to the
/// end of any sink: its latency plus, over its successors, the maximum of
/// delay + that successor's priority. The list scheduler's priority.
/// Requires a problem that passed check(). O(V + E).
std::vector<Time> computeCriticalPathPriorities(const Problem &problem);

/// Resource-constrained list scheduling (the "parallel" schedule generation
/// scheme). Time advances from event to event; at each time, every resource
/// gives its free units to the ready operations (all predecessors scheduled,
/// earliest start reached) in order of decreasing critical-path priority,
/// ties to the smaller id. Never leaves a unit idle while an operation that
/// could use it is ready. The result always passes verify().
/// O((V + E) log V + V * R) for V operations, E dependences, R resources.
llvm::Expected<Schedule> scheduleList(const Problem &problem);

} // namespace mlir::npu::sched

#endif // NPU_SCHEDULING_ALGORITHMS_H
