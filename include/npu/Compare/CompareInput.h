//===- CompareInput.h - what npu-compare compiles ---------------*- C++ -*-===//
//
// The workload of a comparison: an npu IR module read from a file, or a
// Hugging Face config.json imported as npu-translate --import-hf-config
// does (the same npu/Import API and checks).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_COMPARE_COMPAREINPUT_H
#define NPU_COMPARE_COMPAREINPUT_H

#include "npu/Import/HFConfig.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <string>

namespace mlir::npu {

/// The import options npu-compare exposes (npu-translate's names).
struct CompareImportOptions {
  std::string phase = "prefill"; ///< prefill or decode
  int64_t batch = 1;
  int64_t seqLen = 4096;
  int64_t contextLen = 4096;
  std::string weightDType = "bf16";
};

/// Parses and verifies the npu IR module in `path` ("-": stdin). The buffer
/// goes to `sourceMgr`, so that diagnostics can quote it.
OwningOpRef<ModuleOp> readModuleFile(llvm::SourceMgr &sourceMgr,
                                     MLIRContext *ctx, StringRef path);

/// Imports the config.json in `path` with `options`; fails with a
/// diagnostic naming the file and the field or option at fault.
/// Reads and parses a config.json; emits at `loc` (naming the file and the
/// field) and fails otherwise.
FailureOr<ModelConfig> readConfigFile(StringRef path, Location loc);

/// The importer's options, checked (phase, dtype); emits at `loc` and fails
/// otherwise.
FailureOr<ImportOptions> toImportOptions(const CompareImportOptions &options,
                                         Location loc);

OwningOpRef<ModuleOp> importConfigFile(MLIRContext *ctx, StringRef path,
                                       const CompareImportOptions &options);

} // namespace mlir::npu

#endif // NPU_COMPARE_COMPAREINPUT_H
