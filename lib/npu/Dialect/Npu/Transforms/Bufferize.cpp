//===- Bufferize.cpp - npu-bufferize -------------------------------------===//
//
// One-shot module bufferization with the module's globals set aside, a
// fanned-out read-only argument read through one buffer, and the entry
// function's boundary bufferized beforehand: the three costs that made
// LLVM 22's bufferization quadratic in layers and in kernels
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
#include "mlir/IR/SymbolTable.h"

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

/// `value`, a tensor read by several ops and only read, is read through one
/// read-only buffer: its slices become subviews of it, seen as non-writable
/// tensors. `b` is set where the buffer is made.
void readThroughOneBuffer(OpBuilder &b, TypedValue<RankedTensorType> value) {
  RankedTensorType type = value.getType();
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  Value buffer =
      bufferization::ToBufferOp::create(b, value.getLoc(), memrefType, value,
                                        /*read_only=*/true);
  for (OpOperand &use : llvm::make_early_inc_range(value.getUses())) {
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
      Value tensor = bufferization::ToTensorOp::create(b, loc, sliceType, view,
                                                       /*restrict=*/true);
      slice.replaceAllUsesWith(tensor);
      slice.erase();
      continue;
    }
    use.set(bufferization::ToTensorOp::create(b, loc, type, buffer,
                                              /*restrict=*/true));
  }
}

/// The boundary of a function nothing calls (the model's entry), bufferized
/// here: its tensor arguments become identity-layout buffers read as
/// writable tensors, its tensor results the buffers of the returned values.
/// One-shot module bufferization then has no tensor boundary to analyze
/// there: it relates every tensor argument to every result (O(args x
/// results)), for the callers' benefit, and an entry has none.
void bufferizeEntryBoundary(func::FuncOp func) {
  OpBuilder b(func.getContext());
  Block &entry = func.getBody().front();
  auto toMemRef = [](Type t) -> Type {
    if (auto tensor = dyn_cast<RankedTensorType>(t))
      return MemRefType::get(tensor.getShape(), tensor.getElementType());
    return t;
  };
  b.setInsertionPointToStart(&entry);
  for (BlockArgument arg : entry.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type)
      continue;
    arg.setType(toMemRef(type));
    auto tensor = bufferization::ToTensorOp::create(
        b, arg.getLoc(), type, arg, /*restrict=*/true, /*writable=*/true);
    arg.replaceAllUsesExcept(tensor, tensor);
  }
  func.walk([&](func::ReturnOp ret) {
    b.setInsertionPoint(ret);
    for (OpOperand &operand : ret->getOpOperands())
      if (isa<RankedTensorType>(operand.get().getType()))
        operand.set(bufferization::ToBufferOp::create(
            b, ret.getLoc(), toMemRef(operand.get().getType()), operand.get()));
  });
  FunctionType type = func.getFunctionType();
  func.setType(FunctionType::get(
      func.getContext(), llvm::map_to_vector(type.getInputs(), toMemRef),
      llvm::map_to_vector(type.getResults(), toMemRef)));
}

/// The tensors of `func` that npu-bufferize reads through one buffer: its
/// tensor arguments (or, at an entry, the tensors read from them) read by
/// several ops and only read.
void readFanOutsThroughOneBuffer(func::FuncOp func) {
  OpBuilder b(func.getContext());
  Block &entry = func.getBody().front();
  for (BlockArgument arg : entry.getArguments()) {
    Value value = arg;
    b.setInsertionPointToStart(&entry);
    if (arg.hasOneUse())
      if (auto read = dyn_cast<bufferization::ToTensorOp>(*arg.user_begin())) {
        value = read.getResult();
        b.setInsertionPointAfter(read);
      }
    auto tensor = dyn_cast<TypedValue<RankedTensorType>>(value);
    if (tensor && !tensor.use_empty() && !tensor.hasOneUse() &&
        onlyRead(tensor))
      readThroughOneBuffer(b, tensor);
  }
}

struct NpuBufferizePass : public npu::impl::NpuBufferizeBase<NpuBufferizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbolTables;
    SymbolUserMap users(symbolTables, module);
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (func.isPublic() && users.getUsers(func).empty())
        bufferizeEntryBoundary(func);
      readFanOutsThroughOneBuffer(func);
    }

    // The globals out of the module while it bufferizes, each with the op
    // it followed (null: the first), to go back where it was.
    Block *body = module.getBody();
    SmallVector<std::pair<memref::GlobalOp, Operation *>> globals;
    for (auto global : body->getOps<memref::GlobalOp>())
      globals.push_back({global, global->getPrevNode()});
    Block setAside;
    for (auto [global, after] : globals) {
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

    // Back where they were, in their order: each after the op it followed
    // (an earlier global is back by then); what bufferization added stays
    // where it put it.
    for (auto [global, after] : globals) {
      if (after) {
        global->moveAfter(after);
      } else if (!body->empty()) {
        global->moveBefore(&body->front());
      } else {
        global->remove();
        body->push_back(global);
      }
    }
    if (failed(result))
      signalPassFailure();
  }
};
} // namespace
