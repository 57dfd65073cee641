//===- npu-fuzz-calls.cpp - fuzz the call graphs every report walks -------===//
//
// Input: bytes that describe a call graph (a structure-aware fuzzer: mutated
// MLIR text rarely makes interesting call graphs). Byte 0 gives the number
// of functions N (1..12; 0xFF: a chain of 1000..1060 nested calls instead,
// around the 1024 limit); then per function one byte for its matmuls (1..3)
// and one for its call sites (0..4), each followed by a callee byte (any
// function, so cycles and self calls occur). @f0 is @model. Every function
// has the same signature and does 2 x 16 x 32 x 64 = 65,536 FLOP per matmul.
//
// The harness computes what the tools must answer from the bytes alone, by
// its own recursion on the small graph:
//   - a cycle anywhere: the bill, both backend pipelines and npu-compare
//     fail with "recursive call";
//   - a chain deeper than 1024 calls: they fail with "calls nest more than";
//   - otherwise: the bill's matrix FLOPs and the scheduled @model's
//     `npu.cost` flops (TPU-like and GPU-like) equal
//     sum over functions of runs(f) x matmuls(f) x 65,536, runs from @model.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "npu/Analysis/Bill.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Pipelines/Pipelines.h"
#include "npu/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <string>
#include <vector>

using namespace mlir;

