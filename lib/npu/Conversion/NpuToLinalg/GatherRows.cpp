//===- GatherRows.cpp - a row gather as one copy per row ------------------===//
//
// The embedding's reference lowering reads its table element by element
// (`tensor.extract` in a linalg.generic). Bufferized for a TPU-like core that
// is a scalar load from HBM per element: no DMA, not a program the core can
// run. Here such a gather becomes what a TPU kernel does: the tile's ids
// copied on chip, then one row of the table copied per id into an output
// tile on chip (a DMA each once bufferized, which npu-tpu-pipeline-row-dmas
// keeps in flight Q at a time), the tile then stored whole.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Tiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::npu;

namespace {
/// A generic computing out[i..., j] = table[row(ids[i...]), j]: one input
/// (the ids, indexed by the leading dims), one output whose last dim is the
/// table's row, and a body that reads a 2-D tensor defined outside it at
/// (row, linalg.index(last)), the row computed from the id alone.
struct RowGather {
  linalg::GenericOp op;
  tensor::ExtractOp read;
  /// The body ops that compute the row from the id, in order.
  SmallVector<Operation *> rowOps;
};

std::optional<RowGather> matchRowGather(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumResults() != 1 || op.getNumReductionLoops() != 0)
    return std::nullopt;
  auto outType = dyn_cast<RankedTensorType>(op.getResult(0).getType());
  if (!outType || outType.getRank() < 2)
    return std::nullopt;
  unsigned rank = outType.getRank();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<AffineExpr> leading;
  for (unsigned d = 0; d + 1 < rank; ++d)
    leading.push_back(getAffineDimExpr(d, op.getContext()));
  if (!maps[1].isIdentity() ||
      maps[0] != AffineMap::get(rank, 0, leading, op.getContext()))
    return std::nullopt;
  Block &body = op.getRegion().front();
  tensor::ExtractOp read;
  for (Operation &inner : body.without_terminator()) {
    if (auto e = dyn_cast<tensor::ExtractOp>(inner)) {
      if (read)
        return std::nullopt;
      read = e;
    } else if (inner.getNumRegions() || !isPure(&inner)) {
      return std::nullopt;
    }
  }
  if (!read || op.getRegion().isAncestor(read.getTensor().getParentRegion()))
    return std::nullopt;
  auto tableType = cast<RankedTensorType>(read.getTensor().getType());
  if (tableType.getRank() != 2 ||
      tableType.getDimSize(1) != outType.getDimSize(rank - 1))
    return std::nullopt;
  auto column = read.getIndices()[1].getDefiningOp<linalg::IndexOp>();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (!column || column.getDim() != rank - 1 ||
      yield.getValues().front() != read.getResult())
    return std::nullopt;
  // The row depends on the id only (no other index, no output value).
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work{read.getIndices()[0]};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == &body && arg.getArgNumber() != 0)
        return std::nullopt;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!op.getRegion().isAncestor(def->getParentRegion()))
      continue;
    if (isa<linalg::IndexOp>(def))
      return std::nullopt;
    if (slice.insert(def))
      llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> rowOps = slice.takeVector();
  llvm::sort(rowOps,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return RowGather{op, read, std::move(rowOps)};
}

void rewriteRowGather(RewriterBase &rewriter, RowGather g) {
  linalg::GenericOp op = g.op;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value ids = op.getDpsInputs()[0];
  auto idsType = cast<RankedTensorType>(ids.getType());
  Value out = op.getDpsInits()[0];
  auto outType = cast<RankedTensorType>(out.getType());
  unsigned lead = outType.getRank() - 1;
  // The ids on chip: a copy is a linalg op, whose input the memory passes
  // stage into VMEM (a scalar read of an HBM tensor would stay in HBM).
  SmallVector<OpFoldResult> idSizes = tensor::getMixedSizes(rewriter, loc, ids);
  Value idsCopy = linalg::CopyOp::create(rewriter, loc, ids,
                                         emptyTile(rewriter, loc, idSizes,
                                                   idsType.getElementType()))
                      .getResult(0);
  Value zero = constIndex(rewriter, loc, 0), one = constIndex(rewriter, loc, 1);
  OpFoldResult unit = rewriter.getIndexAttr(1);
  OpFoldResult width = tensor::getMixedSize(rewriter, loc, out, lead);
  Block &body = op.getRegion().front();
  // One loop per leading dim, the output threaded through them.
  std::function<Value(OpBuilder &, Location, SmallVector<Value> &, Value)>
      nest = [&](OpBuilder &b, Location l, SmallVector<Value> &ivs,
                 Value acc) -> Value {
    if (ivs.size() == lead) {
      IRMapping map;
      map.map(body.getArgument(0),
              tensor::ExtractOp::create(b, l, idsCopy, ivs).getResult());
      for (Operation *inner : g.rowOps)
        b.clone(*inner, map);
      Value row = map.lookupOrDefault(g.read.getIndices()[0]);
      Value slice =
          sliceOf(b, l, g.read.getTensor(), {row, zero}, {unit, width});
      SmallVector<OpFoldResult> offsets(ivs.begin(), ivs.end());
      offsets.push_back(b.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes(lead, unit);
      sizes.push_back(width);
      return insertSliceOf(b, l, slice, acc, offsets, sizes);
    }
    Value extent = tensor::DimOp::create(b, l, out, ivs.size());
    auto loop = scf::ForOp::create(
        b, l, zero, extent, one, ValueRange{acc},
        [&](OpBuilder &lb, Location ll, Value iv, ValueRange iter) {
          ivs.push_back(iv);
          Value next = nest(lb, ll, ivs, iter[0]);
          ivs.pop_back();
          scf::YieldOp::create(lb, ll, next);
        });
    return loop.getResult(0);
  };
  // The rows gather into a tile of their own (on chip, one DMA per row once
  // bufferized), which then replaces the output.
  Value tile =
      emptyTile(rewriter, loc, tensor::getMixedSizes(rewriter, loc, out),
                outType.getElementType());
  SmallVector<Value> ivs;
  Value result = nest(rewriter, loc, ivs, tile);
  rewriter.replaceOp(op, result);
}
} // namespace

void mlir::npu::gatherRowsByCopies(RewriterBase &rewriter, KernelOp kernel) {
  SmallVector<RowGather> gathers;
  kernel.getBodyBlock().walk([&](linalg::GenericOp op) {
    if (std::optional<RowGather> g = matchRowGather(op))
      gathers.push_back(*g);
  });
  for (RowGather &g : gathers)
    rewriteRowGather(rewriter, g);
}
