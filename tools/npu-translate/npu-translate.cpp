//===- npu-translate.cpp - mlir-translate for npu -------------------------===//
//
// Translations into and out of npu IR:
//   --import-hf-config   a Hugging Face config.json -> npu IR of the whole
//                        model (options below select phase, batch, lengths
//                        and dtypes).
//   --list-models        prints the model types the import accepts, what it
//                        models of each, and the bundled example config.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Dialect/Npu/IR/NpuWork.h"
#include "npu/Import/HFConfig.h"
#include "npu/InitAll.h"
#include "npu/Parallel/Split.h"
#include "npu/Support/OutputFiles.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace {
// Tool options (a tool may own global options; libraries may not).
llvm::cl::OptionCategory importCat("config.json import options");
llvm::cl::opt<std::string> phaseOpt("phase",
                                    llvm::cl::desc("prefill or decode"),
                                    llvm::cl::init("prefill"),
                                    llvm::cl::cat(importCat));
llvm::cl::opt<int64_t> batchOpt("batch", llvm::cl::desc("sequences per step"),
                                llvm::cl::init(1), llvm::cl::cat(importCat));
llvm::cl::opt<int64_t> seqLenOpt("seq-len",
                                 llvm::cl::desc("prefill: tokens per sequence"),
                                 llvm::cl::init(4096),
                                 llvm::cl::cat(importCat));
llvm::cl::opt<int64_t> contextLenOpt(
    "context-len",
    llvm::cl::desc("decode: tokens already in the KV cache per sequence"),
    llvm::cl::init(4096), llvm::cl::cat(importCat));
llvm::cl::opt<std::string>
    weightDTypeOpt("weight-dtype",
                   llvm::cl::desc("weights: bf16, fp8 (e4m3fn), f16, f32, or "
                                  "stored with block scales: fp8-block, "
                                  "mxfp4, nvfp4, int8, int4, checkpoint "
                                  "(the config's quantization_config)"),
                   llvm::cl::init("bf16"), llvm::cl::cat(importCat));
llvm::cl::opt<std::string> actDTypeOpt(
    "act-dtype",
    llvm::cl::desc("activations and KV cache: bf16, f16, f32, or fp8 "
                   "(an fp8 e4m3fn KV cache; activations stay bf16)"),
    llvm::cl::init("bf16"), llvm::cl::cat(importCat));
llvm::cl::opt<bool>
    mtpOpt("mtp",
           llvm::cl::desc("DeepSeek-V3: include the multi-token-prediction "
                          "module"),
           llvm::cl::init(false), llvm::cl::cat(importCat));
llvm::cl::opt<bool> fromHiddenOpt(
    "from-hidden",
    llvm::cl::desc("A later pipeline stage's step: @model takes the residual "
                   "stream [batch, seq, hidden] instead of token ids (no "
                   "embedding)"),
    llvm::cl::init(false), llvm::cl::cat(importCat));

llvm::cl::opt<std::string> splitOpt(
    "split",
    llvm::cl::desc("Build what one chip runs under dp=<n>,tp=<n>,ep=<n>,"
                   "pp=<n>[,cp=<n>] (--batch is the whole system's; with pp, "
                   "one micro-batch of the last stage; with cp, T/cp tokens "
                   "of each prompt), as npu-compare --systems builds it: its "
                   "bill is the chip's (docs/parallelism.md)"),
    llvm::cl::init(""), llvm::cl::cat(importCat));

llvm::cl::opt<bool> listModelsOpt(
    "list-models",
    llvm::cl::desc("Print the model_type values --import-hf-config accepts "
                   "and exit"),
    llvm::cl::init(false));

void listModels(raw_ostream &os) {
  os << llvm::formatv("{0,-12} {1,-11} {2,-40} {3}\n", "model_type", "importer",
                      "example", "modelled");
  for (const npu::ModelTypeInfo &t : npu::getSupportedModelTypes()) {
    StringRef family = t.family == npu::ModelFamily::DeepSeekV3 ? "deepseek"
                       : t.family == npu::ModelFamily::Llama    ? "llama-like"
                       : t.family == npu::ModelFamily::Gemma    ? "gemma"
                       : t.family == npu::ModelFamily::Llama4   ? "llama4"
                                                                : "gpt2";
    os << llvm::formatv(
        "{0,-12} {1,-11} {2,-40} {3}\n", t.modelType, family,
        ("examples/configs/" + Twine(t.example) + ".json").str(), t.modelled);
  }
  os << "Any other model_type, and any config key a type does not model, is "
        "refused by name (docs/import.md).\n";
}

