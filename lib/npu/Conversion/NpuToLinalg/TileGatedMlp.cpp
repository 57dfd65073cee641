//===- TileGatedMlp.cpp - M x F tiling of gated MLP kernels ---------------===//
//
// The down projection of swiglu(x Wg^T, x Wu^T) becomes, on tensors:
//
//   for each M tile (rows of x):
//     acc = 0                                     [tm, D] f32
//     for each F tile f:
//       g, u = 0                                  [tm, tf] f32
//       for each D chunk c:  g += x[:, c] Wg[f, c]^T;  u += x[:, c] Wu[f, c]^T
//       h   = silu(g) * u                         [tm, tf], never whole
//       for each D chunk c:  acc[:, c] += h Wd[c, f]^T
//     out tile = acc
//
// so the [M, F] intermediates exist one tile at a time, and with D in
// chunks (a small SRAM) so do the weights' [tf, D] rows (buildGatedFLoop;
// one chunk: no D loops). Each value is rounded to the element type of the
// op that produced it in the graph, as the reference lowering does;
// accumulation is in f32, in D's and F's order (the matmuls' f32
// accumulator is required). Other ops of the body (a norm producing x, a
// residual add) use the reference patterns.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Tiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::npu;

namespace {
using utils::IteratorType;

/// An f32 value rounded to `type` and back (the rounding of a graph value).
Value roundVia(OpBuilder &b, Location loc, Value v, Type type) {
  if (type.isF32())
    return v;
  return castFloat(b, loc, castFloat(b, loc, v, type), b.getF32Type());
}

Type elementType(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// `sum` (f32) rounded in place to `type`.
Value roundInPlace(OpBuilder &b, Location loc, Value sum, Type type) {
  if (type.isF32())
    return sum;
  return buildGeneric(
      b, loc, ValueRange{}, ValueRange{sum},
      {loopsMap(b.getContext(), 2, {0, 1})}, {kPar, kPar},
      [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
        return {roundVia(nb, l, a[0], type)};
      })[0];
}

struct GatedMlp {
  MatmulOp gate, up, down;
  SwigluOp swiglu;
};

/// The gate/up/swiglu/down chain of the body, if it is one.
std::optional<GatedMlp> match(KernelOp kernel) {
  SmallVector<SwigluOp> swiglus(kernel.getBodyBlock().getOps<SwigluOp>());
  if (swiglus.size() != 1)
    return std::nullopt;
  SwigluOp sw = swiglus.front();
  auto gate = sw.getGate().getDefiningOp<MatmulOp>();
  auto up = sw.getUp().getDefiningOp<MatmulOp>();
  if (!gate || !up || gate == up || !gate->hasOneUse() || !up->hasOneUse() ||
      !sw->hasOneUse() || gate.getLhs() != up.getLhs())
    return std::nullopt;
  auto down = dyn_cast<MatmulOp>(*sw->getUsers().begin());
  if (!down || down.getLhs() != sw.getResult())
    return std::nullopt;
  for (MatmulOp mm : {gate, up, down})
    if (mm.getTransposeLhs() || mm.getRhs().getType().getRank() != 2 ||
        !mm.getAccumulatorType().isF32())
      return std::nullopt;
  return GatedMlp{gate, up, down, sw};
}

/// The F tile [f0, f0 + nf) and D chunk [d0, d0 + nd) of the gate (0), up
/// (1) or down (2) weight, as GatedWeightsFn gives it.
GatedWeightTile weightTile(OpBuilder &b, Location loc, const GatedMlp &mlp,
                           unsigned which, Value f0, OpFoldResult nf,
                           OpFoldResult d0, OpFoldResult nd) {
  MatmulOp mm = which == 0 ? mlp.gate : which == 1 ? mlp.up : mlp.down;
  bool t = mm.getTransposeRhs();
  // Gate and up: [F, D] transposed, else [D, F]; down: [D, F] transposed,
  // else [F, D].
  bool fFirst = (which == 2) != t;
  Value w = fFirst ? sliceOf(b, loc, mm.getRhs(), {f0, d0}, {nf, nd})
                   : sliceOf(b, loc, mm.getRhs(), {d0, f0}, {nd, nf});
  return {w, t};
}
/// Where the rows of a [..., D] tensor lie when all its leading dimensions
/// but one (`rowDim`, the last non-unit one) are 1 ([1, S, D] in a prefill,
/// [B, 1, D] in a decode): then a tile of rows is a slice in the tensor's
/// own rank (`inRank`).
struct RowsInRank {
  int64_t rank, rowDim;
  bool inRank;
  explicit RowsInRank(RankedTensorType t) : rank(t.getRank()) {
    ArrayRef<int64_t> leading = t.getShape().drop_back();
    rowDim = rank - 2;
    for (auto [i, n] : llvm::enumerate(leading))
      if (n != 1)
        rowDim = i;
    inRank = rank > 2 &&
             llvm::count_if(leading, [](int64_t n) { return n != 1; }) <= 1;
  }
  /// Offsets and sizes of rows [m0, m0 + nm) and all `cols` columns: in
  /// the tensor's rank when inRank, else of the rows as a matrix.
  std::pair<SmallVector<OpFoldResult>, SmallVector<OpFoldResult>>
  slice(OpBuilder &b, OpFoldResult m0, OpFoldResult nm, int64_t cols) const {
    SmallVector<OpFoldResult> offsets = {m0}, sizes = {nm};
    if (inRank) {
      offsets.assign(rank - 1, b.getIndexAttr(0));
      sizes.assign(rank - 1, b.getIndexAttr(1));
      offsets[rowDim] = m0;
      sizes[rowDim] = nm;
    }
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(cols));
    return {offsets, sizes};
  }
};
} // namespace

