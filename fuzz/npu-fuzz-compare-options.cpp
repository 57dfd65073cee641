//===- npu-fuzz-compare-options.cpp - fuzz npu-compare's scenario options -===//
//
// Input: text lines, as npu-compare's options would hold them:
//   line 1: the module (its first byte picks one of four small graphs: a
//           routed MoE layer, a GQA and a latent decode attention, a
//           GEMM);
//   line 2: --moe-load (comma-separated: uniform, zipf:<s>, hot:<share>);
//   line 3: --capacity-factor;        line 4: --seed;
//   line 5: --decode-lengths (comma-separated: uniform:<min>:<max>,
//           longtail:<median>:<max>[:<sigma>], list:<l1>:...);
//   line 6: --decode-buckets (comma-separated integers);
//   line 7: --fusion (cost or none; the comparison itself runs when the
//           first byte is odd).
// Each option is parsed as npu-compare parses it and the scenarios run on
// the mock pair (mock-tpu, mock-gpu); a bad option must be refused with a
// diagnostic, never crash or hang (the per-input timeout catches a
// scenario whose cost grows with its values). What succeeds is rendered as
// text and JSON, and the JSON must hold finite numbers only.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "npu/Compare/Compare.h"
#include "npu/Compare/CompareReport.h"
#include "npu/Compare/DynamicMoE.h"
#include "npu/Compare/RaggedDecode.h"
#include "npu/Support/InputFiles.h"
#include "npu/Support/JsonStream.h"
#include "npu/Target/Target.h"

#include "llvm/ADT/StringExtras.h"

#include <cstdlib>
#include <string>
#include <vector>

using namespace mlir;

namespace {
const char *const kModules[] = {
    // A routed MoE layer: 64 tokens, top-2 of 16 experts, F = 64, D = 128.
    R"(func.func @moe(%x: tensor<64x128xbf16>, %i: tensor<64x2xi32>, %w: tensor<64x2xf32>, %g: tensor<16x64x128xbf16>, %u: tensor<16x64x128xbf16>, %d: tensor<16x128x64xbf16>) -> tensor<64x128xbf16> {
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<uniform>) : tensor<64x128xbf16>, tensor<64x2xi32>, tensor<64x2xf32>, tensor<16x64x128xbf16>, tensor<16x64x128xbf16>, tensor<16x128x64xbf16> -> tensor<64x128xbf16>
  return %y : tensor<64x128xbf16>
})",
    // Decode attention: 4 sequences, 4 query and 2 KV heads, 256 KV rows.
    R"(func.func @decode(%q: tensor<4x4x1x64xbf16>, %k: tensor<4x2x256x64xbf16>, %v: tensor<4x2x256x64xbf16>) -> tensor<4x4x1x64xbf16> {
  %o = npu.attention %q, %k, %v causal : tensor<4x4x1x64xbf16>, tensor<4x2x256x64xbf16>, tensor<4x2x256x64xbf16> -> tensor<4x4x1x64xbf16>
  return %o : tensor<4x4x1x64xbf16>
})",
    // Latent (MLA) decode: 64 sequences, 128 heads, one KV head of 576.
    R"(func.func @decode(%q: tensor<64x128x1x576xbf16>, %kv: tensor<64x1x16x576xbf16>) -> tensor<64x128x1x512xbf16> {
  %o = npu.attention %q, %kv latent(512) causal : tensor<64x128x1x576xbf16>, tensor<64x1x16x576xbf16> -> tensor<64x128x1x512xbf16>
  return %o : tensor<64x128x1x512xbf16>
})",
    R"(func.func @gemm(%x: tensor<64x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<64x64xbf16> {
  %0 = npu.matmul %x, %w transpose_rhs : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
})"};

std::vector<std::string> splitList(llvm::StringRef line) {
  std::vector<std::string> out;
  if (line.empty())
    return out;
  llvm::SmallVector<llvm::StringRef> parts;
  line.split(parts, ',');
  for (llvm::StringRef p : parts)
    out.push_back(p.str());
  return out;
}

