//===- ImportTestUtils.h - importing the bundled configs in unit tests ----===//
//
// The fixture of the importer's unit tests: imports examples/configs/*.json
// through the C++ API and measures the parameters, the layer functions'
// weights, their work and the KV cache.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_UNITTESTS_IMPORTTESTUTILS_H
#define NPU_UNITTESTS_IMPORTTESTUTILS_H

#include "WorkTestUtils.h"

#include "npu/Import/HFConfig.h"

#include "mlir/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace mlir::npu::testing {

/// examples/configs of this source tree (found from this file's path, so
/// that the test needs no configure-time definition).
inline std::string configPath(llvm::StringRef name) {
  llvm::SmallString<256> path(__FILE__);
  llvm::sys::path::remove_filename(path); // unittests
  llvm::sys::path::remove_filename(path); // the source root
  llvm::sys::path::append(path, "examples", "configs", name + ".json");
  return std::string(path);
}

/// Sizes of a set of tensors.
struct Sizes {
  uint64_t elements = 0;
  uint64_t bytes = 0;
  void add(Type type) {
    elements += getNumElements(type).value();
    bytes += getNumBytes(type).value();
  }
};

class ImportTest : public WorkTest {
protected:
  /// Parses examples/configs/<name>.json and imports it; the module must
  /// verify.
  OwningOpRef<ModuleOp> import(llvm::StringRef name,
                               const ImportOptions &options) {
    std::string path = configPath(name);
    auto buffer = llvm::MemoryBuffer::getFile(path);
    EXPECT_TRUE(bool(buffer)) << path;
    if (!buffer)
      return nullptr;
    Location loc = FileLineColLoc::get(&context, path, 0, 0);
    FailureOr<ModelConfig> config =
        parseHFConfig((*buffer)->getBuffer(), path, loc);
    EXPECT_TRUE(succeeded(config)) << path;
    if (failed(config))
      return nullptr;
    EXPECT_TRUE(succeeded(verifyImportOptions(*config, options, loc)));
    OwningOpRef<ModuleOp> module = importModel(*config, options, &context);
    EXPECT_TRUE(module && succeeded(verify(*module))) << path;
    return module;
  }

  static ImportOptions prefill(int64_t seqLen) {
    ImportOptions o;
    o.phase = Phase::Prefill;
    o.seqLen = seqLen;
    return o;
  }
  static ImportOptions decode(int64_t batch, int64_t contextLen) {
    ImportOptions o;
    o.phase = Phase::Decode;
    o.batch = batch;
    o.contextLen = contextLen;
    return o;
  }

  /// All `npu.weight` results of the module: the model's parameters.
  static Sizes weights(ModuleOp module) {
    Sizes s;
    module.walk([&](WeightOp op) { s.add(op->getResult(0).getType()); });
    return s;
  }

  static func::FuncOp function(ModuleOp module, llvm::StringRef name) {
    auto f = module.lookupSymbol<func::FuncOp>(name);
    EXPECT_TRUE(f) << name.str();
    return f;
  }

  /// The `npu.param` arguments of a layer function: one layer's weights.
  static Sizes paramArgs(func::FuncOp f) {
    Sizes s;
    for (unsigned i = 0, e = f.getNumArguments(); i < e; ++i)
      if (f.getArgAttr(i, "npu.param"))
        s.add(f.getArgument(i).getType());
    return s;
  }

  /// Sum of the work of every op in one function.
  static Work workOf(func::FuncOp f) {
    Work total;
    f.walk([&](Operation *op) {
      FailureOr<Work> w = getCheckedWork(op);
      EXPECT_TRUE(succeeded(w));
      if (succeeded(w))
        total += *w;
    });
    EXPECT_FALSE(total.isOverflow());
    return total;
  }

  /// KV-cache bytes per token of one sequence: @model's cache arguments
  /// (every argument after the token ids and the write position, each
  /// [B, heads, rows, width]) summed, divided by B * rows.
  static uint64_t cacheBytesPerToken(ModuleOp module) {
    func::FuncOp model = function(module, "model");
    uint64_t perToken = 0;
    for (BlockArgument arg : model.getArguments().drop_front(2)) {
      auto type = cast<RankedTensorType>(arg.getType());
      uint64_t bytes = getNumBytes(type).value();
      uint64_t tokens = type.getDimSize(0) * type.getDimSize(2);
      EXPECT_EQ(bytes % tokens, 0u);
      perToken += bytes / tokens;
    }
    return perToken;
  }
};

} // namespace mlir::npu::testing

#endif // NPU_UNITTESTS_IMPORTTESTUTILS_H
