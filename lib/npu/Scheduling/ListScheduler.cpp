//===- ListScheduler.cpp - ASAP and resource-constrained list scheduling --===//
//
// No arithmetic here can overflow: check() bounds the sum of all latencies and
// delays, and every time computed is at most that sum (see Problem.cpp).
//
//===----------------------------------------------------------------------===//

#include "npu/Scheduling/Algorithms.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <limits>
#include <queue>

using namespace mlir::npu::sched;

namespace {
/// Outgoing dependences per operation: (successor, delay).
using SuccessorLists = std::vector<std::vector<std::pair<unsigned, Time>>>;

SuccessorLists buildSuccessors(const Problem &problem) {
  SuccessorLists succs(problem.getNumOperations());
  for (const Dependence &d : problem.getDependences())
    succs[d.from.index].push_back({d.to.index, d.delay});
  return succs;
}
} // namespace

llvm::Expected<Schedule>
mlir::npu::sched::scheduleASAP(const Problem &problem) {
  if (llvm::Error err = problem.check())
    return err;
  SuccessorLists succs = buildSuccessors(problem);
  std::vector<Time> earliest(problem.getNumOperations(), 0);
  Schedule schedule(problem.getNumOperations());
  for (OpId op : problem.getTopologicalOrder()) {
    Time start = earliest[op.index];
    schedule.setStart(op, start);
    Time end = start + problem.getOperation(op).latency;
    for (auto [succ, delay] : succs[op.index])
      earliest[succ] = std::max(earliest[succ], end + delay);
  }
  return schedule;
}

std::vector<Time>
mlir::npu::sched::computeCriticalPathPriorities(const Problem &problem) {
  SuccessorLists succs = buildSuccessors(problem);
  std::vector<OpId> order = problem.getTopologicalOrder();
  std::vector<Time> priority(problem.getNumOperations(), 0);
  for (OpId op : llvm::reverse(order)) {
    Time tail = 0;
    for (auto [succ, delay] : succs[op.index])
      tail = std::max(tail, delay + priority[succ]);
    priority[op.index] = problem.getOperation(op).latency + tail;
  }
  return priority;
}

llvm::Expected<Schedule>
mlir::npu::sched::scheduleList(const Problem &problem) {
  if (llvm::Error err = problem.check())
    return err;
  size_t numOps = problem.getNumOperations();
  size_t numResources = problem.getResources().size();
  SuccessorLists succs = buildSuccessors(problem);
  std::vector<Time> priority = computeCriticalPathPriorities(problem);

  std::vector<unsigned> unscheduledPreds(numOps, 0);
  for (const Dependence &d : problem.getDependences())
    ++unscheduledPreds[d.to.index];
  std::vector<Time> earliest(numOps, 0);

  // Operations whose predecessors are all scheduled, by (earliest start, id).
  using Pending = std::pair<Time, unsigned>;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending;
  for (unsigned i = 0; i < numOps; ++i)
    if (unscheduledPreds[i] == 0)
      pending.push({0, i});

  // Per resource: operations that may start now, highest priority on top
  // (ties to the smaller id), and the release times of the busy units.
  auto lowerPriority = [&](unsigned a, unsigned b) {
    return priority[a] != priority[b] ? priority[a] < priority[b] : a > b;
  };
  using ReadyQueue = std::priority_queue<unsigned, std::vector<unsigned>,
                                         decltype(lowerPriority)>;
  std::vector<ReadyQueue> ready(numResources, ReadyQueue(lowerPriority));
  using ReleaseQueue =
      std::priority_queue<Time, std::vector<Time>, std::greater<>>;
  std::vector<ReleaseQueue> busy(numResources);

  Schedule schedule(numOps);
  size_t numScheduled = 0;
  auto start = [&](unsigned op, Time now) {
    const OpInfo &info = problem.getOperation({op});
    schedule.setStart({op}, now);
    ++numScheduled;
    if (info.occupancy > 0)
      busy[info.resource.index].push(now + info.occupancy);
    for (auto [succ, delay] : succs[op]) {
      earliest[succ] = std::max(earliest[succ], now + info.latency + delay);
      if (--unscheduledPreds[succ] == 0)
        pending.push({earliest[succ], succ});
    }
  };

  Time now = 0;
  while (numScheduled < numOps) {
    // Start everything that can start now. Starting an operation of latency
    // and delay 0 readies its successors at the same time, hence the loop.
    for (bool progress = true; progress;) {
      progress = false;
      while (!pending.empty() && pending.top().first <= now) {
        unsigned op = pending.top().second;
        pending.pop();
        // An operation that holds no unit never waits for one.
        if (problem.getOperation({op}).occupancy == 0) {
          start(op, now);
          progress = true;
          continue;
        }
        ready[problem.getOperation({op}).resource.index].push(op);
      }
      for (unsigned r = 0; r < numResources; ++r) {
        int64_t units = problem.getResources()[r].count;
        while (!busy[r].empty() && busy[r].top() <= now)
          busy[r].pop();
        while (!ready[r].empty()) {
          if (static_cast<int64_t>(busy[r].size()) >= units)
            break;
          unsigned op = ready[r].top();
          ready[r].pop();
          start(op, now);
          progress = true;
        }
      }
    }
    if (numScheduled == numOps)
      break;
    // Advance to the next event that can let an operation start: one becomes
    // ready, or a unit is released on a resource that has waiting operations.
    Time next = std::numeric_limits<Time>::max();
    if (!pending.empty())
      next = pending.top().first;
    for (unsigned r = 0; r < numResources; ++r)
      if (!ready[r].empty())
        next = std::min(next, busy[r].top());
    assert(next > now && next != std::numeric_limits<Time>::max() &&
           "no event ahead in a checked (acyclic) problem");
    now = next;
  }
  return schedule;
}
