//===- npu-serve.cpp - serving simulation on both kinds of target --------===//
//
// Simulates a stream of requests served by a compile-time engine (static
// buckets, TPU-like) and a run-time engine (continuous batching over a
// paged KV cache, GPU-like), each step priced from programs the backends
// compiled once per shape (docs/serving.md). This file reads the options.
//
//   npu-serve --config=llama-3-8b.json --tpu=tpu-v7 --gpu=h200
//             --requests=1000 --rate=4 --prompt=longtail:1024:8192
//             --output=longtail:256:2048 [--rates=1,2,4,8 --svg=curve.svg]
//   npu-serve --costs=table.json --trace=trace.csv --steps
//
//===----------------------------------------------------------------------===//

#include "npu/InitAll.h"
#include "npu/Serve/CompiledTable.h"
#include "npu/Serve/Report.h"
#include "npu/Support/InputFiles.h"
#include "npu/Support/OutputFiles.h"
#include "npu/Target/System.h"

#include "npu/Compare/CompareInput.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::serve;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory cat("npu-serve options");
cl::opt<std::string> config("config",
                            cl::desc("Hugging Face config.json to compile"),
                            cl::cat(cat));
cl::opt<std::string> tpu("tpu", cl::desc("TPU-like chip (static engine)"),
                         cl::cat(cat));
cl::opt<std::string> gpu("gpu", cl::desc("GPU-like chip (continuous engine)"),
                         cl::cat(cat));
cl::list<std::string>
    costs("costs",
          cl::desc("a cost table (npu-serve-costs/1) instead of "
                   "compiling; may be given once per side"),
          cl::cat(cat));
cl::opt<std::string>
    tpuSystem("tpu-system",
              cl::desc("a system of TPU-like chips serving as one instance "
                       "(npu-target/systems), instead of --tpu"),
              cl::cat(cat));
cl::opt<std::string>
    gpuSystem("gpu-system",
              cl::desc("a system of GPU-like chips serving as one instance, "
                       "instead of --gpu"),
              cl::cat(cat));
cl::opt<std::string> split("split",
                           cl::desc("with a system: its tensor/pipeline split "
                                    "(default tp=<chips>)"),
                           cl::cat(cat));
cl::opt<std::string> tpuEngine("tpu-engine",
                               cl::desc("static (default: compiled buckets, "
                                        "as JetStream) or continuous (as "
                                        "vLLM on TPU)"),
                               cl::init("static"), cl::cat(cat));
cl::opt<std::string> gpuEngine("gpu-engine",
                               cl::desc("continuous (default) or static"),
                               cl::init("continuous"), cl::cat(cat));
cl::opt<std::string>
    emitCosts("emit-costs",
              cl::desc("write the compiled tables (a JSON array) here"),
              cl::cat(cat));
cl::opt<std::string> weightDType("weight-dtype",
                                 cl::desc("as npu-translate --weight-dtype"),
                                 cl::init("bf16"), cl::cat(cat));
cl::opt<std::string> actDType("act-dtype",
                              cl::desc("activations and KV cache: bf16, f16, "
                                       "f32 or fp8 (an fp8 KV cache)"),
                              cl::init("bf16"), cl::cat(cat));
cl::opt<std::string> traceFile("trace",
                               cl::desc("CSV trace: arrival_s,prompt_tokens,"
                                        "output_tokens per line"),
                               cl::cat(cat));
cl::opt<int64_t> requests("requests", cl::desc("requests to draw"),
                          cl::init(1000), cl::cat(cat));
cl::opt<double> rate("rate", cl::desc("mean arrivals per second"),
                     cl::init(1.0), cl::cat(cat));
cl::opt<std::string> rates("rates",
                           cl::desc("a sweep of rates, comma-separated: one "
                                    "curve point each"),
                           cl::cat(cat));
cl::opt<double> burstiness("burstiness",
                           cl::desc("gamma shape of inter-arrivals (1: "
                                    "Poisson, below 1: bursty)"),
                           cl::init(1.0), cl::cat(cat));
cl::opt<std::string> prompt("prompt", cl::desc("prompt length model"),
                            cl::init("longtail:1024:8192"), cl::cat(cat));
