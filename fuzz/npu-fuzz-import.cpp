//===- npu-fuzz-import.cpp - fuzz the config.json importer ----------------===//
//
// Input: a Hugging Face config.json. Each input is parsed (parseHFConfig);
// a config that parses is imported with four fixed option sets (prefill,
// decode with fp8 weights and f32 activations, prefill with weights stored
// as the config's quantization_config says or else in MXFP4, and for
// DeepSeek-V3 prefill with the MTP module), as `npu-translate
// --import-hf-config` does: check
// the options, import, reject tensors beyond the dialect's limits, verify.
// Then the work of every op is computed.
//
// Sizes (hidden size, vocabulary, experts...) are not capped: the importer
// builds types, never data, so a huge size costs nothing and is exactly
// what can overflow. What costs time is the number of ops, which grows with
// the layer count: configs with more than kMaxLayers layers are skipped, so
// that one input cannot build a 61-layer model.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Import/HFConfig.h"

using namespace mlir;

namespace {
constexpr int64_t kMaxLayers = 4;

void importAndCheck(MLIRContext *context, const npu::ModelConfig &config,
                    const npu::ImportOptions &options) {
  Location loc = UnknownLoc::get(context);
  if (failed(npu::verifyImportOptions(config, options, loc)))
    return;
  OwningOpRef<ModuleOp> module = npu::importModel(config, options, context);
  if (!module || npu::findOversizedType(*module) || failed(verify(*module)))
    return;
  module->walk([](Operation *op) { (void)npu::getCheckedWork(op); });
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  npu_fuzz::FuzzContext context;
  StringRef json(reinterpret_cast<const char *>(data), size);
  FailureOr<npu::ModelConfig> config =
      npu::parseHFConfig(json, "config.json", UnknownLoc::get(context.get()));
  if (failed(config) || config->numLayers > kMaxLayers)
    return 0;

  npu::ImportOptions prefill;
  prefill.phase = npu::Phase::Prefill;
  prefill.seqLen = 3;
  importAndCheck(context.get(), *config, prefill);

  npu::ImportOptions decode;
  decode.phase = npu::Phase::Decode;
  decode.batch = 2;
  decode.contextLen = 5;
  decode.weightDType = "fp8";
  decode.actDType = "f32";
  importAndCheck(context.get(), *config, decode);

  npu::ImportOptions stored = prefill;
  stored.weightDType = config->quantMethod.empty() ? "mxfp4" : "checkpoint";
  importAndCheck(context.get(), *config, stored);

  if (config->family == npu::ModelFamily::DeepSeekV3) {
    npu::ImportOptions mtp = prefill;
    mtp.includeMTP = true;
    mtp.actDType = "f16";
    importAndCheck(context.get(), *config, mtp);
  }
  return 0;
}
