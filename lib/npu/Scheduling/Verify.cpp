//===- Verify.cpp - Is a schedule a valid solution of its problem ---------===//
//
// verify() and verifyPrecedence(). Both assume a problem that passed check()
// and take the schedule from an untrusted source: start times are checked for
// overflow before any addition.
//
//===----------------------------------------------------------------------===//

#include "npu/Scheduling/Problem.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <tuple>

using namespace mlir::npu::sched;

static llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Expected<Time> Problem::verifyPrecedence(const Schedule &schedule) const {
  if (schedule.size() != operations.size())
    return fail(llvm::formatv("the schedule has {0} entries for {1} operations",
                              schedule.size(), operations.size()));
  Time makespan = 0;
  for (unsigned i = 0, e = operations.size(); i < e; ++i) {
    std::optional<Time> start = schedule.getStart({i});
    if (!start)
      return fail("operation " + describe({i}) + " is not scheduled");
    if (*start < 0)
      return fail(llvm::formatv("operation {0} starts at {1} < 0",
                                describe({i}), *start));
    Time end;
    if (llvm::AddOverflow(*start, operations[i].latency, end))
      return fail("operation " + describe({i}) + ": end time overflows");
    makespan = std::max(makespan, end);
  }
  for (const Dependence &d : dependences) {
    Time from = *schedule.getStart(d.from), to = *schedule.getStart(d.to);
    Time ready;
    if (llvm::AddOverflow(from + getOperation(d.from).latency, d.delay, ready))
      return fail("dependence " + describe(d.from) + " -> " + describe(d.to) +
                  ": ready time overflows");
    if (to < ready)
      return fail(llvm::formatv(
          "dependence {0} -> {1} violated: {1} starts at {2}, but {0} starts "
          "at {3} with latency {4} and the dependence has delay {5}, so the "
          "earliest start is {6}",
          describe(d.from), describe(d.to), to, from,
          getOperation(d.from).latency, d.delay, ready));
  }
  return makespan;
}

llvm::Expected<Time> Problem::verify(const Schedule &schedule) const {
  llvm::Expected<Time> makespan = verifyPrecedence(schedule);
  if (!makespan)
    return makespan.takeError();
  if (llvm::Error err = verifyCapacity(schedule))
    return err;
  return *makespan;
}

/// Sweep over the start and end events of every operation's occupancy, per
/// resource, in time order; at equal times releases come first, since an
/// occupancy is the half-open interval [start, start + occupancy).
/// O(n log n) in the number of operations.
llvm::Error Problem::verifyCapacity(const Schedule &schedule) const {
  struct Event {
    Time time;
    int delta; // -1: release, +1: acquire (sorts releases first)
    unsigned op;
  };
  std::vector<std::vector<Event>> events(resources.size());
  for (unsigned i = 0, e = operations.size(); i < e; ++i) {
    const OpInfo &op = operations[i];
    if (op.occupancy == 0)
      continue;
    Time start = *schedule.getStart({i});
    events[op.resource.index].push_back({start, +1, i});
    events[op.resource.index].push_back({start + op.occupancy, -1, i});
  }
  for (unsigned r = 0, e = resources.size(); r < e; ++r) {
    std::vector<Event> &evs = events[r];
    llvm::sort(evs, [](const Event &a, const Event &b) {
      return std::tie(a.time, a.delta, a.op) < std::tie(b.time, b.delta, b.op);
    });
    int64_t inUse = 0;
    std::vector<unsigned> active; // for the diagnostic only
    for (const Event &ev : evs) {
      inUse += ev.delta;
      if (ev.delta < 0) {
        active.erase(std::find(active.begin(), active.end(), ev.op));
        continue;
      }
      active.push_back(ev.op);
      if (inUse <= resources[r].count)
        continue;
      std::string users;
      for (unsigned op : active)
        users += (users.empty() ? "" : ", ") + describe({op});
      return fail(llvm::formatv("resource '{0}' has {1} units, but at time {2} "
                                "{3} operations occupy it: {4}",
                                resources[r].name, resources[r].count, ev.time,
                                inUse, users));
    }
  }
  return llvm::Error::success();
}