cl::opt<std::string> outputLen("output", cl::desc("output length model"),
                               cl::init("longtail:256:2048"), cl::cat(cat));
cl::opt<uint64_t> seed("seed", cl::desc("trace seed"), cl::init(0),
                       cl::cat(cat));
cl::opt<int64_t> maxBatchedTokens("max-batched-tokens",
                                  cl::desc("continuous: tokens per step"),
                                  cl::init(8192), cl::cat(cat));
cl::opt<int64_t> maxSeqs("max-seqs", cl::desc("continuous: sequences per step"),
                         cl::init(256), cl::cat(cat));
cl::opt<int64_t> blockSize("block-size",
                           cl::desc("continuous: tokens per KV block"),
                           cl::init(16), cl::cat(cat));
cl::opt<bool> chunkedPrefill("chunked-prefill",
                             cl::desc("continuous: chunk prompts and mix "
                                      "them with decodes"),
                             cl::init(true), cl::cat(cat));
cl::opt<bool> reserveContext(
    "reserve-context",
    cl::desc("continuous: admit a sequence only with the KV blocks of its "
             "whole context free, taken at once (TensorRT-LLM's "
             "GUARANTEED_NO_EVICT): no preemption"),
    cl::cat(cat));
cl::opt<std::string> speculative(
    "speculative",
    cl::desc("continuous: K:A, K drafted tokens per step each accepted with "
             "probability A (DeepSeek-V3 reports 0.85-0.9 for its MTP "
             "token); the drafter is the config's MTP module"),
    cl::cat(cat));
cl::opt<int64_t> slots("slots",
                       cl::desc("static: decode slots (0: the most, up to "
                                "256, a power of two, whose KV fits)"),
                       cl::init(0), cl::cat(cat));
cl::list<int64_t> prefillBuckets(
    "prefill-buckets",
    cl::desc("static: prompt buckets, comma-separated (default: powers of "
             "two from 128)"),
    cl::CommaSeparated, cl::cat(cat));
cl::list<int64_t> decodeBuckets(
    "decode-buckets",
    cl::desc("static: context buckets, comma-separated (default: powers of "
             "two from 512)"),
    cl::CommaSeparated, cl::cat(cat));
cl::opt<bool> raggedAttention(
    "ragged-attention",
    cl::desc("static: decode attention reads each slot's own KV (ragged "
             "kernel); off: every slot at the context bucket"),
    cl::init(true), cl::cat(cat));
cl::opt<int64_t> designBucketsOpt(
    "design-buckets",
    cl::desc("static: choose the buckets for the trace, greedily, up to this "
             "many programs (prefill and decode), and run the best"),
    cl::init(0), cl::cat(cat));
cl::opt<int64_t> prefillsPerStep("prefills-per-step",
                                 cl::desc("static: prefills between decodes"),
                                 cl::init(1), cl::cat(cat));
cl::opt<std::string> disaggregate(
    "disaggregate",
    cl::desc("P:D: prefill on P chips, decode on D others, the KV moved "
             "between them over the scale-up link"),
    cl::cat(cat));
cl::opt<double> kvLinkGBps("kv-link-gbps",
                           cl::desc("--disaggregate: the link's GB/s (default: "
                                    "the chip's scale-up link)"),
                           cl::init(0), cl::cat(cat));
cl::opt<double> memoryUtilization("memory-utilization",
                                  cl::desc("share of HBM the engine may use"),
                                  cl::init(0.9), cl::cat(cat));
cl::opt<double> ttftSlo("ttft-slo-ms", cl::desc("TTFT objective (ms)"),
                        cl::init(2000), cl::cat(cat));
cl::opt<double> tpotSlo("tpot-slo-ms", cl::desc("TPOT objective (ms)"),
                        cl::init(100), cl::cat(cat));
cl::opt<bool> checkInterp(
    "check-interpolation",
    cl::desc("compile the shapes between the table's points and print the "
             "error of the interpolated step times (with --config)"),
    cl::cat(cat));
cl::opt<bool> steps("steps", cl::desc("print every engine step"), cl::cat(cat));
cl::opt<std::string> format("format", cl::desc("text or json"),
                            cl::init("text"), cl::cat(cat));
