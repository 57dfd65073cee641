//===- npu-compare.cpp - one workload on a TPU-like and a GPU-like target -===//
//
// Compiles an npu IR module (or a config.json, imported) with the TPU-like
// and the GPU-like pipelines and prints the two side by side
// (docs/compare.md). The work is in npu/Compare; this file only reads the
// options.
//
//===----------------------------------------------------------------------===//

#include "npu/Compare/Compare.h"
#include "npu/Compare/CompareInput.h"
#include "npu/Compare/CompareReport.h"
#include "npu/Compare/CompareSvg.h"
#include "npu/Compare/DynamicMoE.h"
#include "npu/Compare/MultiChip.h"
#include "npu/Compare/RaggedDecode.h"
#include "npu/Compare/Sensitivity.h"
#include "npu/InitAll.h"
#include "npu/Support/InputFiles.h"
#include "npu/Support/JsonStream.h"
#include "npu/Support/OutputFiles.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory cat("npu-compare options");
cl::opt<std::string> input(cl::Positional,
                           cl::desc("<npu IR module (.mlir), '-' for stdin>"),
                           cl::init("-"), cl::cat(cat));
cl::opt<std::string>
    config("config",
           cl::desc("Import this Hugging Face config.json instead of reading "
                    "a module"),
           cl::cat(cat));
cl::opt<std::string> phase("phase", cl::desc("--config: prefill or decode"),
                           cl::init("prefill"), cl::cat(cat));
cl::opt<int64_t> batch("batch", cl::desc("--config: sequences per step"),
                       cl::init(1), cl::cat(cat));
cl::opt<int64_t> seqLen("seq-len",
                        cl::desc("--config prefill: tokens per sequence"),
                        cl::init(4096), cl::cat(cat));
cl::opt<int64_t>
    contextLen("context-len",
               cl::desc("--config decode: tokens in the KV cache per sequence"),
               cl::init(4096), cl::cat(cat));
cl::opt<std::string>
    weightDType("weight-dtype",
                cl::desc("--config: weight dtype (bf16, fp8, f16, f32) or "
                         "stored format (fp8-block, mxfp4, nvfp4, int8, "
                         "int4, checkpoint)"),
                cl::init("bf16"), cl::cat(cat));
cl::opt<std::string> systems(
    "systems",
    cl::desc("Several chips: <TPU-like system>,<GPU-like system> (files of "
             "npu-target/systems/); needs --config; each side compiles the "
             "model one chip runs under --split and adds the collectives "
             "(docs/parallelism.md)"),
    cl::cat(cat));
cl::opt<int64_t> batchPerChip(
    "batch-per-chip",
    cl::desc("--systems: each system's step has this many sequences per "
             "chip (instead of --batch for both)"),
    cl::init(0), cl::cat(cat));
cl::opt<std::string> split(
    "split",
    cl::desc(
        "--systems: dp=<n>,tp=<n>,ep=<n>,pp=<n>[,cp=<n>] for both sides, or "
        "'auto' (each side's fastest split that fits)"),
    cl::init("auto"), cl::cat(cat));
cl::opt<std::string> tpu("tpu",
                         cl::desc("TPU-like target (name in npu-target/ or "
                                  "path)"),
                         cl::init("tpu-v7"), cl::cat(cat));
cl::opt<std::string> gpu("gpu",
                         cl::desc("GPU-like target (name in npu-target/ or "
                                  "path)"),
                         cl::init("gb300"), cl::cat(cat));
cl::opt<std::string>
    pair("pair",
         cl::desc("Shorthand: --pair=X is --tpu=X-tpu --gpu=X-gpu (e.g. "
                  "same-silicon, mock)"),
         cl::cat(cat));
cl::opt<std::string>
    fusion("fusion",
           cl::desc("Both pipelines' fusion decision: 'cost' (the cost "
                    "model's groups) or 'none' (every op its own kernel)"),
           cl::init("cost"), cl::cat(cat));
cl::opt<std::string> format("format", cl::desc("text or json"),
                            cl::init("text"), cl::cat(cat));
cl::opt<unsigned> top("top",
                      cl::desc("Text: print only the N kernel rows with the "
                               "largest difference (0: all)"),
                      cl::init(0), cl::cat(cat));
