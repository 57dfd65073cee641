//===- CompareInput.cpp - what npu-compare compiles -----------------------===//

#include "npu/Compare/CompareInput.h"
#include "npu/Import/HFConfig.h"
#include "npu/Support/InputFiles.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::npu;

OwningOpRef<ModuleOp> mlir::npu::readModuleFile(llvm::SourceMgr &sourceMgr,
                                                MLIRContext *ctx,
                                                StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readInputFile(path, kMaxIrInputBytes);
  if (!buffer) {
    emitError(UnknownLoc::get(ctx)) << llvm::toString(buffer.takeError());
    return nullptr;
  }
  if (llvm::Error e = checkIrNesting((*buffer)->getBuffer())) {
    emitError(FileLineColLoc::get(ctx, path, 0, 0))
        << llvm::toString(std::move(e));
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  ParserConfig config(ctx);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, config);
  if (!module)
    return nullptr;
  return module;
}

FailureOr<ModelConfig> mlir::npu::readConfigFile(StringRef path, Location loc) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readInputFile(path, kMaxJsonBytes);
  if (!buffer)
    // The location names the file; the tool's own handler names the tool
    // (npu-compare, npu-serve and npu-sweep read configs here).
    return emitError(loc) << llvm::toString(buffer.takeError());
  return parseHFConfig((*buffer)->getBuffer(), path, loc);
}

FailureOr<ImportOptions>
mlir::npu::toImportOptions(const CompareImportOptions &opts, Location loc) {
  ImportOptions options;
  if (opts.phase == "prefill") {
    options.phase = Phase::Prefill;
  } else if (opts.phase == "decode") {
    options.phase = Phase::Decode;
  } else {
    return emitError(loc) << "--phase must be 'prefill' or 'decode', got '"
                          << opts.phase << "'";
  }
  options.batch = opts.batch;
  options.seqLen = opts.seqLen;
  options.contextLen = opts.contextLen;
  options.weightDType = opts.weightDType;
  return options;
}

OwningOpRef<ModuleOp>
mlir::npu::importConfigFile(MLIRContext *ctx, StringRef path,
                            const CompareImportOptions &opts) {
  Location loc = FileLineColLoc::get(ctx, path, 0, 0);
  FailureOr<ModelConfig> config = readConfigFile(path, loc);
  if (failed(config))
    return nullptr;
  FailureOr<ImportOptions> options = toImportOptions(opts, loc);
  if (failed(options))
    return nullptr;
  if (failed(verifyImportOptions(*config, *options, loc)))
    return nullptr;
  OwningOpRef<ModuleOp> module = importModel(*config, *options, ctx);
  if (!module)
    return nullptr;
  if (Type type = findOversizedType(*module)) {
    emitError(loc) << path << ": the model has a tensor of type " << type
                   << ", beyond npu IR's limits; reduce --batch, --seq-len or "
                      "--context-len";
    return nullptr;
  }
  if (failed(verify(*module)))
    return nullptr;
  return module;
}
