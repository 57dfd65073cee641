//===- WeightsToGlobals.cpp - the npu-weights-to-globals pass -------------===//
//
// Every npu.weight becomes a read of a constant, external memref.global of
// its name: the parameter lives in device memory, bound by the runtime.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUWEIGHTSTOGLOBALS
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
struct NpuWeightsToGlobalsPass
    : public npu::impl::NpuWeightsToGlobalsBase<NpuWeightsToGlobalsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<WeightOp> weights;
    module.walk([&](WeightOp w) { weights.push_back(w); });
    OpBuilder b(&getContext());
    // Globals at the top of the module, in the order of first use.
    Block::iterator globalsEnd = module.getBody()->begin();
    for (WeightOp w : weights) {
      auto tensorType = cast<RankedTensorType>(w.getType());
      auto type =
          MemRefType::get(tensorType.getShape(), tensorType.getElementType());
      auto global = symbols.lookup<memref::GlobalOp>(w.getName());
      if (!global) {
        if (symbols.lookup(w.getName())) {
          w.emitError("npu-weights-to-globals: the weight name '")
              << w.getName() << "' is already a symbol of the module";
          return signalPassFailure();
        }
        b.setInsertionPoint(module.getBody(), globalsEnd);
        // Public and without an initial value: an external declaration.
        global = memref::GlobalOp::create(
            b, w.getLoc(), w.getName(), /*sym_visibility=*/nullptr, type,
            /*initial_value=*/nullptr, /*constant=*/true,
            b.getI64IntegerAttr(64));
        symbols.insert(global);
        globalsEnd = std::next(Block::iterator(global));
      } else if (global.getType() != type) {
        w.emitError("npu-weights-to-globals: weight '")
            << w.getName() << "' of type " << tensorType
            << " has the name of a global of type " << global.getType();
        return signalPassFailure();
      }
      b.setInsertionPoint(w);
      Value buffer =
          memref::GetGlobalOp::create(b, w.getLoc(), type, global.getName());
      Value tensor =
          bufferization::ToTensorOp::create(b, w.getLoc(), tensorType, buffer,
                                            /*restrict=*/true);
      w.replaceAllUsesWith(tensor);
      w.erase();
    }
  }
};
} // namespace
