//===- npu-system.cpp - systems of several chips and their collectives ----===//
//
//   npu-system --list [--json]             one row per system
//   npu-system <name-or-path> [--json]     the mesh: axes, levels, links
//   npu-system <name-or-path> --collective=all_reduce --bytes=1GiB[,4MiB...]
//              [--over=x,y] [--json]       one collective's time, by phase
//              [--routed=E:k[:G:g]]        an expert-parallel all_to_all:
//                                          --bytes is one copy of a chip's
//                                          tokens, sent once per chip that
//                                          holds one of a token's k experts
//
// Systems are looked up in --system-dir, else <target dir>/systems; their
// chips in --target-dir, else $NPU_TARGET_DIR, else the source tree's
// npu-target/. docs/collectives.md derives every formula. On any error: the
// message on stderr, exit code 1, nothing on stdout.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Parallel/Collectives.h"
#include "npu/Parallel/ParallelMap.h"
#include "npu/Support/FormatReal.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::target;
using namespace mlir::npu::parallel;

static llvm::cl::opt<std::string> systemArg(llvm::cl::Positional,
                                            llvm::cl::desc("<name-or-path>"),
                                            llvm::cl::init(""));
static llvm::cl::opt<bool> listOpt("list",
                                   llvm::cl::desc("one table row per system"));
static llvm::cl::opt<bool> jsonOpt("json", llvm::cl::desc("print JSON"));
static llvm::cl::opt<std::string>
    systemDirOpt("system-dir", llvm::cl::desc("directory of the system files"),
                 llvm::cl::init(""));
static llvm::cl::opt<std::string>
    targetDirOpt("target-dir", llvm::cl::desc("directory of the chip files"),
                 llvm::cl::init(""));
static llvm::cl::opt<std::string> collectiveOpt(
    "collective",
    llvm::cl::desc("all_reduce, all_gather, reduce_scatter, all_to_all or "
                   "send_recv (nccl-tests' size conventions)"),
    llvm::cl::init(""));
static llvm::cl::opt<std::string> bytesOpt(
    "bytes",
    llvm::cl::desc("sizes, comma-separated, each with an optional unit "
                   "(B, KB, MB, GB, KiB, MiB, GiB)"),
    llvm::cl::init(""));
static llvm::cl::opt<std::string> algorithmOpt(
    "algorithm",
    llvm::cl::desc("all_reduce on a switch: fastest (default), ring, tree or "
                   "in_switch (as NCCL_ALGO forces one)"),
    llvm::cl::init("fastest"));
static llvm::cl::opt<std::string> routedOpt(
    "routed",
    llvm::cl::desc("all_to_all of a MoE dispatch or combine: "
                   "<experts>:<top_k>[:<n_group>:<topk_group>]; --bytes is "
                   "one copy of the chip's tokens, and each token goes once "
                   "to every chip holding one of its experts (the expected "
                   "count under balanced routing, docs/parallelism.md)"),
    llvm::cl::init(""));
static llvm::cl::opt<std::string>
    overOpt("over",
            llvm::cl::desc("axes the collective spans, comma-separated "
                           "(default: all)"),
            llvm::cl::init(""));

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// "1GiB" -> 1073741824; a whole number of bytes below 2^53 (exact in a
/// double).
llvm::Expected<double> parseSize(StringRef text) {
  StringRef digits = text.take_while(llvm::isDigit);
  StringRef unit = text.drop_front(digits.size());
  static const std::pair<StringRef, uint64_t> units[] = {{"", 1},
                                                         {"B", 1},
                                                         {"KB", 1000},
                                                         {"MB", 1000000},
                                                         {"GB", 1000000000},
                                                         {"KiB", 1ull << 10},
                                                         {"MiB", 1ull << 20},
                                                         {"GiB", 1ull << 30}};
  uint64_t value = 0;
  if (digits.empty() || digits.getAsInteger(10, value))
    return fail("size '" + text + "' is not a whole number of bytes");
  for (const auto &[name, scale] : units) {
    if (unit != name)
      continue;
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(value, scale, &bytes) || bytes >= (1ull << 53))
      return fail("size '" + text + "' is 2^53 bytes or more");
    if (bytes == 0)
      return fail("size '" + text + "' must be above 0");
    return static_cast<double>(bytes);
  }
  return fail("size '" + text + "' has an unknown unit '" + unit +
              "' (B, KB, MB, GB, KiB, MiB, GiB)");
}

