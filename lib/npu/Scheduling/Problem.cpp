//===- Problem.cpp - Scheduling problem construction and check() ----------===//
//
// check(): is the problem well formed. verify() lives in Verify.cpp.
//
//===----------------------------------------------------------------------===//

#include "npu/Scheduling/Problem.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <queue>

using namespace mlir::npu::sched;

static llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

ResourceId Problem::addResource(llvm::StringRef name, int64_t count) {
  resources.push_back({name.str(), count});
  return {static_cast<unsigned>(resources.size() - 1)};
}

OpId Problem::addOperation(llvm::StringRef name, ResourceId resource,
                           Time latency) {
  return addPipelinedOperation(name, resource, latency, latency);
}

OpId Problem::addPipelinedOperation(llvm::StringRef name, ResourceId resource,
                                    Time latency, Time occupancy) {
  operations.push_back({name.str(), resource, latency, occupancy});
  return {static_cast<unsigned>(operations.size() - 1)};
}

void Problem::addDependence(OpId from, OpId to, Time delay) {
  dependences.push_back({from, to, delay});
}

std::string Problem::describe(OpId op) const {
  if (op.index >= operations.size())
    return llvm::formatv("#{0} (no such operation)", op.index).str();
  return llvm::formatv("'{0}' (#{1})", operations[op.index].name, op.index)
      .str();
}

llvm::Error Problem::check() const {
  llvm::StringSet<> names;
  for (const Resource &r : resources) {
    if (!names.insert(r.name).second)
      return fail("resource '" + r.name + "' is declared twice");
    if (r.count < 1)
      return fail(llvm::formatv("resource '{0}' has {1} units; at least 1 is "
                                "required",
                                r.name, r.count));
  }

  // Every start and end time an algorithm computes is at most the sum of all
  // latencies and delays (a longest path, plus waits for units that are each
  // a latency of some other operation), so checking this sum once makes all
  // later arithmetic overflow-free.
  Time total = 0;
  for (unsigned i = 0, e = operations.size(); i < e; ++i) {
    const OpInfo &op = operations[i];
    if (op.resource.index >= resources.size())
      return fail(llvm::formatv("operation {0} uses resource #{1}, but the "
                                "problem has {2} resources",
                                describe({i}), op.resource.index,
                                resources.size()));
    if (op.latency < 0)
      return fail(llvm::formatv("operation {0} has negative latency {1}",
                                describe({i}), op.latency));
    if (op.occupancy < 0 || op.occupancy > op.latency)
      return fail(llvm::formatv("operation {0} has occupancy {1} outside "
                                "[0, latency = {2}]",
                                describe({i}), op.occupancy, op.latency));
    if (llvm::AddOverflow(total, op.latency, total))
      return fail("the sum of all latencies and delays overflows Time");
  }

  for (const Dependence &d : dependences) {
    if (d.from.index >= operations.size() || d.to.index >= operations.size())
      return fail(llvm::formatv("dependence {0} -> {1} refers to an operation "
                                "that does not exist ({2} operations)",
                                describe(d.from), describe(d.to),
                                operations.size()));
    if (d.delay < 0)
      return fail(llvm::formatv("dependence {0} -> {1} has negative delay {2}",
                                describe(d.from), describe(d.to), d.delay));
    if (llvm::AddOverflow(total, d.delay, total))
      return fail("the sum of all latencies and delays overflows Time");
  }
  return checkCycles();
}

/// Iterative depth-first search with three colours; a back edge closes a
/// cycle, which is reported along the DFS stack.
llvm::Error Problem::checkCycles() const {
  size_t n = operations.size();
  std::vector<std::vector<unsigned>> succs(n);
  for (const Dependence &d : dependences)
    succs[d.from.index].push_back(d.to.index);

  enum Colour : uint8_t { White, Grey, Black };
  std::vector<Colour> colour(n, White);
  // (operation, index of the next successor to visit)
  std::vector<std::pair<unsigned, size_t>> stack;
  for (unsigned root = 0; root < n; ++root) {
    if (colour[root] != White)
      continue;
    stack.push_back({root, 0});
    colour[root] = Grey;
    while (!stack.empty()) {
      auto &[op, next] = stack.back();
      if (next == succs[op].size()) {
        colour[op] = Black;
        stack.pop_back();
        continue;
      }
      unsigned succ = succs[op][next++];
      if (colour[succ] == White) {
        colour[succ] = Grey;
        stack.push_back({succ, 0});
        continue;
      }
      if (colour[succ] == Black)
        continue;
      // Back edge op -> succ: the cycle is succ ... op -> succ on the stack.
      std::string path;
      bool inCycle = false;
      for (auto &frame : stack) {
        inCycle |= frame.first == succ;
        if (inCycle)
          path += describe({frame.first}) + " -> ";
      }
      path += describe({succ});
      return fail("dependence cycle: " + path);
    }
  }
  return llvm::Error::success();
}

std::vector<OpId> Problem::getTopologicalOrder() const {
  // Kahn's algorithm with a min-heap, so that ties go to the smaller id.
  size_t n = operations.size();
  std::vector<std::vector<unsigned>> succs(n);
  std::vector<unsigned> indegree(n, 0);
  for (const Dependence &d : dependences) {
    succs[d.from.index].push_back(d.to.index);
    ++indegree[d.to.index];
  }
  std::priority_queue<unsigned, std::vector<unsigned>, std::greater<>> ready;
  for (unsigned i = 0; i < n; ++i)
    if (indegree[i] == 0)
      ready.push(i);
  std::vector<OpId> order;
  order.reserve(n);
  while (!ready.empty()) {
    unsigned op = ready.top();
    ready.pop();
    order.push_back({op});
    for (unsigned s : succs[op])
      if (--indegree[s] == 0)
        ready.push(s);
  }
  assert(order.size() == n && "getTopologicalOrder() on a cyclic problem");
  return order;
}