cl::opt<std::string> svg("svg", cl::desc("write the curves (with --rates)"),
                         cl::cat(cat));
cl::opt<std::string> output("o", cl::desc("output file"), cl::init("-"),
                            cl::cat(cat));

llvm::Expected<std::vector<Request>> makeTrace(double at) {
  if (!traceFile.empty()) {
    auto buffer = readInputFile(traceFile, kMaxIrInputBytes);
    if (!buffer)
      return buffer.takeError();
    return parseTraceCsv((*buffer)->getBuffer());
  }
  TraceSpec spec;
  spec.requests = requests;
  spec.rate = at;
  spec.burstiness = burstiness;
  spec.seed = seed;
  std::string error;
  for (auto [text, model] : {std::pair{&prompt, &spec.prompt},
                             std::pair{&outputLen, &spec.output}}) {
    std::optional<LengthModel> m = parseLengthModel(*text, error);
    if (!m)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "--" + text->ArgStr + ": " + error);
    *model = *m;
  }
  return generateTrace(spec);
}

LogicalResult setPolicies(SideRun &side, int64_t maxPrompt, int64_t maxContext,
                          Location loc) {
  side.cpolicy = {maxBatchedTokens, maxSeqs,           blockSize,
                  chunkedPrefill,   memoryUtilization, reserveContext};
  if (!speculative.empty())
    if (llvm::Error e = parseSpeculative(speculative, side.cpolicy))
      return emitError(loc) << "--speculative " << toString(std::move(e));
  StaticPolicy &s = side.spolicy;
  s.slots = slots;
  s.prefillsPerStep = prefillsPerStep;
  s.raggedAttention = raggedAttention;
  s.memoryUtilization = memoryUtilization;
  // Given buckets are checked by the engine (>= 1, ascending, compiled).
  s.prefillBuckets =
      prefillBuckets.empty()
          ? powersOfTwo(128, maxPrompt)
          : std::vector<int64_t>(prefillBuckets.begin(), prefillBuckets.end());
  s.decodeBuckets =
      decodeBuckets.empty()
          ? powersOfTwo(512, maxContext)
          : std::vector<int64_t>(decodeBuckets.begin(), decodeBuckets.end());
  return success();
}

/// The engine a table of `kind` runs (--tpu-engine, --gpu-engine).
bool isContinuous(StringRef kind) {
  return (kind == "gpu" ? gpuEngine : tpuEngine) == "continuous";
}

/// The shapes a side's table compiles (CompiledTable.h).
TableShapes sideShapes(const SideRun &side) {
  if (side.continuous)
    return continuousShapes(maxBatchedTokens,
                            maxSeqs * (1 + side.cpolicy.draftTokens),
                            side.spolicy.decodeBuckets.back());
  return staticShapes(side.spolicy, designBucketsOpt > 0);
}

LogicalResult compileSide(MLIRContext &ctx, const ModelConfig &model,
                          CompareSide which, StringRef target, SideRun &side,
                          Location loc) {
  ImportOptions base;
  base.weightDType = weightDType;
  base.actDType = actDType;
  side.continuous = isContinuous(which == CompareSide::Gpu ? "gpu" : "tpu");
  TableShapes shapes = sideShapes(side);
  FailureOr<CostTable> table =
      describeMemory(&ctx, model, llvm::sys::path::stem(config), base, which,
                     target, shapes.prefillLengths.back(), loc);
  if (failed(table))
    return failure();
  side.table = std::move(*table);
  if (!side.continuous) {
    if (!side.spolicy.slots)
      side.spolicy.slots = autoSlots(
          side.table, side.spolicy.decodeBuckets.back(), memoryUtilization);
    shapes.decodeBatches = {side.spolicy.slots};
  }
  if (failed(compilePoints(&ctx, model, base, which, target, shapes, side.table,
                           loc)))
    return failure();
  if (side.continuous && side.cpolicy.draftTokens &&
      failed(compileDraftPoints(&ctx, model, base, which, target, nullptr,
                                nullptr, maxSeqs, side.table, loc)))
    return failure();
  if (!checkInterp)
    return success();
  FailureOr<std::vector<InterpolationCheck>> checks = checkInterpolation(
      &ctx, model, base, which, target, side.table, side.continuous, loc);
  if (failed(checks))
    return failure();
  side.checks = std::move(*checks);
  return success();
}

