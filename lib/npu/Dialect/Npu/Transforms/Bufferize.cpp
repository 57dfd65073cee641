//===- Bufferize.cpp - npu-bufferize
//---------------------------------------===//
//
// One-shot module bufferization with the module's globals set aside and
// fanned-out read-only arguments read through one buffer: the two costs
// that made LLVM 22's bufferization quadratic in layers and in kernels
// (TpuMemoryPasses.td has the details and the measurements).
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/Npu/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUBUFFERIZE
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
/// Whether every use of `v` only reads it: a linalg op's input, a slice
/// whose uses only read it, or its sizes.
bool onlyRead(Value v) {
  return llvm::all_of(v.getUses(), [](OpOperand &use) {
    Operation *user = use.getOwner();
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user))
      return linalgOp.isDpsInput(&use);
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(user))
      return onlyRead(slice.getResult());
    return isa<tensor::DimOp>(user);
  });
}

/// A tensor argument of `func` read by several ops, and only read, is read
/// through one read-only buffer: its slices become subviews of it, seen as
/// non-writable tensors.
void readThroughOneBuffer(func::FuncOp func) {
  if (func.isExternal())
    return;
  Block &entry = func.getBody().front();
  OpBuilder b(func.getContext());
  for (BlockArgument arg : entry.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || arg.hasOneUse() || arg.use_empty() || !onlyRead(arg))
      continue;
    b.setInsertionPointToStart(&entry);
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    Value buffer =
        bufferization::ToBufferOp::create(b, arg.getLoc(), memrefType, arg,
                                          /*read_only=*/true);
    for (OpOperand &use : llvm::make_early_inc_range(arg.getUses())) {
      Operation *user = use.getOwner();
      if (user == buffer.getDefiningOp() || isa<tensor::DimOp>(user))
        continue;
      b.setInsertionPoint(user);
      Location loc = user->getLoc();
      if (auto slice = dyn_cast<tensor::ExtractSliceOp>(user)) {
        RankedTensorType sliceType = slice.getType();
        auto viewType = memref::SubViewOp::inferRankReducedResultType(
            sliceType.getShape(), memrefType, slice.getMixedOffsets(),
            slice.getMixedSizes(), slice.getMixedStrides());
        Value view = memref::SubViewOp::create(
            b, loc, viewType, buffer, slice.getMixedOffsets(),
            slice.getMixedSizes(), slice.getMixedStrides());
        Value tensor =
            bufferization::ToTensorOp::create(b, loc, sliceType, view,
                                              /*restrict=*/true);
        slice.replaceAllUsesWith(tensor);
        slice.erase();
        continue;
      }
      use.set(bufferization::ToTensorOp::create(b, loc, type, buffer,
                                                /*restrict=*/true));
    }
  }
}

struct NpuBufferizePass : public npu::impl::NpuBufferizeBase<NpuBufferizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>())
      readThroughOneBuffer(func);

    // The globals, in order, out of the module while it bufferizes.
    Block *body = module.getBody();
    SmallVector<memref::GlobalOp> globals(body->getOps<memref::GlobalOp>());
    Block setAside;
    for (memref::GlobalOp global : globals) {
      global->remove();
      setAside.push_back(global);
    }

    bufferization::OneShotBufferizationOptions options;
    options.bufferizeFunctionBoundaries = true;
    options.setFunctionBoundaryTypeConversion(
        bufferization::LayoutMapOption::IdentityLayoutMap);
    bufferization::BufferizationState state;
    LogicalResult result =
        bufferization::runOneShotModuleBufferize(module, options, state);

    // Back at the top of the module, in their order.
    Block::iterator at = body->begin();
    for (memref::GlobalOp global : globals) {
      global->remove();
      body->getOperations().insert(at, global);
    }
    if (failed(result))
      signalPassFailure();
  }
};
} // namespace