OwningOpRef<Operation *> importConfig(llvm::SourceMgr &sourceMgr,
                                      MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  StringRef filename = buffer->getBufferIdentifier();
  Location loc = FileLineColLoc::get(context, filename, 0, 0);
  FailureOr<npu::ModelConfig> config =
      npu::parseHFConfig(buffer->getBuffer(), filename, loc);
  if (failed(config))
    return nullptr;
  npu::ImportOptions options;
  if (phaseOpt == "prefill") {
    options.phase = npu::Phase::Prefill;
  } else if (phaseOpt == "decode") {
    options.phase = npu::Phase::Decode;
  } else {
    emitError(loc) << "--phase must be 'prefill' or 'decode', got '" << phaseOpt
                   << "'";
    return nullptr;
  }
  options.batch = batchOpt;
  options.seqLen = seqLenOpt;
  options.contextLen = contextLenOpt;
  options.weightDType = weightDTypeOpt;
  options.actDType = actDTypeOpt;
  options.includeMTP = mtpOpt;
  options.fromHidden = fromHiddenOpt;
  if (failed(npu::verifyImportOptions(*config, options, loc)))
    return nullptr;
  // One chip's share of the model under a split.
  int64_t microBatches = 1;
  if (!splitOpt.empty()) {
    llvm::Expected<npu::parallel::Split> split =
        npu::parallel::parseSplit(splitOpt);
    if (!split) {
      emitError(loc) << "--split: " << llvm::toString(split.takeError());
      return nullptr;
    }
    llvm::Expected<npu::parallel::ChipModel> chip =
        npu::parallel::shardModel(*config, options, *split, split->chips());
    if (!chip) {
      emitError(loc) << "--split: " << llvm::toString(chip.takeError());
      return nullptr;
    }
    *config = chip->config;
    options = chip->options;
    microBatches = chip->microBatches;
    if (failed(npu::verifyImportOptions(*config, options, loc)))
      return nullptr;
  }
  OwningOpRef<ModuleOp> module = npu::importModel(*config, options, context);
  if (module && !splitOpt.empty()) {
    // The split the module is one chip of, in its description.
    auto model = (*module)->getAttrOfType<DictionaryAttr>("npu.model");
    NamedAttrList attrs(model);
    Builder b(context);
    attrs.set("split", b.getStringAttr(splitOpt.getValue()));
    attrs.set("micro_batches", b.getI64IntegerAttr(microBatches));
    (*module)->setAttr("npu.model", attrs.getDictionary(context));
  }
  if (!module)
    return nullptr;
  if (Type type = npu::findOversizedType(*module)) {
    emitError(loc) << filename << ": the model has a tensor of type " << type
                   << ", beyond npu IR's limits (dimensions below 2^40, at "
                      "most 2^63 - 1 bytes); reduce --batch, --seq-len, "
                      "--context-len or the config's sizes";
    return nullptr;
  }
  if (failed(verify(*module)))
    return nullptr;
  return OwningOpRef<Operation *>(module.release());
}
} // namespace

// mlir-translate's driver writes -o as it goes, and deletes it on failure:
// with -o equal to the input, a failing run deleted its input. This one
// stages the output beside its destination and renames it only on success
// (npu/Support/OutputFiles.h).
int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  TranslateToMLIRRegistration importHF(
      "import-hf-config",
      "Import a Hugging Face config.json as npu IR of the whole model",
      importConfig,
      [](DialectRegistry &registry) { npu::registerAllDialects(registry); });
  llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                           llvm::cl::desc("<input file>"),
                                           llvm::cl::init("-"));
  llvm::cl::opt<std::string> outputFilename(
      "o", llvm::cl::desc("Output filename"), llvm::cl::value_desc("filename"),
      llvm::cl::init("-"));
  llvm::cl::opt<const Translation *, false, TranslationParser> translation(
      llvm::cl::desc("Translation to perform"));
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerTranslationCLOptions();
  llvm::cl::ParseCommandLineOptions(argc, argv, "npu translation driver\n");
  if (listModelsOpt) {
    listModels(llvm::outs());
    return 0;
  }
  if (!translation) {
    llvm::errs() << argv[0]
                 << ": give a translation (--import-hf-config) or "
                    "--list-models\n";
    return 1;
  }

  return npu::runFileTool(
      inputFilename, outputFilename,
      [&](std::unique_ptr<llvm::MemoryBuffer> input, raw_ostream &os) {
        MLIRContext context;
        auto sourceMgr = std::make_shared<llvm::SourceMgr>();
        sourceMgr->AddNewSourceBuffer(std::move(input), llvm::SMLoc());
        SourceMgrDiagnosticHandler handler(*sourceMgr, &context);
        return (*translation)(sourceMgr, os, &context);
      });
}
