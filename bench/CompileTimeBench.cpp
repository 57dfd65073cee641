//===- CompileTimeBench.cpp - how fast npu compiles and accounts models --===//
//
// Google Benchmark of the work a design-space sweep repeats thousands of
// times: importing a config.json into npu IR, verifying it, computing its
// bill on a target, and running each backend pipeline (tpu-v7, gb300).
// DeepSeek-V3 (61 layers) for prefill at 4K, 128K and 1M tokens and decode at
// batch 1 and 256; and the growth with the number of layers. scripts/bench.sh
// runs it and writes docs/benchmarks.md.
//
// Each iteration starts from the config text, in a fresh MLIRContext, so
// that no state carries over between iterations.
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/Bill.h"
#include "npu/Import/HFConfig.h"
#include "npu/InitAll.h"
#include "npu/Pipelines/Pipelines.h"
#include "npu/Target/Target.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include <benchmark/benchmark.h>
#include <sys/resource.h>

using namespace mlir;
using namespace mlir::npu;

namespace {
std::string readConfig(StringRef name) {
  std::string path =
      std::string(NPU_SOURCE_DIR) + "/examples/configs/" + name.str() + ".json";
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf) {
    llvm::errs() << "cannot read " << path << "\n";
    std::abort();
  }
  return (*buf)->getBuffer().str();
}

/// Peak resident memory of the process so far, in MiB.
double peakRssMiB() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0; // ru_maxrss is in KiB on Linux
}

enum class Step { Import, ImportAndBill, TpuPipeline, GpuPipeline };

/// One DeepSeek-V3 step: phase (0 prefill, 1 decode), length (tokens per
/// sequence for prefill, batch for decode), layers (0: the config's 61).
void run(benchmark::State &state, Step step) {
  std::string json = readConfig("deepseek-v3");
  bool decode = state.range(0) == 1;
  int64_t size = state.range(1);
  int64_t layers = state.range(2);
  int64_t ops = 0;
  for (auto _ : state) {
    DialectRegistry registry;
    registerAllDialects(registry);
    MLIRContext context(registry);
    Location loc = UnknownLoc::get(&context);
    FailureOr<ModelConfig> config = parseHFConfig(json, "deepseek-v3", loc);
    ImportOptions options;
    options.phase = decode ? Phase::Decode : Phase::Prefill;
    if (decode) {
      options.batch = size;
      options.contextLen = 4095;
    } else {
      options.seqLen = size;
    }
    if (layers > 0) {
      config->numLayers = layers;
      config->firstDenseLayers = std::min<int64_t>(3, layers);
    }
    OwningOpRef<ModuleOp> module = importModel(*config, options, &context);
    if (failed(verify(*module)))
      state.SkipWithError("verification failed");
    if (step == Step::ImportAndBill) {
      auto target = target::loadTarget(&context, "h200");
      if (!target) {
        state.SkipWithError("no target");
        llvm::consumeError(target.takeError());
        break;
      }
      FailureOr<ModelBill> bill = computeBill(*module, target->attr);
      if (failed(bill))
        state.SkipWithError("bill failed");
      benchmark::DoNotOptimize(bill->total.work.matrixFlops.value());
    }
    if (step == Step::TpuPipeline || step == Step::GpuPipeline) {
      // The whole backend: fusion, tiles, cost (and the L2 simulation on
      // the GPU-like target), the timeline.
      PassManager pm(&context);
      BackendPipelineOptions options;
      if (step == Step::TpuPipeline) {
        options.target = "tpu-v7";
        buildTpuPipeline(pm, options);
      } else {
        options.target = "gb300";
        buildGpuPipeline(pm, options);
      }
      if (failed(pm.run(*module)))
        state.SkipWithError("pipeline failed");
    }
    ops = 0;
    module->walk([&](Operation *) { ++ops; });
  }
  state.counters["ops"] = static_cast<double>(ops);
  state.counters["peak_rss_MiB"] = peakRssMiB();
}

void BM_Import(benchmark::State &state) { run(state, Step::Import); }
void BM_ImportAndBill(benchmark::State &state) {
  run(state, Step::ImportAndBill);
}

void sizes(benchmark::internal::Benchmark *b) {
  b->ArgNames({"decode", "tokens_or_batch", "layers"});
  for (int64_t s : {4096, 131072, 1048576})
    b->Args({0, s, 0});
  for (int64_t batch : {1, 256})
    b->Args({1, batch, 0});
  // Growth with depth at a fixed 4K prefill.
  for (int64_t layers : {4, 16, 61, 122, 244})
    b->Args({0, 4096, layers});
  b->Unit(benchmark::kMillisecond);
  // CPU time of all threads: kernels are priced on MLIR's thread pool.
  b->MeasureProcessCPUTime();
  b->UseRealTime();
}
} // namespace

BENCHMARK(BM_Import)->Apply(sizes);
BENCHMARK(BM_ImportAndBill)->Apply(sizes);
void BM_TpuPipeline(benchmark::State &state) { run(state, Step::TpuPipeline); }
void BM_GpuPipeline(benchmark::State &state) { run(state, Step::GpuPipeline); }
BENCHMARK(BM_TpuPipeline)->Apply(sizes);
BENCHMARK(BM_GpuPipeline)->Apply(sizes);
BENCHMARK_MAIN();