/// --routed=E:k[:G:g] over the collective's group: the chips (and nodes)
/// a token's copies reach on average.
llvm::Expected<RoutedDestinations>
parseRouted(const System &system, const std::vector<std::string> &axes,
            CollectiveKind kind) {
  if (kind != CollectiveKind::AllToAll)
    return fail("--routed prices an all_to_all (a MoE dispatch or combine)");
  llvm::SmallVector<StringRef> fields;
  StringRef(routedOpt).split(fields, ':');
  int64_t v[4] = {0, 0, 1, 1};
  if (fields.size() != 2 && fields.size() != 4)
    return fail("--routed='" + routedOpt +
                "': expected <experts>:<top_k>[:<n_group>:<topk_group>]");
  for (auto [i, field] : llvm::enumerate(fields))
    if (field.getAsInteger(10, v[i]) || v[i] < 1 || v[i] > (1 << 20))
      return fail("--routed='" + routedOpt + "': '" + field +
                  "' is not a whole number from 1 to 2^20");
  auto [experts, topK, groups, topkGroups] = std::tuple(v[0], v[1], v[2], v[3]);
  if (std::string why = checkRoutingGroups(experts, topK, groups, topkGroups);
      !why.empty())
    return fail("--routed='" + routedOpt + "': " + why);
  return routedDestinations(system, axes, experts, topK, groups, topkGroups);
}

void printSystem(llvm::raw_ostream &os, const System &system) {
  os << system.name << ": " << system.getChipCount() << " x "
     << system.chip.attr.getName() << " (" << system.getShapeString()
     << "): " << system.description << "\n";
  os << "file: " << system.path << "\n\n";
  os << llvm::formatv("{0,-8} {1,5} {2,-9} {3,-8} {4,-10} {5,6} {6,14} {7,11} "
                      "{8,10}\n",
                      "axis", "size", "level", "topology", "wraparound",
                      "links", "link_GB/s/dir", "chip_GB/s/dir", "latency_ns");
  // chip_GB/s/dir: all links, one direction, at the sustained rate.
  for (const SystemAxis &axis : system.axes) {
    const LinkLevel &level = system.getLevel(axis);
    os << llvm::formatv(
        "{0,-8} {1,5} {2,-9} {3,-8} {4,-10} {5,6} {6,14} {7,11} {8,10}\n",
        axis.name, axis.size, axis.scaleOut ? kScaleOut : kScaleUp,
        stringifyLinkTopology(level.topology), axis.wraparound ? "yes" : "no",
        level.linksPerChip, formatReal(level.linkBytesPerSPerDirection / 1e9),
        formatReal(level.chipBytesPerSPerDirection() / 1e9),
        formatReal(level.latencyNs));
  }
  for (const auto &[key, text] : system.sources)
    os << "\nsource of " << key << ": " << text;
  os << "\n";
}

/// Six significant digits (formatSignificant).
std::string num(double v) { return formatSignificant(v, 6); }
/// Bytes, to the byte.
std::string bytes(double value) {
  return llvm::formatv("{0}", llvm::format("%.0f", value)).str();
}

void printCost(llvm::raw_ostream &os, const CollectiveCost &cost) {
  os << llvm::formatv(
      "{0} of {1} bytes over {2} chips: {3} us = bandwidth "
      "{4} us + latency {5} us (base {6} us); algbw {7} GB/s, "
      "busbw {8} GB/s\n",
      stringifyCollectiveKind(cost.kind), bytes(cost.bytes), cost.chips,
      num(cost.seconds * 1e6), num(cost.bandwidthSeconds * 1e6),
      num(cost.latencySeconds * 1e6), num(cost.baseLatencySeconds * 1e6),
      num(cost.algorithmBytesPerS() / 1e9), num(cost.busBytesPerS() / 1e9));
  const char *row = "  {0,-9} {1,-14} {2,-6} {3,5} {4,12} {5,12} {6,12} {7,5} "
                    "{8,10}  {9}\n";
  os << llvm::formatv(row, "level", "phase", "axes", "chips", "bytes",
                      "link_bytes", "bandwidth_us", "steps", "latency_us",
                      "algorithm");
  for (const CollectivePhase &p : cost.phases)
    os << llvm::formatv(row, p.level, p.what, p.axes, p.chips, bytes(p.bytes),
                        bytes(p.linkBytes), num(p.bandwidthSeconds * 1e6),
                        p.steps, num(p.latencySeconds * 1e6), p.algorithm);
}

