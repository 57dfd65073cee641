//===- Problem.h - IR-independent static scheduling problems ----*- C++ -*-===//
//
// A static scheduling problem with shared, counted resources, modelled after
// CIRCT's lib/Scheduling: the problem is a plain C++ class with no IR
// dependency, `check()` says whether a problem is well formed before any
// algorithm runs, and `verify()` says whether a solution (a start time per
// operation) is valid. Algorithms are free functions (Algorithms.h).
//
// The model (docs/scheduling.md):
//  - a *resource* is a pool of `count` identical units (2 DMA engines, 1
//    matrix unit, 1 vector unit);
//  - an *operation* runs on one unit of its resource. It finishes `latency`
//    time units after it starts (its result is then available) and holds its
//    unit for the first `occupancy` of those units: occupancy == latency is a
//    non-pipelined unit, occupancy < latency a pipelined one that accepts the
//    next operation after `occupancy` (its initiation interval);
//  - a *dependence* from A to B with `delay` d means
//    start(B) >= start(A) + latency(A) + d.
//
// Time is an integer count of a unit chosen by the client. The TPU backend
// uses picoseconds, so that rounding a modelled latency costs at most 1 ps.
//
// The library links LLVMSupport only; it lives in mlir::npu::sched for the
// project's naming, not because it uses MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SCHEDULING_PROBLEM_H
#define NPU_SCHEDULING_PROBLEM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::npu::sched {

/// A point in time or a duration, in client-chosen units (see above).
using Time = int64_t;

/// Index of a resource in its problem, as returned by addResource().
struct ResourceId {
  unsigned index;
  bool operator==(ResourceId o) const { return index == o.index; }
};

/// Index of an operation in its problem, as returned by addOperation().
struct OpId {
  unsigned index;
  bool operator==(OpId o) const { return index == o.index; }
};

struct Resource {
  std::string name;
  /// Number of identical units; check() requires >= 1.
  int64_t count;
};

/// An operation of the problem (not an mlir::Operation).
struct OpInfo {
  std::string name;
  ResourceId resource;
  /// Time from start until the result is available; check() requires >= 0.
  Time latency;
  /// Time the operation holds its unit, from its start; 0 <= occupancy <=
  /// latency. Equal to latency for a non-pipelined unit.
  Time occupancy;
};

struct Dependence {
  OpId from;
  OpId to;
  /// Extra wait after `from` finishes; check() requires >= 0.
  Time delay;
};

/// A solution: an optional start time per operation, indexed by OpId.
class Schedule {
public:
  explicit Schedule(size_t numOps) : starts(numOps) {}
  void setStart(OpId op, Time t) { starts[op.index] = t; }
  std::optional<Time> getStart(OpId op) const { return starts[op.index]; }
  size_t size() const { return starts.size(); }

private:
  std::vector<std::optional<Time>> starts;
};

/// Construction never fails: any inconsistency (an unknown resource or
/// operation id, a negative latency, a cycle) is reported by check(), so that
/// a client can build a problem straight from its IR and get one diagnostic.
class Problem {
public:
  ResourceId addResource(llvm::StringRef name, int64_t count);
  /// Adds a non-pipelined operation (occupancy == latency).
  OpId addOperation(llvm::StringRef name, ResourceId resource, Time latency);
  /// Adds an operation that frees its unit after `occupancy`.
  OpId addPipelinedOperation(llvm::StringRef name, ResourceId resource,
                             Time latency, Time occupancy);
  void addDependence(OpId from, OpId to, Time delay = 0);

  llvm::ArrayRef<Resource> getResources() const { return resources; }
  llvm::ArrayRef<OpInfo> getOperations() const { return operations; }
  llvm::ArrayRef<Dependence> getDependences() const { return dependences; }
  const Resource &getResource(ResourceId r) const { return resources[r.index]; }
  const OpInfo &getOperation(OpId op) const { return operations[op.index]; }
  size_t getNumOperations() const { return operations.size(); }

  /// Succeeds iff the problem is well formed: resource names are unique and
  /// counts >= 1; every operation names an existing resource and has
  /// 0 <= occupancy <= latency; every dependence joins two existing
  /// operations with delay >= 0; the dependence graph is acyclic (the error
  /// lists one cycle); and the sum of all latencies and delays fits in Time,
  /// which bounds every start and end time any algorithm here computes.
  llvm::Error check() const;

  /// Returns the makespan (the latest end time, 0 for no operations) iff
  /// `schedule` is valid for this (checked) problem: every operation has a
  /// start time >= 0, every dependence holds, and at no instant do more
  /// operations occupy a resource than it has units. Occupancy is the
  /// half-open interval [start, start + occupancy).
  llvm::Expected<Time> verify(const Schedule &schedule) const;

  /// As verify(), without the resource limits: the contract of a relaxed
  /// schedule such as ASAP's lower bound.
  llvm::Expected<Time> verifyPrecedence(const Schedule &schedule) const;

  /// Operations in a topological order of the dependences (ties by id).
  /// Requires a problem that passed check().
  std::vector<OpId> getTopologicalOrder() const;

  /// "'name' (#id)", for diagnostics.
  std::string describe(OpId op) const;

private:
  llvm::Error checkCycles() const;
  llvm::Error verifyCapacity(const Schedule &schedule) const;

  std::vector<Resource> resources;
  std::vector<OpInfo> operations;
  std::vector<Dependence> dependences;
};

} // namespace mlir::npu::sched

#endif // NPU_SCHEDULING_PROBLEM_H