cl::opt<std::string> output("o", cl::desc("Output file ('-': stdout)"),
                            cl::init("-"), cl::cat(cat));
cl::opt<std::string>
    traceDir("trace-dir",
             cl::desc("Write tpu-trace.json and gpu-trace.json (Chrome "
                      "traces) here; with --systems, systems-tpu-trace.json "
                      "and systems-gpu-trace.json (one track for a chip's "
                      "compute, one per collective group)"),
             cl::cat(cat));
cl::opt<std::string>
    svgDir("svg-dir",
           cl::desc("Write roofline-tpu.svg, roofline-gpu.svg, "
                    "timeline.svg and delta.svg here"),
           cl::cat(cat));

cl::list<std::string> moeLoad(
    "moe-load",
    cl::desc("Dynamic MoE routing scenarios (uniform, zipf:<s>, "
             "hot:<share>; comma-separated): static capacity plan on the "
             "TPU-like target vs the actual loads on the GPU-like one"),
    cl::CommaSeparated, cl::cat(cat));
cl::opt<double> capacityFactor(
    "capacity-factor",
    cl::desc("--moe-load: slots per expert = ceil(factor * T * k / E)"),
    cl::init(1.25), cl::cat(cat));
cl::opt<uint64_t> seed("seed",
                       cl::desc("--moe-load, --decode-lengths: sampling seed"),
                       cl::init(1), cl::cat(cat));
cl::list<std::string> decodeLengths(
    "decode-lengths",
    cl::desc("Ragged decode scenarios: per-sequence context lengths "
             "(uniform:<min>:<max>, longtail:<median>:<max>[:<sigma>], "
             "list:<l1>:<l2>:...; comma-separated): pad and bucket plans on "
             "the TPU-like target vs a ragged kernel on the GPU-like one"),
    cl::CommaSeparated, cl::cat(cat));
cl::opt<std::string> gpuLaunch(
    "gpu-launch",
    cl::desc("GPU-like kernels launched from a CUDA graph ('graph'), one by "
             "one on a stream ('stream'), or 'auto' (graph for a decode "
             "step, stream otherwise)"),
    cl::init("auto"), cl::cat(cat));
cl::opt<bool> sensitivity(
    "sensitivity",
    cl::desc("Halve and double every assumed ([A]) number of both target "
             "files, one at a time, and show how the TPU/GPU time ratio "
             "moves and which assumptions can flip the verdict (with "
             "--svg-dir: sensitivity.svg)"),
    cl::cat(cat));
cl::list<int64_t> decodeBuckets(
    "decode-buckets",
    cl::desc("--decode-lengths: static KV-length buckets (comma-separated; "
             "default: powers of two, then the compiled context length)"),
    cl::CommaSeparated, cl::cat(cat));

/// The dynamic scenarios of --moe-load and --decode-lengths, which read
/// the graph-level module before it is compiled.
LogicalResult runScenarios(ModuleOp module, npu::TargetAttr tpuTarget,
                           npu::TargetAttr gpuTarget,
                           std::vector<npu::MoEScenario> &scenarios,
                           std::vector<npu::RaggedScenario> &ragged,
                           Location loc) {
  if (!moeLoad.empty()) {
    FailureOr<std::vector<npu::MoEScenario>> s = npu::runMoEScenarios(
        module, moeLoad, capacityFactor, seed, tpuTarget, gpuTarget);
    if (failed(s))
      return failure();
    scenarios = std::move(*s);
  }
  if (!decodeLengths.empty() || !decodeBuckets.empty()) {
    if (decodeLengths.empty()) {
      emitError(loc) << "--decode-buckets needs --decode-lengths";
      return failure();
    }
    std::vector<int64_t> buckets(decodeBuckets.begin(), decodeBuckets.end());
    FailureOr<std::vector<npu::RaggedScenario>> s = npu::runRaggedScenarios(
        module, decodeLengths, buckets, seed, tpuTarget, gpuTarget);
    if (failed(s))
      return failure();
    ragged = std::move(*s);
  }
  return success();
}