int run(MLIRContext &context, llvm::raw_ostream &os) {
  auto report = [](llvm::Error e) {
    llvm::errs() << "error: " << llvm::toString(std::move(e)) << "\n";
    return 1;
  };
  if (listOpt == !systemArg.empty()) {
    llvm::errs() << "error: give either --list or one system name or path\n";
    return 1;
  }
  if (listOpt) {
    std::string dir =
        systemDirOpt.empty() ? getDefaultSystemDir() : systemDirOpt.getValue();
    llvm::Expected<std::vector<std::string>> names = listTargets(dir);
    if (!names)
      return report(names.takeError());
    llvm::json::Array array;
    if (!jsonOpt)
      os << llvm::formatv("{0,-20} {1,-10} {2,6} {3,-10} {4}\n", "name", "chip",
                          "chips", "shape", "scale-up");
    for (const std::string &name : *names) {
      llvm::Expected<System> system =
          loadSystem(&context, name, dir, targetDirOpt);
      if (!system)
        return report(system.takeError());
      if (jsonOpt) {
        array.push_back(toJSON(*system));
        continue;
      }
      os << llvm::formatv(
          "{0,-20} {1,-10} {2,6} {3,-10} {4}\n", system->name,
          system->chip.attr.getName(), system->getChipCount(),
          system->getShapeString(),
          stringifyLinkTopology(system->chip.interconnect->scaleUp.topology));
    }
    if (jsonOpt)
      os << llvm::formatv("{0:2}\n", llvm::json::Value(std::move(array)));
    return 0;
  }

  llvm::Expected<System> system =
      loadSystem(&context, systemArg, systemDirOpt, targetDirOpt);
  if (!system)
    return report(system.takeError());
  if (collectiveOpt.empty() != bytesOpt.empty()) {
    llvm::errs() << "error: --collective and --bytes go together\n";
    return 1;
  }
  if (collectiveOpt.empty()) {
    if (jsonOpt)
      os << llvm::formatv("{0:2}\n", toJSON(*system));
    else
      printSystem(os, *system);
    return 0;
  }
  std::optional<CollectiveKind> kind = symbolizeCollectiveKind(collectiveOpt);
  if (!kind)
    return report(fail("unknown collective '" + collectiveOpt +
                       "' (all_reduce, all_gather, reduce_scatter, "
                       "all_to_all, send_recv)"));
  std::optional<SwitchAlgorithm> algorithm =
      symbolizeSwitchAlgorithm(algorithmOpt);
  if (!algorithm)
    return report(fail("unknown algorithm '" + algorithmOpt +
                       "' (fastest, ring, tree, in_switch)"));
  std::vector<std::string> axes;
  if (!overOpt.empty())
    for (StringRef axis : llvm::split(overOpt.getValue(), ','))
      axes.push_back(axis.trim().str());
  // Each token's copies go to this many of the group's chips (and nodes).
  RoutedDestinations routed{1, 0};
  if (!routedOpt.empty()) {
    llvm::Expected<RoutedDestinations> d = parseRouted(*system, axes, *kind);
    if (!d)
      return report(d.takeError());
    routed = *d;
  }
  double destinations = routed.chips;
  llvm::json::Array array;
  for (StringRef text : llvm::split(bytesOpt.getValue(), ',')) {
    llvm::Expected<double> size = parseSize(text.trim());
    if (!size)
      return report(size.takeError());
    llvm::Expected<CollectiveCost> cost =
        priceCollective(*system, *kind, axes, *size * destinations, *algorithm,
                        *size * routed.nodes);
    if (!cost)
      return report(cost.takeError());
    if (jsonOpt) {
      llvm::json::Value value = toJSON(*cost);
      if (!routedOpt.empty()) {
        (*value.getAsObject())["destinations"] = destinations;
        if (routed.nodes > 0)
          (*value.getAsObject())["node_destinations"] = routed.nodes;
      }
      array.push_back(std::move(value));
      continue;
    }
    if (!routedOpt.empty())
      os << "routed: each token reaches " << num(destinations) << " of "
         << cost->chips << " chips on average: V = " << bytes(*size) << " x "
         << num(destinations) << "\n";
    if (routed.nodes > 0)
      os << "  and " << num(routed.nodes)
         << " nodes, once each: the scale-out level moves "
         << bytes(*size * routed.nodes) << "\n";
    printCost(os, *cost);
  }
  if (jsonOpt)
    os << llvm::formatv("{0:2}\n", llvm::json::Value(std::move(array)));
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "npu-system: systems of several chips, and the time of their "
      "collectives\n");
  MLIRContext context;
  context.getOrLoadDialect<NpuDialect>();
  // Print only when nothing failed.
  std::string out;
  llvm::raw_string_ostream os(out);
  int code = run(context, os);
  if (code == 0)
    llvm::outs() << out;
  return code;
}
