//===- npu-sweep.cpp - price workloads on a grid of target variants -------===//
//
//   npu-sweep spec.json [--format=csv|json] [--shard=I/N] [-o FILE]
//   npu-sweep --merge shard0.csv shard1.csv ... [-o FILE]
//
// docs/sweep.md: the spec, the columns, sharding over machines.
//
//===----------------------------------------------------------------------===//

#include "npu/InitAll.h"
#include "npu/Support/InputFiles.h"
#include "npu/Support/OutputFiles.h"
#include "npu/Sweep/Sweep.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"

#include <thread>

using namespace mlir;
using namespace mlir::npu;
using llvm::cl::opt;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory cat("npu-sweep options");
cl::list<std::string> inputs(cl::Positional,
                             cl::desc("<spec.json> | --merge <shard.csv>..."),
                             cl::cat(cat));
opt<std::string> output("o", cl::desc("output file (default: stdout)"),
                        cl::init("-"), cl::cat(cat));
opt<std::string> format("format", cl::desc("csv or json"), cl::init("csv"),
                        cl::cat(cat));
opt<std::string> shard("shard",
                       cl::desc("I/N: price only the points whose index is "
                                "I modulo N (0 <= I < N)"),
                       cl::init("0/1"), cl::cat(cat));
opt<bool> merge("merge", cl::desc("merge the CSVs of a sweep's shards"),
                cl::cat(cat));
opt<bool> listPoints("list", cl::desc("print the points, do not price them"),
                     cl::cat(cat));
opt<unsigned> jobs("j",
                   cl::desc("points priced at once, each on a thread with "
                            "its own context (default: the cores)"),
                   cl::init(0), cl::cat(cat));

int fail(const llvm::Twine &msg) {
  llvm::errs() << "npu-sweep: error: " << msg << "\n";
  return 1;
}

int run(const DialectRegistry &registry) {
  OutputTransaction outputs;
  std::string error;
  if (merge) {
    if (inputs.empty())
      return fail("--merge needs the shards' CSV files");
    raw_ostream *os = outputs.open(output, error);
    if (!os)
      return fail(error);
    if (llvm::Error e = sweep::mergeCsv(inputs, *os))
      return fail(llvm::toString(std::move(e)));
    return succeeded(outputs.commit(error)) ? 0 : fail(error);
  }
  if (inputs.size() != 1)
    return fail("one sweep spec (a JSON file) is needed");
  if (format != "csv" && format != "json")
    return fail("--format must be csv or json, got '" + format + "'");
  auto [i, n] = StringRef(shard).split('/');
  int64_t shardIndex, shardCount;
  if (i.getAsInteger(10, shardIndex) || n.getAsInteger(10, shardCount) ||
      shardCount < 1 || shardIndex < 0 || shardIndex >= shardCount)
    return fail("--shard must be I/N with 0 <= I < N, got '" + shard + "'");
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> text =
      readInputFile(inputs.front(), kMaxJsonBytes);
  if (!text)
    return fail(llvm::toString(text.takeError()));
  llvm::Expected<sweep::SweepSpec> spec =
      sweep::parseSweepSpec((*text)->getBuffer(), inputs.front());
  if (!spec)
    return fail(llvm::toString(spec.takeError()));
  std::vector<sweep::SweepPoint> points;
  for (sweep::SweepPoint &p : sweep::expandPoints(*spec))
    if (p.index % shardCount == shardIndex)
      points.push_back(std::move(p));
  raw_ostream *os = outputs.open(output, error);
  if (!os)
    return fail(error);
  if (listPoints) {
    for (const sweep::SweepPoint &p : points)
      *os << p.index << " " << p.workload->name << " " << p.target << "\n";
  } else {
    unsigned threads = jobs ? unsigned(jobs)
                            : std::max(1u, std::thread::hardware_concurrency());
    llvm::Expected<std::vector<sweep::SweepRow>> rows =
        sweep::runSweep(registry, points, threads);
    if (!rows)
      return fail(llvm::toString(rows.takeError()));
    if (format == "csv")
      sweep::writeCsv(*os, *spec, *rows);
    else
      sweep::writeJson(*os, *spec, *rows);
  }
  return succeeded(outputs.commit(error)) ? 0 : fail(error);
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "npu-sweep: price workloads on every variant of a grid of target "
      "fields\n");
  DialectRegistry registry;
  npu::registerAllDialects(registry);
  return run(registry);
}