/// What --config imports, from the flags.
npu::CompareImportOptions importFlags() {
  npu::CompareImportOptions options;
  options.phase = phase;
  options.batch = batch;
  options.seqLen = seqLen;
  options.contextLen = contextLen;
  options.weightDType = weightDType;
  return options;
}

/// npu-compare --systems: one step on a system of chips per side.
int runSystems(MLIRContext &ctx, npu::OutputTransaction &outputs,
               Location loc) {
  const cl::Option *exclusive[] = {
      std::addressof(tpu),           std::addressof(gpu),
      std::addressof(pair),          std::addressof(svgDir),
      std::addressof(sensitivity),   std::addressof(moeLoad),
      std::addressof(decodeLengths), std::addressof(decodeBuckets)};
  for (const cl::Option *o : exclusive) {
    if (o->getNumOccurrences()) {
      emitError(loc) << "--" << o->ArgStr << " cannot be combined with "
                     << "--systems";
      return 1;
    }
  }
  if (!config.getNumOccurrences() || input != "-") {
    emitError(loc) << "--systems needs --config (the model is cut before "
                      "it is built) and no module file";
    return 1;
  }
  auto [tpuSystem, gpuSystem] = StringRef(systems).split(',');
  if (tpuSystem.empty() || gpuSystem.empty() || gpuSystem.contains(',')) {
    emitError(loc) << "--systems must be <TPU-like system>,<GPU-like "
                      "system>, got '"
                   << systems << "'";
    return 1;
  }
  if (batchPerChip.getNumOccurrences() &&
      (batch.getNumOccurrences() || batchPerChip < 1)) {
    emitError(loc) << "--batch-per-chip must be at least 1 and replaces "
                      "--batch";
    return 1;
  }
  FailureOr<npu::ImportOptions> options =
      npu::toImportOptions(importFlags(), loc);
  if (failed(options))
    return 1;
  FailureOr<npu::MultiChipComparison> cmp = npu::compareMultiChip(
      &ctx, config, *options, batchPerChip, tpuSystem, gpuSystem, split, loc);
  if (failed(cmp))
    return 1;
  std::string error;
  raw_ostream *os = outputs.open(output, error);
  if (!os) {
    emitError(loc) << error;
    return 1;
  }
  if (format == "json")
    *os << llvm::formatv("{0:2}", npu::multiChipToJSON(*cmp)) << "\n";
  else
    npu::printMultiChip(*os, *cmp);
  if (!traceDir.empty() &&
      failed(npu::writeMultiChipTraces(*cmp, traceDir, loc)))
    return 1;
  return 0;
}

/// Renames every staged output onto its path; 1 after a diagnostic.
int commit(npu::OutputTransaction &outputs, Location loc) {
  std::string error;
  if (succeeded(outputs.commit(error)))
    return 0;
  emitError(loc) << error;
  return 1;
}