LogicalResult mlir::npu::tileGatedMlpKernel(RewriterBase &rewriter,
                                            KernelOp kernel, TilingAttr tiling,
                                            bool gpuBlocks) {
  std::optional<GatedMlp> mlp = match(kernel);
  if (tiling.getTile().size() != MlpNest<>::kSize || !mlp)
    return failure();
  MlpNest<> tile = MlpNest<>::from(tiling.getTile());
  MatmulOp down = mlp->down;
  Location loc = down.getLoc();
  MLIRContext *ctx = kernel.getContext();
  Type f32 = rewriter.getF32Type();
  Value x = mlp->gate.getLhs();
  auto xType = cast<RankedTensorType>(x.getType());
  auto resType = down.getResult().getType();
  Type resElem = resType.getElementType();
  int64_t rank = xType.getRank(), d = xType.getShape().back();
  int64_t m = xType.getNumElements() / d;
  int64_t f = mlp->gate.getResult().getType().getShape().back();
  int64_t dOut = resType.getShape().back();
  int64_t tileM = std::min(tile.m, m), tileF = std::min(tile.f, f);
  int64_t tileD = std::min(tile.d, d);

  rewriter.setInsertionPoint(down);
  // Leading dims of x flattened into M rows.
  ReassociationIndices lead = llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
  SmallVector<ReassociationIndices> reassoc = {lead, {rank - 1}};
  RowsInRank rows(xType);
  Value xc = rank == 2
                 ? x
                 : tensor::CollapseShapeOp::create(rewriter, loc, x, reassoc)
                       .getResult();
  // With the rows in x's own rank the output is built in its rank (each
  // tile expanded), so that an element-wise consumer (the residual add) reads
  // the loop's result directly and can be fused into it.
  Value outInit =
      rows.inRank
          ? tensor::EmptyOp::create(rewriter, loc, resType.getShape(), resElem)
                .getResult()
          : tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{m, dOut},
                                    resElem)
                .getResult();
  OpFoldResult zero = rewriter.getIndexAttr(0);
  OpFoldResult dOutSize = rewriter.getIndexAttr(dOut);
  // One M tile per block of rows (on a GPU-like target, a thread block).
  Value result = buildTileGrid(
      rewriter, loc, {m}, {tileM}, outInit, gpuBlocks,
      [&](OpBuilder &b, Location l, ValueRange ivs) -> OutputTile {
        Value m0 = ivs[0];
        Value nm = tileSize(b, l, m0, tileM, m);
        // With the rows in x's rank and x computed in the body (a norm), a
        // slice of x itself (collapsed after), so that the op computing x
        // can be fused into the loop; otherwise a slice of x as a matrix.
        Value xt;
        if (rows.inRank && x.getParentBlock() == &kernel.getBodyBlock() &&
            x.getDefiningOp()) {
          auto [offsets, sizes] = rows.slice(b, m0, nm, d);
          xt = tensor::CollapseShapeOp::create(
              b, l, sliceOf(b, l, x, offsets, sizes), reassoc);
        } else {
          xt = sliceOf(b, l, xc, {m0, zero}, {nm, b.getIndexAttr(d)});
          // With D in chunks, every F tile reads x's chunks: the M tile of
          // x is copied on chip once (a linalg op's input is staged into
          // VMEM), not loaded per chunk.
          if (tileD < d)
            xt = copyTile(b, l, xt, {nm, b.getIndexAttr(d)});
        }
        Type hElem = elementType(mlp->swiglu.getResult());
        GatedActivation act = mlp->swiglu.getActivation();
        Value acc = buildGatedFLoop(
            b, l, xt, filledTile(b, l, {nm, dOutSize}, f32, 0.0), nm, f, tileF,
            d, tileD, elementType(mlp->gate.getResult()),
            elementType(mlp->up.getResult()),
            [&](OpBuilder &wb, Location wl, Value f0, OpFoldResult nf,
                unsigned which, OpFoldResult d0, OpFoldResult nd) {
              return weightTile(wb, wl, *mlp, which, f0, nf, d0, nd);
            },
            [&](OpBuilder &nb, Location bl, Value g, Value u, Value) {
              Value v = arith::MulFOp::create(
                  nb, bl, buildGateActivationF32(nb, bl, g, act), u);
              return roundVia(nb, bl, v, hElem);
            });
        // The output tile: the f32 accumulator rounded to the result type,
        // written in the result's rank (its rows in it) when the output
        // is built in it.
        auto [offsets, sizes] = rows.slice(b, m0, nm, dOut);
        unsigned outRank = sizes.size();
        unsigned rowLoop = rows.inRank ? rows.rowDim : 0;
        Value outTile = buildGeneric(
            b, l, ValueRange{acc}, ValueRange{emptyTile(b, l, sizes, resElem)},
            {loopsMap(ctx, outRank, {rowLoop, outRank - 1}),
             b.getMultiDimIdentityMap(outRank)},
            SmallVector<IteratorType>(outRank, kPar),
            [&](OpBuilder &nb, Location bl,
                ValueRange a) -> SmallVector<Value> {
              return {castFloat(nb, bl, a[0], resElem)};
            })[0];
        return {outTile, offsets, sizes};
      });
  if (rank != 2 && !rows.inRank)
    result =
        tensor::ExpandShapeOp::create(rewriter, loc, resType, result, reassoc);
  rewriter.replaceOp(down, result);
  rewriter.eraseOp(mlp->swiglu);
  rewriter.eraseOp(mlp->gate);
  rewriter.eraseOp(mlp->up);
  return success();
}

