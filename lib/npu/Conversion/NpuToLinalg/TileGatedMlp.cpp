//===- TileGatedMlp.cpp - M x F tiling of gated MLP kernels ---------------===//
//
// The down projection of swiglu(x Wg^T, x Wu^T) becomes, on tensors:
//
//   for each M tile (rows of x):
//     acc = 0                                     [tm, D] f32
//     for each F tile f:
//       h   = silu(x Wg[f]^T) * (x Wu[f]^T)       [tm, tf], never whole
//       acc = acc + h Wd[:, f]^T
//     out tile = acc
//
// so the [M, F] intermediates exist one tile at a time. Each value is
// rounded to the element type of the op that produced it in the graph, as
// the reference lowering does; accumulation is in f32 (the matmuls' f32
// accumulator is required). The model width D is not tiled. Other ops of
// the body (a norm producing x, a residual add) use the reference patterns.
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
} // namespace

/// One F tile of the gated MLP for the M tile `xt` ([nm, D]) at F offset
/// `f0` of size `nf`: the gate and up projections' tiles, h = silu(g) * u,
/// and acc + h Wd[f, :] (the down projection's F slice).
static Value buildFTile(OpBuilder &fb, Location fl, const GatedMlp &mlp,
                        Value xt, Value nm, Value f0, Value nf, int64_t d,
                        int64_t dOut, Type hElem, Value acc) {
  MLIRContext *ctx = fb.getContext();
  OpFoldResult zero = fb.getIndexAttr(0), dOutSize = fb.getIndexAttr(dOut);
  MatmulOp down = mlp.down;
  OpFoldResult dd = fb.getIndexAttr(d);
  auto project = [&](MatmulOp mm) {
    bool t = mm.getTransposeRhs();
    Value w = t ? sliceOf(fb, fl, mm.getRhs(), {f0, zero}, {nf, dd})
                : sliceOf(fb, fl, mm.getRhs(), {zero, f0}, {dd, nf});
    return buildProjectionTile(fb, fl, xt, w, t, nm, nf,
                               elementType(mm.getResult()));
  };
  Value g = project(mlp.gate), u = project(mlp.up);
  AffineMap id2 = loopsMap(ctx, 2, {0, 1});
  // h = silu(g) * u, in g's buffer.
  Value h = buildGeneric(
      fb, fl, ValueRange{u}, ValueRange{g}, {id2, id2}, {kPar, kPar},
      [&](OpBuilder &nb, Location bl, ValueRange a) -> SmallVector<Value> {
        Value s =
            arith::MulFOp::create(nb, bl, buildSiluF32(nb, bl, a[1]), a[0]);
        return {roundVia(nb, bl, s, hElem)};
      })[0];
  // acc += h Wd[:, f]^T. Loops (i, n, f).
  bool t = down.getTransposeRhs();
  Value w = t ? sliceOf(fb, fl, down.getRhs(), {zero, f0}, {dOutSize, nf})
              : sliceOf(fb, fl, down.getRhs(), {f0, zero}, {nf, dOutSize});
  return buildMatmulTile(fb, fl, h, w, t, acc);
}

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
  Type hElem = elementType(mlp->swiglu.getResult());
  int64_t rank = xType.getRank(), d = xType.getShape().back();
  int64_t m = xType.getNumElements() / d;
  int64_t f = mlp->gate.getResult().getType().getShape().back();
  int64_t dOut = resType.getShape().back();
  int64_t tileM = std::min(tile.m, m), tileF = std::min(tile.f, f);

  rewriter.setInsertionPoint(down);
  // Leading dims of x flattened into M rows.
  ReassociationIndices lead = llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
  SmallVector<ReassociationIndices> reassoc = {lead, {rank - 1}};
  bool unitLead = rank > 2 && llvm::all_of(xType.getShape().drop_back(2),
                                           [](int64_t n) { return n == 1; });
  Value xc = rank == 2
                 ? x
                 : tensor::CollapseShapeOp::create(rewriter, loc, x, reassoc)
                       .getResult();
  // With unit leading dims the output is built in its own rank (each tile
  // expanded), so that an element-wise consumer (the residual add) reads
  // the loop's result directly and can be fused into it.
  Value outInit =
      unitLead
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
        // With unit leading dims and x computed in the body (a norm), a
        // slice of x itself (collapsed after), so that the op computing x
        // can be fused into the loop; otherwise a slice of x as a matrix.
        Value xt;
        if (unitLead && x.getParentBlock() == &kernel.getBodyBlock() &&
            x.getDefiningOp()) {
          SmallVector<OpFoldResult> offsets(rank - 2, zero),
              sizes(rank - 2, b.getIndexAttr(1));
          offsets.append({m0, zero});
          sizes.append({nm, b.getIndexAttr(d)});
          xt = tensor::CollapseShapeOp::create(
              b, l, sliceOf(b, l, x, offsets, sizes), reassoc);
        } else {
          xt = sliceOf(b, l, xc, {m0, zero}, {nm, b.getIndexAttr(d)});
        }
        Value acc0 = filledTile(b, l, {nm, dOutSize}, f32, 0.0);
        auto fLoop = scf::ForOp::create(
            b, l, constIndex(b, l, 0), constIndex(b, l, f),
            constIndex(b, l, tileF), ValueRange{acc0},
            [&](OpBuilder &fb, Location fl, Value f0, ValueRange iterF) {
              Value nf = tileSize(fb, fl, f0, tileF, f);
              scf::YieldOp::create(fb, fl,
                                   buildFTile(fb, fl, *mlp, xt, nm, f0, nf, d,
                                              dOut, hElem, iterF[0]));
            });
        // The output tile: the f32 accumulator rounded to the result type,
        // written in the result's rank (unit leading dims) when the output
        // is built in it.
        SmallVector<OpFoldResult> offsets, sizes;
        if (unitLead) {
          offsets.assign(rank - 2, zero);
          sizes.assign(rank - 2, b.getIndexAttr(1));
        }
        offsets.append({m0, zero});
        sizes.append({nm, dOutSize});
        unsigned outRank = sizes.size();
        Value outTile =
            buildGeneric(b, l, ValueRange{fLoop.getResult(0)},
                         ValueRange{emptyTile(b, l, sizes, resElem)},
                         {loopsMap(ctx, outRank, {outRank - 2, outRank - 1}),
                          b.getMultiDimIdentityMap(outRank)},
                         SmallVector<IteratorType>(outRank, kPar),
                         [&](OpBuilder &nb, Location bl,
                             ValueRange a) -> SmallVector<Value> {
                           return {castFloat(nb, bl, a[0], resElem)};
                         })[0];
        return {outTile, offsets, sizes};
      });
  if (rank != 2 && !unitLead)
    result =
        tensor::ExpandShapeOp::create(rewriter, loc, resType, result, reassoc);
  rewriter.replaceOp(down, result);
  rewriter.eraseOp(mlp->swiglu);
  rewriter.eraseOp(mlp->gate);
  rewriter.eraseOp(mlp->up);
  return success();
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

Value mlir::npu::buildProjectionTile(OpBuilder &b, Location loc, Value xt,
                                     Value w, bool transposed, OpFoldResult nm,
                                     OpFoldResult nf, Type resultType) {
  Value sum =
      buildMatmulTile(b, loc, xt, w, transposed,
                      filledTile(b, loc, {nm, nf}, b.getF32Type(), 0.0));
  if (resultType.isF32())
    return sum;
  // Rounded in place (the sum's buffer): one f32 tile per projection.
  return buildGeneric(
      b, loc, ValueRange{}, ValueRange{sum},
      {loopsMap(b.getContext(), 2, {0, 1})}, {kPar, kPar},
      [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
        return {roundVia(nb, l, a[0], resultType)};
      })[0];
}