void checkJson(const llvm::json::Value &v, llvm::StringRef what,
               llvm::StringRef input) {
  if (std::optional<std::string> where = npu::findNonFiniteNumber(v))
    npu_fuzz::fail(what + " JSON holds a non-finite number at '" + *where +
                   "' for the options:\n" + input);
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  npu_fuzz::discardStdout();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef input(reinterpret_cast<const char *>(data), size);
  llvm::SmallVector<llvm::StringRef> lines;
  input.split(lines, '\n');
  lines.resize(7);
  unsigned pick = size ? data[0] : 0;

  npu_fuzz::FuzzContext context;
  const char *source = kModules[pick % 4];
  OwningOpRef<ModuleOp> module = npu_fuzz::parseVerifiedModule(
      context.get(), reinterpret_cast<const uint8_t *>(source),
      std::strlen(source));
  if (!module)
    npu_fuzz::fail("a built-in module does not parse");
  llvm::Expected<npu::target::TargetFile> tpu =
      npu::target::loadTarget(context.get(), "mock-tpu");
  llvm::Expected<npu::target::TargetFile> gpu =
      npu::target::loadTarget(context.get(), "mock-gpu");
  if (!tpu || !gpu)
    npu_fuzz::fail("cannot load the mock targets");

  // As llvm::cl would read them: a number that does not parse is refused
  // before anything runs.
  double capacity = 1.25;
  if (!lines[2].empty() && lines[2].getAsDouble(capacity))
    return 0;
  uint64_t seed = 1;
  if (!lines[3].empty() && lines[3].getAsInteger(10, seed))
    return 0;
  std::vector<int64_t> buckets;
  for (const std::string &b : splitList(lines[5])) {
    int64_t v;
    if (llvm::StringRef(b).getAsInteger(10, v))
      return 0;
    buckets.push_back(v);
  }

  std::string text;
  llvm::raw_string_ostream os(text);
  std::vector<std::string> loads = splitList(lines[1]);
  if (!loads.empty()) {
    FailureOr<std::vector<npu::MoEScenario>> s = npu::runMoEScenarios(
        *module, loads, capacity, seed, tpu->attr, gpu->attr);
    if (succeeded(s)) {
      npu::printMoEScenarios(*s, os);
      checkJson(npu::moeScenariosToJSON(*s), "--moe-load", input);
    }
  }
  std::vector<std::string> lengths = splitList(lines[4]);
  if (!lengths.empty()) {
    FailureOr<std::vector<npu::RaggedScenario>> s = npu::runRaggedScenarios(
        *module, lengths, buckets, seed, tpu->attr, gpu->attr);
    if (succeeded(s)) {
      npu::printRaggedScenarios(*s, os);
      checkJson(npu::raggedScenariosToJSON(*s), "--decode-lengths", input);
    }
  }
  if (pick % 2 == 1) {
    std::string fusion = lines[6].str();
    if (fusion != "none")
      fusion = "cost";
    FailureOr<npu::Comparison> cmp =
        npu::compareModule(*module, "mock-tpu", "mock-gpu", fusion);
    if (succeeded(cmp)) {
      npu::printComparisonText(*cmp, os, /*top=*/0);
      // Written as npu-compare writes it (a row at a time), then read back.
      std::string text;
      llvm::raw_string_ostream json(text);
      npu::JsonStream js(json, 0);
      npu::writeComparisonJSON(js, *cmp);
      if (failed(js.finish(UnknownLoc::get(context.get()), "npu-compare")))
        npu_fuzz::fail("the comparison JSON holds a non-finite number for "
                       "the options:\n" +
                       input);
      if (llvm::Expected<llvm::json::Value> v = llvm::json::parse(text); !v)
        npu_fuzz::fail("the comparison JSON does not parse (" +
                       llvm::toString(v.takeError()) + ") for the options:\n" +
                       input);
    }
  }
  return 0;
}