/// `body(d0, nd, iter)` over [0, n) in chunks of `tile` (the last one
/// short), carrying `init`: one scf.for, or with `tile` >= n the body once
/// at 0 (no loop).
static SmallVector<Value>
overChunks(OpBuilder &b, Location loc, int64_t n, int64_t tile, ValueRange init,
           function_ref<SmallVector<Value>(OpBuilder &, Location, OpFoldResult,
                                           OpFoldResult, ValueRange)>
               body) {
  if (tile >= n)
    return body(b, loc, b.getIndexAttr(0), b.getIndexAttr(n), init);
  auto loop = scf::ForOp::create(
      b, loc, constIndex(b, loc, 0), constIndex(b, loc, n),
      constIndex(b, loc, tile), init,
      [&](OpBuilder &lb, Location l, Value d0, ValueRange iter) {
        scf::YieldOp::create(
            lb, l, body(lb, l, d0, tileExtent(lb, l, d0, tile, n), iter));
      });
  return loop.getResults();
}

/// One F tile (`nf` wide) of buildGatedFLoop: acc plus its down
/// projection; `weight(which, d0, nd)` gives its weight tiles.
static Value buildGatedFTile(
    OpBuilder &b, Location loc, Value xt, Value acc, OpFoldResult nm, Value f0,
    OpFoldResult nf, int64_t d, int64_t tileD, Type gType, Type uType,
    function_ref<GatedWeightTile(OpBuilder &, Location, unsigned, OpFoldResult,
                                 OpFoldResult)>
        weight,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value)> combine,
    GatedBiasesFn biases) {
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  OpFoldResult zero = b.getIndexAttr(0);
  // g and u in f32 over the D chunks of x (the reduction in D's order, as
  // one loop over D would sum it), then rounded.
  SmallVector<Value> gu = overChunks(
      b, loc, d, tileD,
      {filledTile(b, loc, {nm, nf}, f32, 0.0),
       filledTile(b, loc, {nm, nf}, f32, 0.0)},
      [&](OpBuilder &cb, Location cl, OpFoldResult d0, OpFoldResult nd,
          ValueRange iter) -> SmallVector<Value> {
        Value xc = tileD >= d ? xt : sliceOf(cb, cl, xt, {zero, d0}, {nm, nd});
        SmallVector<Value> out;
        Type types[] = {gType, uType};
        for (auto [which, type] : llvm::enumerate(types)) {
          GatedWeightTile w = weight(cb, cl, which, d0, nd);
          out.push_back(
              buildMatmulTile(cb, cl, xc, w.tile, w.transposed, iter[which]));
          // One chunk: rounded as soon as it is summed.
          if (tileD >= d)
            out.back() = roundInPlace(cb, cl, out.back(), type);
        }
        return out;
      });
  Value g = tileD >= d ? gu[0] : roundInPlace(b, loc, gu[0], gType);
  Value u = tileD >= d ? gu[1] : roundInPlace(b, loc, gu[1], uType);
  AffineMap id2 = loopsMap(ctx, 2, {0, 1});
  // h = combine(g (+ its bias), u (+ its bias)), in g's buffer.
  SmallVector<Value> ins = {u};
  SmallVector<AffineMap> maps = {id2};
  if (biases) {
    std::array<Value, 2> tiles = biases(b, loc, f0, nf);
    ins.append(tiles.begin(), tiles.end());
    maps.append(2, loopsMap(ctx, 2, {1}));
  }
  maps.push_back(id2);
  Value h = buildGeneric(
      b, loc, ins, ValueRange{g}, maps, {kPar, kPar},
      [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
        Value gv = a.back(), uv = a[0];
        if (biases) {
          gv = arith::AddFOp::create(nb, l, gv, castFloat(nb, l, a[1], f32));
          uv = arith::AddFOp::create(nb, l, uv, castFloat(nb, l, a[2], f32));
        }
        return {combine(nb, l, gv, uv, f0)};
      })[0];
  // acc[:, chunk] += h Wd[chunk, f]^T, chunk by chunk of the output's width.
  int64_t dOut = cast<RankedTensorType>(acc.getType()).getDimSize(1);
  return overChunks(
      b, loc, dOut, tileD, {acc},
      [&](OpBuilder &cb, Location cl, OpFoldResult d0, OpFoldResult nd,
          ValueRange iter) -> SmallVector<Value> {
        GatedWeightTile w = weight(cb, cl, 2, d0, nd);
        if (tileD >= dOut)
          return {buildMatmulTile(cb, cl, h, w.tile, w.transposed, iter[0])};
        Value part = sliceOf(cb, cl, iter[0], {zero, d0}, {nm, nd});
        Value sum = buildMatmulTile(cb, cl, h, w.tile, w.transposed, part);
        return {insertSliceOf(cb, cl, sum, iter[0], {zero, d0}, {nm, nd})};
      })[0];
}