/// A side served by a system of chips as one instance (--tpu-system,
/// --gpu-system): its table from compileSystemTable under --split
/// (default: tensor parallel over every chip).
LogicalResult compileSystemSide(MLIRContext &ctx, const ModelConfig &model,
                                StringRef name, SideRun &side, Location loc) {
  llvm::Expected<target::System> system = target::loadSystem(&ctx, name);
  if (!system)
    return emitError(loc) << llvm::toString(system.takeError());
  std::string text = split.empty()
                         ? "tp=" + std::to_string(system->getChipCount())
                         : split.getValue();
  llvm::Expected<parallel::Split> cut = parallel::parseSplit(text);
  if (!cut)
    return emitError(loc) << "--split: " << llvm::toString(cut.takeError());
  ImportOptions base;
  base.weightDType = weightDType;
  base.actDType = actDType;
  bool tpu = system->chip.attr.getKind() == TargetKind::Tpu;
  side.continuous = isContinuous(tpu ? "tpu" : "gpu");
  TableShapes shapes = sideShapes(side);
  StringRef stem = llvm::sys::path::stem(config);
  if (!side.continuous && !side.spolicy.slots) {
    // The slots whose KV fits: the memory of one prefill and one decode.
    TableShapes probe{
        {shapes.prefillLengths.back()}, {1}, {shapes.decodeLengths.front()}};
    FailureOr<CostTable> memory =
        compileSystemTable(&ctx, model, stem, base, *system, *cut, probe, loc);
    if (failed(memory))
      return failure();
    side.spolicy.slots = autoSlots(*memory, side.spolicy.decodeBuckets.back(),
                                   memoryUtilization);
  }
  if (!side.continuous)
    shapes.decodeBatches = {side.spolicy.slots};
  FailureOr<CostTable> table =
      compileSystemTable(&ctx, model, stem, base, *system, *cut, shapes, loc);
  if (failed(table))
    return failure();
  side.table = std::move(*table);
  if (side.continuous && side.cpolicy.draftTokens)
    return compileDraftPoints(&ctx, model, base, CompareSide::Gpu, "", &*system,
                              &*cut, maxSeqs, side.table, loc);
  return success();
}

/// --disaggregate on every side.
LogicalResult setSplits(std::vector<SideRun> &sides, Location loc) {
  if (disaggregate.empty())
    return success();
  DisaggregatedPlan plan;
  if (llvm::Error e = parseDisaggregation(disaggregate, plan))
    return emitError(loc) << "--disaggregate " << toString(std::move(e));
  if (kvLinkGBps.getNumOccurrences() &&
      (!std::isfinite(kvLinkGBps) || kvLinkGBps <= 0))
    return emitError(loc) << "--kv-link-gbps must be a finite number > 0";
  for (SideRun &s : sides) {
    s.split = plan;
    s.split.kvBytesPerToken = s.table.kvBytesPerToken;
    s.split.linkBytesPerS =
        kvLinkGBps > 0 ? kvLinkGBps * 1e9 : s.table.linkBytesPerS;
    if (s.split.linkBytesPerS <= 0)
      return emitError(loc) << s.table.target
                            << " has no scale-up link in its target file: "
                               "give --kv-link-gbps";
  }
  return success();
}