namespace {
constexpr uint64_t kMatmulFlops = 2 * 16 * 32 * 64;
constexpr int64_t kMaxDepth = 1024; // npu::kMaxCallDepth

struct Graph {
  std::vector<int> matmuls;
  std::vector<std::vector<int>> calls;
};

Graph decode(const uint8_t *data, size_t size) {
  Graph g;
  size_t at = 0;
  auto next = [&]() -> unsigned { return at < size ? data[at++] : 0; };
  unsigned first = next();
  if (first == 0xFF) {
    int n = 1000 + int(next() % 61) + 1; // n functions, n - 1 calls deep
    g.matmuls.assign(n, 1);
    g.calls.resize(n);
    for (int i = 0; i + 1 < n; ++i)
      g.calls[i].push_back(i + 1);
    return g;
  }
  int n = 1 + int(first % 12);
  g.matmuls.resize(n);
  g.calls.resize(n);
  for (int f = 0; f < n; ++f) {
    g.matmuls[f] = 1 + int(next() % 3);
    int sites = int(next() % 5);
    for (int s = 0; s < sites; ++s)
      g.calls[f].push_back(int(next() % unsigned(n)));
  }
  return g;
}

std::string print(const Graph &g) {
  const char *x = "tensor<16x64xbf16>", *w = "tensor<32x64xbf16>",
             *r = "tensor<16x32xbf16>";
  std::string s;
  for (size_t f = 0; f < g.matmuls.size(); ++f) {
    std::string name = f == 0 ? "model" : "f" + std::to_string(f);
    s += "func.func @" + name + "(%x: " + x + ", %w: " + w + ") -> " + r +
         " {\n";
    std::string last;
    int v = 0;
    for (int m = 0; m < g.matmuls[f]; ++m) {
      last = "%v" + std::to_string(v++);
      s += "  " + last + " = npu.matmul %x, %w transpose_rhs : " + x + ", " +
           w + " -> " + r + "\n";
    }
    for (int c : g.calls[f]) {
      last = "%v" + std::to_string(v++);
      std::string callee = c == 0 ? "model" : "f" + std::to_string(c);
      s += "  " + last + " = func.call @" + callee + "(%x, %w) : (" + x + ", " +
           w + ") -> " + r + "\n";
    }
    s += "  return " + last + " : " + r + "\n}\n";
  }
  return s;
}

/// 0: fine; 1: a cycle; 2: deeper than the limit. Fills runs from @model.
int expect(const Graph &g, std::vector<uint64_t> &runs, bool &overflow) {
  int n = int(g.matmuls.size());
  std::vector<int> state(n, 0), depth(n, 0), order;
  bool cycle = false;
  std::function<void(int)> visit = [&](int f) {
    state[f] = 1;
    for (int c : g.calls[f]) {
      if (state[c] == 1)
        cycle = true;
      else if (state[c] == 0)
        visit(c);
      if (!cycle)
        depth[f] = std::max(depth[f], 1 + depth[c]);
    }
    state[f] = 2;
    order.push_back(f);
  };
  for (int f = 0; f < n; ++f)
    if (state[f] == 0)
      visit(f);
  if (cycle)
    return 1;
  for (int f = 0; f < n; ++f)
    if (depth[f] > kMaxDepth)
      return 2;
  runs.assign(n, 0);
  runs[0] = 1;
  overflow = false;
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    for (int c : g.calls[*it]) {
      if (runs[c] + runs[*it] < runs[c])
        overflow = true;
      runs[c] += runs[*it];
    }
  return 0;
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  npu_fuzz::discardStdout();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Graph g = decode(data, size);
  std::vector<uint64_t> runs;
  bool overflow = false;
  int status = expect(g, runs, overflow);
  uint64_t flops = 0;
  if (status == 0)
    for (size_t f = 0; f < runs.size(); ++f) {
      unsigned __int128 add =
          (unsigned __int128)runs[f] * g.matmuls[f] * kMatmulFlops;
      if (add >> 63 || flops + uint64_t(add) < flops)
        overflow = true;
      flops += uint64_t(add);
    }
  if (flops > uint64_t(INT64_MAX))
    overflow = true;

  npu_fuzz::FuzzContext context;
  std::string text = print(g);
  OwningOpRef<ModuleOp> module = npu_fuzz::parseVerifiedModule(
      context.get(), reinterpret_cast<const uint8_t *>(text.data()),
      text.size());
  if (!module)
    npu_fuzz::fail("the generated module does not parse:\n" + text);

  auto expectFailure = [&](bool failed, const llvm::Twine &tool) {
    const char *why =
        status == 1 ? "recursive call" : "calls nest more than 1024 deep";
    if (!failed || context.getDiagnostics().find(why) == std::string::npos)
      npu_fuzz::fail(tool + " did not refuse the call graph with '" + why +
                     "':\n" + context.getDiagnostics() + "\n" + text);
  };

  llvm::Expected<npu::target::TargetFile> tpu =
      npu::target::loadTarget(context.get(), "mock-tpu");
  if (!tpu)
    npu_fuzz::fail("cannot load mock-tpu: " + toString(tpu.takeError()));
  FailureOr<npu::ModelBill> bill = npu::computeBill(*module, tpu->attr);
  if (status != 0) {
    expectFailure(failed(bill), "the bill");
  } else if (!overflow) {
    if (failed(bill))
      npu_fuzz::fail("the bill failed on a valid call graph:\n" +
                     context.getDiagnostics() + "\n" + text);
    if (bill->total.work.matrixFlops.value() != flops)
      npu_fuzz::fail("the bill counts " +
                     llvm::Twine(bill->total.work.matrixFlops.value()) +
                     " FLOP, the call graph " + llvm::Twine(flops) + ":\n" +
                     text);
  }

  for (const char *target : {"mock-tpu", "mock-gpu"}) {
    // Chains of a thousand functions: the bill is enough for the GPU side.
    if (g.matmuls.size() > 100 && llvm::StringRef(target) == "mock-gpu")
      continue;
    PassManager pm(context.get());
    npu::BackendPipelineOptions options;
    options.target = target;
    if (llvm::StringRef(target) == "mock-tpu")
      npu::buildTpuPipeline(pm, options);
    else
      npu::buildGpuPipeline(pm, options);
    OwningOpRef<ModuleOp> copy = module->clone();
    bool failedRun = failed(pm.run(*copy));
    if (status != 0) {
      expectFailure(failedRun, llvm::Twine(target) + " pipeline");
      continue;
    }
    if (overflow)
      continue;
    if (failedRun)
      npu_fuzz::fail(llvm::Twine(target) +
                     " pipeline failed on a valid call graph:\n" +
                     context.getDiagnostics() + "\n" + text);
    auto model = copy->lookupSymbol<func::FuncOp>("model");
    auto cost = model->getAttrOfType<npu::CostAttr>("npu.cost");
    if (!cost || uint64_t(cost.getFlops()) != flops)
      npu_fuzz::fail(llvm::Twine(target) + ": @model's npu.cost counts " +
                     llvm::Twine(cost ? cost.getFlops() : -1) +
                     " FLOP, the call graph " + llvm::Twine(flops) + ":\n" +
                     text);
  }
  return 0;
}
