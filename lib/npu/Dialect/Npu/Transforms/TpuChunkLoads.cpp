//===- TpuChunkLoads.cpp - the npu-tpu-chunk-loads pass -------------------===//
//
// A matmul marked `npu.load_chunks = n` (a GEMM tiling's `chunks`) computes
// its K step in n K chunks, each after its own chunk of the A and B tiles:
// the tile loads become n DMAs each, and each chunk of the matmul waits only
// for its chunks, so the first step starts on its first chunk while the
// rest arrive (docs/memory-tpu.md, "Loads in K chunks").
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/SramLiveness.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUTPUCHUNKLOADS
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
/// One input of the matmul: its dim that K indexes and, when it is loaded
/// by a DMA of its own waited for just before the matmul, that DMA.
struct Input {
  unsigned dim;
  DmaStartOp dma;
  DmaWaitOp wait;
  SmallVector<Value> chunks; ///< the chunk views, in K order
};

/// The view of `v` that chunk `c` of `n` along `dim` covers.
Value chunkView(OpBuilder &b, Location loc, Value v, unsigned dim, int64_t c,
                int64_t n) {
  auto type = cast<MemRefType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)),
      strides(rank, b.getIndexAttr(1)),
      sizes = memref::getMixedSizes(b, loc, v);
  int64_t size = type.getDimSize(dim) / n;
  offsets[dim] = b.getIndexAttr(c * size);
  sizes[dim] = b.getIndexAttr(size);
  return memref::SubViewOp::create(b, loc, v, offsets, sizes, strides);
}

/// The DMA that loads exactly `buffer` before `op` in its block, with its
/// only wait between the two and nothing else touching `buffer` there.
std::pair<DmaStartOp, DmaWaitOp> findLoad(Operation *op, Value buffer) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto dma = dyn_cast<DmaStartOp>(prev);
    if (!dma) {
      bool touches = llvm::any_of(prev->getOperands(),
                                  [&](Value v) { return v == buffer; });
      if (touches && !isa<DmaWaitOp>(prev))
        return {};
      continue;
    }
    if (dma.getTarget() != buffer)
      continue;
    if (!isHbm(dma.getSource().getType()) || !dma.getToken().hasOneUse())
      return {};
    auto wait = dyn_cast<DmaWaitOp>(*dma.getToken().getUsers().begin());
    if (!wait || wait->getBlock() != op->getBlock() ||
        !wait->isBeforeInBlock(op))
      return {};
    return {dma, wait};
  }
  return {};
}

LogicalResult chunk(linalg::GenericOp op, int64_t n) {
  unsigned k = op.getNumLoops() - 1;
  if (op.getNumReductionLoops() != 1 ||
      op.getIteratorTypesArray()[k] != utils::IteratorType::reduction ||
      !op.hasPureBufferSemantics())
    return op.emitError("npu-tpu-chunk-loads: npu.load_chunks needs a "
                        "matmul on buffers whose last loop is its reduction");
  // Every input the reduction indexes is split along its dim of K.
  SmallVector<std::optional<Input>> inputs;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    std::optional<unsigned> pos =
        map.getResultPosition(getAffineDimExpr(k, op.getContext()));
    auto type = dyn_cast<MemRefType>(in->get().getType());
    if (!pos) {
      inputs.push_back(std::nullopt);
      continue;
    }
    if (!type || type.isDynamicDim(*pos) || type.getDimSize(*pos) % n != 0 ||
        llvm::count_if(map.getResults(),
                       [&](AffineExpr e) { return e.isFunctionOfDim(k); }) != 1)
      return op.emitError("npu-tpu-chunk-loads: input #")
             << in->getOperandNumber() << " of type " << in->get().getType()
             << " cannot be split into " << n << " K chunks";
    Input input{*pos, {}, {}, {}};
    std::tie(input.dma, input.wait) = findLoad(op, in->get());
    inputs.push_back(input);
  }

  OpBuilder b(op);
  Location loc = op.getLoc();
  // The loads: n DMAs each, in K order, where the one DMA was.
  SmallVector<SmallVector<Value>> tokens(inputs.size());
  for (auto [i, input] : llvm::enumerate(inputs)) {
    if (!input || !input->dma)
      continue;
    b.setInsertionPoint(input->dma);
    for (int64_t c = 0; c < n; ++c) {
      Value src = chunkView(b, loc, input->dma.getSource(), input->dim, c, n);
      Value dst = chunkView(b, loc, input->dma.getTarget(), input->dim, c, n);
      tokens[i].push_back(DmaStartOp::create(b, loc, src, dst).getToken());
      input->chunks.push_back(dst);
    }
  }
  // The matmul: chunk c after the waits of its loads.
  b.setInsertionPoint(op);
  for (auto [i, input] : llvm::enumerate(inputs)) {
    if (!input || input->dma)
      continue;
    Value whole = op.getDpsInputOperand(i)->get();
    for (int64_t c = 0; c < n; ++c)
      input->chunks.push_back(chunkView(b, loc, whole, input->dim, c, n));
  }
  for (int64_t c = 0; c < n; ++c) {
    IRMapping map;
    for (auto [i, input] : llvm::enumerate(inputs)) {
      if (!input)
        continue;
      if (input->dma)
        DmaWaitOp::create(b, loc, tokens[i][c]);
      map.map(op.getDpsInputOperand(i)->get(), input->chunks[c]);
    }
    Operation *part = b.clone(*op, map);
    part->removeAttr("npu.load_chunks");
  }
  for (std::optional<Input> &input : inputs) {
    if (!input || !input->dma)
      continue;
    input->wait.erase();
    input->dma.erase();
  }
  op.erase();
  return success();
}

struct NpuTpuChunkLoadsPass
    : public npu::impl::NpuTpuChunkLoadsBase<NpuTpuChunkLoadsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, int64_t>> marked;
    getOperation().walk([&](linalg::GenericOp op) {
      if (auto n = op->getAttrOfType<IntegerAttr>("npu.load_chunks"))
        marked.push_back({op, n.getInt()});
    });
    for (auto [op, n] : marked) {
      if (n == 1) {
        op->removeAttr("npu.load_chunks");
        continue;
      }
      if (failed(chunk(op, n)))
        return signalPassFailure();
    }
  }
};
} // namespace