/// The sides: tables read from --costs, or compiled from --config.
LogicalResult makeSides(MLIRContext &ctx, std::vector<SideRun> &sides,
                        int64_t maxPrompt, int64_t maxContext, Location loc) {
  if (costs.empty() == config.empty())
    return emitError(loc) << "give either --config (with --tpu and/or "
                             "--gpu) or --costs";
  for (const std::string &path : costs) {
    auto buffer = readInputFile(path, kMaxJsonBytes);
    if (!buffer)
      return emitError(loc) << llvm::toString(buffer.takeError());
    llvm::Expected<llvm::json::Value> json =
        parseJsonInput((*buffer)->getBuffer());
    if (!json)
      return emitError(loc) << path << ": " << toString(json.takeError());
    // One table, or the array --emit-costs writes.
    std::vector<const llvm::json::Value *> values{&*json};
    if (const llvm::json::Array *array = json->getAsArray()) {
      values.clear();
      for (const llvm::json::Value &v : *array)
        values.push_back(&v);
    }
    for (const llvm::json::Value *value : values) {
      llvm::Expected<CostTable> table = costTableFromJSON(*value);
      if (!table)
        return emitError(loc) << path << ": " << toString(table.takeError());
      SideRun side;
      side.table = std::move(*table);
      side.continuous = isContinuous(side.table.kind);
      if (failed(setPolicies(side, maxPrompt, maxContext, loc)))
        return failure();
      // A static engine runs the table's programs unless told otherwise.
      StaticPolicy &sp = side.spolicy;
      const CostTable &t = side.table;
      if (prefillBuckets.empty()) {
        sp.prefillBuckets.clear();
        for (const ShapePoint &p : t.prefill)
          sp.prefillBuckets.push_back(p.length);
      }
      if (!sp.slots)
        sp.slots = t.maxDecodeBatch();
      if (decodeBuckets.empty()) {
        sp.decodeBuckets.clear();
        for (const ShapePoint &p : t.decode)
          if (p.batch == t.maxDecodeBatch())
            sp.decodeBuckets.push_back(p.length);
      }
      sides.push_back(std::move(side));
    }
  }
  if (config.empty())
    return success();
  if (tpu.empty() && gpu.empty() && tpuSystem.empty() && gpuSystem.empty())
    return emitError(loc) << "--config needs --tpu, --gpu, --tpu-system or "
                             "--gpu-system";
  if ((!tpu.empty() && !tpuSystem.empty()) ||
      (!gpu.empty() && !gpuSystem.empty()))
    return emitError(loc) << "give a side either a chip or a system";
  if (checkInterp && (!tpuSystem.empty() || !gpuSystem.empty()))
    return emitError(loc) << "--check-interpolation checks single-chip "
                             "tables";
  FailureOr<ModelConfig> model = readConfigFile(config, loc);
  if (failed(model))
    return failure();
  for (auto [name, which] :
       {std::pair{&tpu, CompareSide::Tpu}, std::pair{&gpu, CompareSide::Gpu}}) {
    if (name->empty())
      continue;
    SideRun side;
    if (failed(setPolicies(side, maxPrompt, maxContext, loc)) ||
        failed(compileSide(ctx, *model, which, *name, side, loc)))
      return failure();
    sides.push_back(std::move(side));
  }
  for (const std::string *name :
       {&tpuSystem.getValue(), &gpuSystem.getValue()}) {
    if (name->empty())
      continue;
    SideRun side;
    if (failed(setPolicies(side, maxPrompt, maxContext, loc)) ||
        failed(compileSystemSide(ctx, *model, *name, side, loc)))
      return failure();
    sides.push_back(std::move(side));
  }
  return success();
}

/// --emit-costs, --svg and the report (-o), staged in `outputs`.
LogicalResult writeOutputs(OutputTransaction &outputs,
                           const std::vector<SideRun> &sides, const Slo &slo,
                           Location loc) {
  std::string error;
  auto open = [&](StringRef path) {
    raw_ostream *os = outputs.open(path, error);
    if (!os)
      emitError(loc) << error;
    return os;
  };
  if (!emitCosts.empty()) {
    llvm::json::Array tables;
    for (const SideRun &s : sides)
      tables.push_back(s.table.toJSON());
    raw_ostream *os = open(emitCosts);
    if (!os || failed(printJson(*os, llvm::json::Value(std::move(tables)), 2,
                                loc, "--emit-costs")))
      return failure();
  }
  if (!svg.empty()) {
    std::vector<std::string> names;
    std::vector<std::vector<CurvePoint>> curves;
    for (const SideRun &s : sides) {
      names.push_back(s.table.target +
                      (s.continuous ? " continuous" : " static"));
      curves.push_back(s.curve);
    }
    raw_ostream *os = open(svg);
    if (!os)
      return failure();
    *os << curvesToSvg(sides.front().table.model +
                           ": throughput against interactivity",
                       names, curves);
  }
  raw_ostream *os = open(output);
  if (!os)
    return failure();
  if (format != "json") {
    for (const SideRun &s : sides)
      printSideRun(*os, s, slo, steps);
    return success();
  }
  llvm::json::Object doc{{"format", "npu-serve/1"},
                         {"sides", sideRunsToJSON(sides)}};
  return printJson(*os, llvm::json::Value(std::move(doc)), 2, loc, "npu-serve");
}

