//===- KernelInline.cpp - the untiled semantics of npu.kernel -------------===//
//
// An npu.kernel computes what its body computes: inlining the body (block
// arguments replaced by the inputs, results by the npu.yield operands) gives
// the graph IR the reference lowering defines.
//
//===----------------------------------------------------------------------===//

#include "npu/Conversion/Passes.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::npu;

void mlir::npu::inlineNpuKernels(Operation *root) {
  SmallVector<KernelOp> kernels;
  root->walk([&](KernelOp k) { kernels.push_back(k); });
  IRRewriter rewriter(root->getContext());
  for (KernelOp kernel : kernels) {
    auto yield = cast<YieldOp>(kernel.getBodyBlock().getTerminator());
    // A yielded block argument is the corresponding input once inlined.
    SmallVector<Value> results;
    for (Value v : yield.getValues()) {
      auto arg = dyn_cast<BlockArgument>(v);
      results.push_back(arg && arg.getOwner() == &kernel.getBodyBlock()
                            ? kernel.getInputs()[arg.getArgNumber()]
                            : v);
    }
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&kernel.getBodyBlock(), kernel,
                               kernel.getInputs());
    rewriter.replaceOp(kernel, results);
  }
}
