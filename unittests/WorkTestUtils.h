//===- WorkTestUtils.h - parse IR and sum its work, for unit tests -------===//

#ifndef NPU_UNITTESTS_WORKTESTUTILS_H
#define NPU_UNITTESTS_WORKTESTUTILS_H

#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

namespace mlir::npu::testing {

class WorkTest : public ::testing::Test {
protected:
  WorkTest() { context.loadDialect<NpuDialect, func::FuncDialect>(); }

  OwningOpRef<ModuleOp> parse(llvm::StringRef source) {
    return parseSourceString<ModuleOp>(source, &context);
  }

  /// The target `name` (npu-target/); null, with a test failure, if it
  /// does not load.
  TargetAttr target(llvm::StringRef name) {
    llvm::Expected<target::TargetFile> f = target::loadTarget(&context, name);
    EXPECT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
    return f ? f->attr : TargetAttr();
  }

  /// Sum of the work of every op in `module`; on overflow, fails and stores
  /// the diagnostic in `diag`.
  FailureOr<Work> sumWork(ModuleOp module, std::string *diag = nullptr) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      if (diag)
        *diag += d.str();
      return success();
    });
    Work total;
    bool failed = false;
    module.walk([&](Operation *op) {
      FailureOr<Work> w = getCheckedWork(op);
      if (mlir::failed(w))
        failed = true;
      else
        total += *w;
    });
    if (failed)
      return failure();
    return total;
  }

  /// Parses `source` (which must verify) and returns the sum of its work.
  Work workOf(llvm::StringRef source) {
    OwningOpRef<ModuleOp> module = parse(source);
    EXPECT_TRUE(module) << "IR does not parse or verify";
    if (!module)
      return Work();
    FailureOr<Work> w = sumWork(*module);
    EXPECT_TRUE(succeeded(w));
    return succeeded(w) ? *w : Work();
  }

  MLIRContext context;
};

} // namespace mlir::npu::testing

#endif // NPU_UNITTESTS_WORKTESTUTILS_H
