//===- TpuChunkLoads.cpp - the npu-tpu-chunk-loads pass -------------------===//
//
// A matmul marked `npu.load_chunks = n` (a GEMM tiling's `chunks`) computes
// its K step in n K chunks, each after its own chunk of the A and B tiles:
// the tile loads become n DMAs each, and each chunk of the matmul waits only
// for its chunks, so the first step starts on its first chunk while the
// rest arrive. Marked also `npu.store_bands = n` (one K step), its last K
// chunk runs in n row bands, each followed by its epilogue band and store
// (docs/memory-tpu.md, "Loads in K chunks").
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/SramLiveness.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

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
      if (llvm::is_contained(prev->getOperands(), buffer))
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

/// Maps every operand of `op` indexed by loop `loop` to its band `r` of
/// `n` along that loop (the others, broadcast along it, stay whole); fails
/// if such an operand's dim is not a static multiple of n.
LogicalResult bandOperands(OpBuilder &b, linalg::LinalgOp op, unsigned loop,
                           int64_t r, int64_t n, IRMapping &map) {
  AffineExpr d = getAffineDimExpr(loop, op.getContext());
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    std::optional<unsigned> pos =
        op.getMatchingIndexingMap(&operand).getResultPosition(d);
    if (!pos)
      continue;
    if (type.isDynamicDim(*pos) || type.getDimSize(*pos) % n != 0)
      return failure();
    map.map(operand.get(),
            chunkView(b, op.getLoc(), operand.get(), *pos, r, n));
  }
  return success();
}

/// The loop of `op` that indexes dim `pos` of its operand `operand`.
std::optional<unsigned> loopOf(linalg::LinalgOp op, OpOperand &operand,
                               unsigned pos) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  if (pos >= map.getNumResults())
    return std::nullopt;
  if (auto dim = dyn_cast<AffineDimExpr>(map.getResult(pos)))
    return dim.getPosition();
  return std::nullopt;
}

/// Computes the matmul `mm` (the last K chunk of a step whose output tile
/// is complete after it) in n row bands of its accumulator, each followed
/// by its band of the epilogue (element-wise ops from the accumulator to
/// the stored buffer) and by its own store DMA, which start where the one
/// store started; the one store's waits become waits on all of them.
LogicalResult bandStores(linalg::GenericOp mm, int64_t n) {
  auto fail = [&](const Twine &why) {
    return mm.emitError("npu-tpu-chunk-loads: cannot store this matmul's "
                        "output in ")
           << n << " row bands: " << why;
  };
  OpOperand *accOperand = mm.getDpsInitOperand(0);
  Value acc = accOperand->get();
  auto accType = cast<MemRefType>(acc.getType());
  if (accType.getRank() < 2)
    return fail("its accumulator has no row dim");
  unsigned rowPos = accType.getRank() - 2;
  std::optional<unsigned> rowLoop = loopOf(mm, *accOperand, rowPos);
  if (!rowLoop)
    return fail("its rows are not a loop");
  // The chain from the accumulator to the store, in order.
  llvm::SmallPtrSet<Value, 4> chain{getRootBuffer(acc)};
  auto inChain = [&](Value v) {
    return isa<BaseMemRefType>(v.getType()) && chain.contains(getRootBuffer(v));
  };
  SmallVector<std::pair<linalg::LinalgOp, unsigned>> epilogue;
  DmaStartOp store;
  for (Operation *o = mm->getNextNode(); o && !store; o = o->getNextNode()) {
    if (isa<ViewLikeOpInterface, DmaWaitOp>(o))
      continue;
    if (auto dma = dyn_cast<DmaStartOp>(o)) {
      if (inChain(dma.getTarget()))
        return fail("a DMA writes it");
      if (inChain(dma.getSource()))
        store = dma;
      continue;
    }
    if (!llvm::any_of(o->getOperands(), inChain))
      continue;
    auto op = dyn_cast<linalg::LinalgOp>(o);
    if (!op || op.getNumReductionLoops() != 0 || !op.hasPureBufferSemantics())
      return fail("an op other than an element-wise epilogue uses it");
    // The epilogue loop that runs along the rows: the one indexing the row
    // dim of an operand from the chain.
    std::optional<unsigned> loop;
    for (OpOperand &operand : op->getOpOperands())
      if (inChain(operand.get()) && !loop)
        loop = loopOf(op, operand, rowPos);
    if (!loop)
      return fail("an epilogue op does not run along its rows");
    epilogue.push_back({op, *loop});
    for (OpOperand &init : op.getDpsInitsMutable())
      chain.insert(getRootBuffer(init.get()));
  }
  auto shapeOf = [](Value v) {
    return cast<MemRefType>(v.getType()).getShape();
  };
  if (!store || !isHbm(store.getTarget().getType()) ||
      shapeOf(store.getSource()) != accType.getShape() ||
      shapeOf(store.getTarget()) != accType.getShape())
    return fail("no store of the whole tile follows it in its block");

  OpBuilder b(store);
  Location loc = store.getLoc();
  SmallVector<Value> tokens;
  for (int64_t r = 0; r < n; ++r) {
    IRMapping map;
    if (failed(bandOperands(b, mm, *rowLoop, r, n, map)))
      return fail("a row dim is not a static multiple of the bands");
    b.clone(*mm, map);
    for (auto [op, loop] : epilogue) {
      IRMapping epi;
      if (failed(bandOperands(b, op, loop, r, n, epi)))
        return fail("an epilogue dim is not a static multiple of the bands");
      b.clone(*op, epi);
    }
    Value src = chunkView(b, loc, store.getSource(), rowPos, r, n);
    Value dst = chunkView(b, loc, store.getTarget(), rowPos, r, n);
    tokens.push_back(DmaStartOp::create(b, loc, src, dst).getToken());
  }
  for (Operation *user :
       llvm::make_early_inc_range(store.getToken().getUsers())) {
    auto wait = dyn_cast<DmaWaitOp>(user);
    if (!wait)
      return fail("its store's token is used by a non-wait");
    b.setInsertionPoint(wait);
    for (Value t : tokens)
      DmaWaitOp::create(b, loc, t);
    wait.erase();
  }
  store.erase();
  for (auto [op, loop] : llvm::reverse(epilogue))
    op->erase();
  mm.erase();
  return success();
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
  Operation *last = nullptr;
  for (int64_t c = 0; c < n; ++c) {
    IRMapping map;
    for (auto [i, input] : llvm::enumerate(inputs)) {
      if (!input)
        continue;
      if (input->dma)
        DmaWaitOp::create(b, loc, tokens[i][c]);
      map.map(op.getDpsInputOperand(i)->get(), input->chunks[c]);
    }
    last = b.clone(*op, map);
    last->removeAttr("npu.load_chunks");
    last->removeAttr("npu.store_bands");
  }
  for (std::optional<Input> &input : inputs) {
    if (!input || !input->dma)
      continue;
    input->wait.erase();
    input->dma.erase();
  }
  auto bands = op->getAttrOfType<IntegerAttr>("npu.store_bands");
  op.erase();
  if (bands && bands.getInt() > 1)
    return bandStores(cast<linalg::GenericOp>(last), bands.getInt());
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