Value mlir::npu::buildGatedFLoop(
    OpBuilder &b, Location loc, Value xt, Value acc0, OpFoldResult nm,
    int64_t f, int64_t tileF, int64_t d, int64_t tileD, Type gType, Type uType,
    GatedWeightsFn weight,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value)> combine,
    GatedBiasesFn biases, GatedSide *side) {
  SmallVector<Value, 2> init = {acc0};
  if (side)
    init.push_back(side->init);
  auto loop = scf::ForOp::create(
      b, loc, constIndex(b, loc, 0), constIndex(b, loc, f),
      constIndex(b, loc, tileF), init,
      [&](OpBuilder &fb, Location fl, Value f0, ValueRange iter) {
        OpFoldResult nf = tileExtent(fb, fl, f0, tileF, f);
        SmallVector<Value, 2> next;
        Value carried = side ? side->step(fb, fl, f0, iter[1]) : Value();
        next.push_back(buildGatedFTile(
            fb, fl, xt, iter[0], nm, f0, nf, d, tileD, gType, uType,
            [&](OpBuilder &wb, Location wl, unsigned which, OpFoldResult d0,
                OpFoldResult nd) {
              return weight(wb, wl, f0, nf, which, d0, nd);
            },
            combine, biases));
        if (side)
          next.push_back(carried);
        scf::YieldOp::create(fb, fl, next);
      });
  if (side)
    side->init = loop.getResult(1);
  return loop.getResult(0);
}

Value mlir::npu::buildMatmulTile(OpBuilder &b, Location loc, Value lhs,
                                 Value rhs, bool transposed, Value acc) {
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  // Loops (i, j, k).
  return buildGeneric(
      b, loc, ValueRange{lhs, rhs}, ValueRange{acc},
      {loopsMap(ctx, 3, {0, 2}),
       loopsMap(ctx, 3,
                transposed ? ArrayRef<unsigned>{1, 2}
                           : ArrayRef<unsigned>{2, 1}),
       loopsMap(ctx, 3, {0, 1})},
      {kPar, kPar, kRed},
      [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
        Value p = arith::MulFOp::create(nb, l, castFloat(nb, l, a[0], f32),
                                        castFloat(nb, l, a[1], f32));
        return {arith::AddFOp::create(nb, l, a[2], p)};
      })[0];
}