int run(MLIRContext &ctx) {
  Location loc = UnknownLoc::get(&ctx);
  OutputTransaction outputs;
  ScopedOutputTransaction scope(outputs);
  if (format != "text" && format != "json") {
    emitError(loc) << "--format must be 'text' or 'json', got '" << format
                   << "'";
    return 1;
  }
  if (!traceFile.empty() &&
      (rates.getNumOccurrences() || rate.getNumOccurrences() ||
       requests.getNumOccurrences())) {
    emitError(loc) << "--trace gives the arrivals: no --rate, --rates or "
                      "--requests";
    return 1;
  }
  if (!svg.empty() && rates.empty()) {
    emitError(loc) << "--svg draws the curve of a --rates sweep";
    return 1;
  }
  if (!(ttftSlo > 0) || !(tpotSlo > 0) || !std::isfinite(ttftSlo) ||
      !std::isfinite(tpotSlo)) {
    emitError(loc) << "--ttft-slo-ms and --tpot-slo-ms must be finite and > 0";
    return 1;
  }
  // A trace file's rate is not a knob: its point is rate 0.
  std::vector<double> loads{traceFile.empty() ? double(rate) : 0.0};
  if (!rates.empty()) {
    loads.clear();
    for (StringRef f : llvm::split(rates.getValue(), ',')) {
      double r = 0;
      if (f.trim().getAsDouble(r) || !std::isfinite(r) || r <= 0) {
        emitError(loc) << "--rates: '" << f << "' is not a rate > 0";
        return 1;
      }
      loads.push_back(r);
    }
  }
  llvm::Expected<std::vector<Request>> first = makeTrace(loads.front());
  if (!first) {
    emitError(loc) << llvm::toString(first.takeError());
    return 1;
  }
  int64_t maxPrompt = 1, maxContext = 1;
  for (const Request &r : *first) {
    maxPrompt = std::max(maxPrompt, r.prompt);
    maxContext = std::max(maxContext, r.prompt + r.output);
  }
  std::vector<SideRun> sides;
  if (failed(makeSides(ctx, sides, maxPrompt, maxContext, loc)) ||
      failed(setSplits(sides, loc)))
    return 1;
  Slo slo{ttftSlo * 1e-3, tpotSlo * 1e-3};
  for (SideRun &s : sides)
    if (designBucketsOpt && !s.continuous)
      if (llvm::Error e = designSide(s, *first, designBucketsOpt, slo)) {
        emitError(loc) << s.table.target << ": " << toString(std::move(e));
        return 1;
      }
  for (double load : loads) {
    llvm::Expected<std::vector<Request>> trace =
        load == loads.front() ? std::move(first) : makeTrace(load);
    if (!trace) {
      emitError(loc) << llvm::toString(trace.takeError());
      return 1;
    }
    first = std::vector<Request>(); // moved from: keep it valid
    for (SideRun &s : sides) {
      llvm::Expected<SimResult> run = simulateSide(s, *trace, steps);
      if (!run) {
        emitError(loc) << s.table.target << ": "
                       << llvm::toString(run.takeError());
        return 1;
      }
      s.curve.push_back({load, sideMetrics(*run, s, slo)});
      s.last = std::move(*run);
    }
  }
  if (failed(writeOutputs(outputs, sides, slo, loc)))
    return 1;
  std::string error;
  if (failed(outputs.commit(error))) {
    emitError(loc) << error;
    return 1;
  }
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(argc, argv,
                              "npu-serve: requests served by a static and "
                              "a continuous engine, priced from compiled "
                              "programs\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
  ScopedDiagnosticHandler unlocated(&ctx, [](Diagnostic &diag) {
    if (!isa<UnknownLoc>(diag.getLocation()))
      return failure();
    llvm::errs() << "npu-serve: "
                 << (diag.getSeverity() == DiagnosticSeverity::Error ? "error: "
                                                                     : "note: ")
                 << diag << "\n";
    return success();
  });
  return run(ctx);
}