int run(MLIRContext &ctx, llvm::SourceMgr &sourceMgr) {
  Location loc = UnknownLoc::get(&ctx);
  // Every file of the run (-o, traces, SVGs) is committed at the end, or
  // none is (a failure, a signal).
  npu::OutputTransaction outputs;
  npu::ScopedOutputTransaction scope(outputs);
  if (format != "text" && format != "json") {
    emitError(loc) << "--format must be 'text' or 'json', got '" << format
                   << "'";
    return 1;
  }
  if (fusion != "cost" && fusion != "none") {
    emitError(loc) << "--fusion must be 'cost' or 'none', got '" << fusion
                   << "'";
    return 1;
  }
  if (gpuLaunch != "auto" && gpuLaunch != "graph" && gpuLaunch != "stream") {
    emitError(loc) << "--gpu-launch must be 'auto', 'graph' or 'stream', got '"
                   << gpuLaunch << "'";
    return 1;
  }
  if (systems.getNumOccurrences()) {
    // Its -o is staged in `outputs` like every other output.
    int rc = runSystems(ctx, outputs, loc);
    return rc ? rc : commit(outputs, loc);
  }
  if (split.getNumOccurrences() || batchPerChip.getNumOccurrences()) {
    emitError(loc) << "--split and --batch-per-chip need --systems";
    return 1;
  }
  std::string tpuName = tpu, gpuName = gpu;
  if (pair.getNumOccurrences()) {
    if (tpu.getNumOccurrences() || gpu.getNumOccurrences()) {
      emitError(loc) << "--pair cannot be combined with --tpu or --gpu";
      return 1;
    }
    tpuName = pair + "-tpu";
    gpuName = pair + "-gpu";
  }
  FailureOr<npu::TargetAttr> tpuTarget =
      npu::loadCompareTarget(&ctx, tpuName, npu::TargetKind::Tpu, "--tpu", loc);
  if (failed(tpuTarget))
    return 1;
  FailureOr<npu::TargetAttr> gpuTarget =
      npu::loadCompareTarget(&ctx, gpuName, npu::TargetKind::Gpu, "--gpu", loc);
  if (failed(gpuTarget))
    return 1;

  OwningOpRef<ModuleOp> module;
  if (config.getNumOccurrences()) {
    if (input != "-") {
      emitError(loc) << "give either a module file or --config, not both";
      return 1;
    }
    module = npu::importConfigFile(&ctx, config, importFlags());
  } else {
    module = npu::readModuleFile(sourceMgr, &ctx, input);
  }
  if (!module)
    return 1;

  std::vector<npu::MoEScenario> scenarios;
  std::vector<npu::RaggedScenario> ragged;
  if (failed(runScenarios(*module, *tpuTarget, *gpuTarget, scenarios, ragged,
                          loc)))
    return 1;

  FailureOr<npu::Comparison> cmp =
      npu::compareModule(*module, tpuName, gpuName, fusion, gpuLaunch);
  if (failed(cmp))
    return 1;
  if (!traceDir.empty() &&
      failed(npu::writeComparisonTraces(*cmp, traceDir, loc)))
    return 1;
  if (!svgDir.empty() && failed(npu::writeComparisonSvgs(*cmp, svgDir, loc)))
    return 1;
  std::optional<npu::Sensitivity> sens;
  if (sensitivity) {
    FailureOr<npu::Sensitivity> s = npu::runSensitivity(
        *module, *cmp, tpuName, gpuName, fusion, gpuLaunch, loc);
    if (failed(s))
      return 1;
    sens = std::move(*s);
    if (!svgDir.empty() &&
        failed(npu::writeOutputFile(
            svgDir + "/sensitivity.svg",
            [&](raw_ostream &os) { os << npu::renderSensitivitySvg(*sens); },
            loc)))
      return 1;
  }

  std::string error;
  raw_ostream *os = outputs.open(output, error);
  if (!os) {
    emitError(loc) << error;
    return 1;
  }
  if (format == "json") {
    npu::JsonStream js(*os, 2);
    npu::writeComparisonJSON(js, *cmp, [&](npu::JsonStream &js) {
      if (!scenarios.empty())
        js.attribute("dynamic_moe", npu::moeScenariosToJSON(scenarios));
      if (!ragged.empty())
        js.attribute("ragged_decode", npu::raggedScenariosToJSON(ragged));
      if (sens)
        js.attribute("sensitivity", npu::sensitivityToJSON(*sens));
    });
    if (failed(js.finish(loc, "npu-compare")))
      return 1;
  } else {
    npu::printComparisonText(*cmp, *os, top);
    npu::printMoEScenarios(scenarios, *os);
    npu::printRaggedScenarios(ragged, *os);
    if (sens)
      npu::printSensitivityText(*sens, *os);
  }
  return commit(outputs, loc);
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "npu-compare: one workload compiled for a TPU-like and a GPU-like "
      "target, side by side\n");
  DialectRegistry registry;
  npu::registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
  // Errors about options have no location: "npu-compare: error: ...".
  ScopedDiagnosticHandler unlocated(&ctx, [](Diagnostic &diag) {
    if (!isa<UnknownLoc>(diag.getLocation()))
      return failure(); // to the source manager's handler
    llvm::errs() << "npu-compare: "
                 << (diag.getSeverity() == DiagnosticSeverity::Error ? "error: "
                                                                     : "note: ")
                 << diag << "\n";
    return success();
  });
  return run(ctx, sourceMgr);
}
