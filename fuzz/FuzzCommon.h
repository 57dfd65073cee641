//===- FuzzCommon.h - shared pieces of the npu libFuzzer targets -*- C++
//-*-===//
//
// Each fuzzer (fuzz/npu-fuzz-*.cpp) creates a fresh MLIRContext per input,
// so that nothing one input interns (types, attributes, locations) stays
// alive for the next one: memory stays flat and a crash reproduces from the
// one input alone. Diagnostics are rendered to a string and dropped: the
// rendering code runs (it prints ops, types and attributes) but stderr stays
// readable for libFuzzer's own reports.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_FUZZ_FUZZCOMMON_H
#define NPU_FUZZ_FUZZCOMMON_H

#include "npu/InitAll.h"
#include "npu/Support/InputFiles.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace npu_fuzz {

/// The npu dialect and every upstream dialect npu-opt registers.
inline const mlir::DialectRegistry &getRegistry() {
  static const mlir::DialectRegistry registry = [] {
    mlir::DialectRegistry r;
    mlir::npu::registerAllDialects(r);
    return r;
  }();
  return registry;
}

/// A single-threaded context; the parser loads the dialects of getRegistry()
/// it meets. Diagnostics are kept (the first 64 KiB) for fail() messages.
class FuzzContext {
public:
  FuzzContext()
      : context(getRegistry(), mlir::MLIRContext::Threading::DISABLED),
        handler(&context, [this](mlir::Diagnostic &diag) {
          std::string text = diag.str(); // exercises the printers
          if (diagnostics.size() < 65536)
            diagnostics += text + "\n";
          return mlir::success();
        }) {}
  mlir::MLIRContext *get() { return &context; }
  const std::string &getDiagnostics() const { return diagnostics; }

private:
  mlir::MLIRContext context;
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler;
};

/// The file name a loader that requires "<name>.json" (targets, systems)
/// is given for a JSON input: its string "name", else "fuzz.json".
inline std::string jsonFileName(llvm::StringRef json) {
  if (llvm::Expected<llvm::json::Value> v = llvm::json::parse(json)) {
    if (const llvm::json::Object *o = v->getAsObject())
      if (std::optional<llvm::StringRef> name = o->getString("name"))
        return (*name + ".json").str();
  } else {
    llvm::consumeError(v.takeError());
  }
  return "fuzz.json";
}

/// How a fuzzer's text reaches the parser: `Input` is text from outside,
/// which the tools check for nesting depth before MLIR's parser recurses on
/// it (checkIrNesting, docs/limits.md), so the fuzzer refuses it as they do;
/// `Printed` is a module's own print, parsed back unchecked (a generic form
/// may nest deeper than its source, and is bounded by it).
enum class Text { Input, Printed };

/// Parses `data` as a module. The text is copied into a std::string so that
/// the parser, which reads one byte past the end, finds a NUL there.
inline mlir::OwningOpRef<mlir::ModuleOp> parseModule(mlir::MLIRContext *context,
                                                     const uint8_t *data,
                                                     size_t size,
                                                     Text kind = Text::Input) {
  std::string text(reinterpret_cast<const char *>(data), size);
  if (kind == Text::Input) {
    if (llvm::Error e = mlir::npu::checkIrNesting(text)) {
      llvm::consumeError(std::move(e));
      return nullptr;
    }
  }
  return mlir::parseSourceString<mlir::ModuleOp>(text, context, "fuzz-input");
}

/// Parses and verifies; null when the input is not a valid module.
inline mlir::OwningOpRef<mlir::ModuleOp>
parseVerifiedModule(mlir::MLIRContext *context, const uint8_t *data,
                    size_t size, Text kind = Text::Input) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      parseModule(context, data, size, kind);
  if (!module || mlir::failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

/// True when every op is an npu, func or builtin op: what the importer
/// produces and the npu pipelines are for.
inline bool isNpuGraph(mlir::ModuleOp module) {
  return !module
              ->walk([](mlir::Operation *op) {
                llvm::StringRef ns = op->getName().getDialectNamespace();
                return ns == "npu" || ns == "func" || ns == "builtin"
                           ? mlir::WalkResult::advance()
                           : mlir::WalkResult::interrupt();
              })
              .wasInterrupted();
}

/// Points stdout at /dev/null: the reports print to llvm::outs() (and
/// traces to "-"); fd 1 stays open, since a closed stdout is a fatal error
/// at exit. Called from LLVMFuzzerInitialize.
inline void discardStdout() {
  int null = open("/dev/null", O_WRONLY);
  if (null >= 0)
    dup2(null, STDOUT_FILENO);
}

/// Stops the fuzzer with a finding that is not a crash by itself (an invariant
/// the code under test broke).
[[noreturn]] inline void fail(const llvm::Twine &what) {
  llvm::errs() << "npu fuzz invariant broken: " << what << "\n";
  llvm::errs().flush();
  std::abort();
}

} // namespace npu_fuzz

#endif // NPU_FUZZ_FUZZCOMMON_H
