//===- TileBuilders.cpp - small builders on tiles of dynamic size ---------===//

#include "Tiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

#include <functional>

using namespace mlir;
using namespace mlir::npu;

Value mlir::npu::emptyTile(OpBuilder &b, Location loc,
                           ArrayRef<OpFoldResult> sizes, Type elementType) {
  return tensor::EmptyOp::create(b, loc, sizes, elementType);
}

Value mlir::npu::copyTile(OpBuilder &b, Location loc, Value tile,
                          ArrayRef<OpFoldResult> sizes) {
  Type elementType = cast<RankedTensorType>(tile.getType()).getElementType();
  return linalg::CopyOp::create(b, loc, tile,
                                emptyTile(b, loc, sizes, elementType))
      .getResult(0);
}

Value mlir::npu::filledTile(OpBuilder &b, Location loc,
                            ArrayRef<OpFoldResult> sizes, Type elementType,
                            double value) {
  Value init = emptyTile(b, loc, sizes, elementType);
  Value cst = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(cast<FloatType>(elementType), value));
  return linalg::FillOp::create(b, loc, cst, init).getResult(0);
}

Value mlir::npu::sliceOf(OpBuilder &b, Location loc, Value source,
                         ArrayRef<OpFoldResult> offsets,
                         ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, source, offsets, sizes,
                                        strides);
}

Value mlir::npu::constIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value mlir::npu::insertSliceOf(OpBuilder &b, Location loc, Value source,
                               Value dest, ArrayRef<OpFoldResult> offsets,
                               ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(b, loc, source, dest, offsets, sizes,
                                       strides);
}

Value mlir::npu::tileSize(OpBuilder &b, Location loc, Value iv, int64_t tile,
                          int64_t total) {
  Value rest = arith::SubIOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, total), iv);
  return arith::MinSIOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, tile), rest);
}

OpFoldResult mlir::npu::tileExtent(OpBuilder &b, Location loc, Value iv,
                                   int64_t tile, int64_t total) {
  if (total % tile == 0)
    return b.getIndexAttr(tile);
  return tileSize(b, loc, iv, tile, total);
}

AffineMap mlir::npu::loopsMap(MLIRContext *ctx, unsigned numLoops,
                              ArrayRef<unsigned> dims) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d : dims)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(numLoops, 0, exprs, ctx);
}

ValueRange mlir::npu::buildGeneric(
    OpBuilder &b, Location loc, ValueRange ins, ValueRange inits,
    ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iters,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body) {
  return linalg::GenericOp::create(
             b, loc, TypeRange(inits), ins, inits, maps, iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, body(nb, nl, args));
             })
      ->getResults();
}

Value mlir::npu::f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

Value mlir::npu::buildSiluF32(OpBuilder &b, Location loc, Value x) {
  Value one = f32Const(b, loc, 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  Value den = arith::AddFOp::create(b, loc, one, e);
  Value s = arith::DivFOp::create(b, loc, one, den);
  return arith::MulFOp::create(b, loc, x, s);
}

Value mlir::npu::buildGeluF32(OpBuilder &b, Location loc, Value x, bool tanh) {
  Value one = f32Const(b, loc, 1.0);
  Value half = f32Const(b, loc, 0.5);
  Value t;
  if (tanh) {
    // tanh(sqrt(2/pi) * (x + 0.044715 x^3)) with the constants folded:
    // u = (x*x) * c1 + c0; tanh(u * x).
    const double sqrt2OverPi = std::sqrt(2.0 / M_PI);
    Value c0 = f32Const(b, loc, sqrt2OverPi);
    Value c1 = f32Const(b, loc, sqrt2OverPi * 0.044715);
    Value u = arith::MulFOp::create(b, loc, x, x);
    u = arith::MulFOp::create(b, loc, u, c1);
    u = arith::AddFOp::create(b, loc, u, c0);
    u = arith::MulFOp::create(b, loc, u, x);
    t = math::TanhOp::create(b, loc, u);
  } else {
    Value rsqrt2 = f32Const(b, loc, M_SQRT1_2);
    t = math::ErfOp::create(b, loc, arith::MulFOp::create(b, loc, x, rsqrt2));
  }
  Value halfX = arith::MulFOp::create(b, loc, x, half);
  Value onePlus = arith::AddFOp::create(b, loc, one, t);
  return arith::MulFOp::create(b, loc, halfX, onePlus);
}

Value mlir::npu::buildGateActivationF32(OpBuilder &b, Location loc, Value g,
                                        GatedActivation act) {
  if (act == GatedActivation::Silu)
    return buildSiluF32(b, loc, g);
  return buildGeluF32(b, loc, g, act == GatedActivation::GeluTanh);
}

SmallVector<Attribute> mlir::npu::getGpuBlockMapping(MLIRContext *ctx,
                                                     size_t n) {
  SmallVector<Attribute> dims;
  for (gpu::MappingId id :
       {gpu::MappingId::DimZ, gpu::MappingId::DimY, gpu::MappingId::DimX})
    dims.push_back(gpu::GPUBlockMappingAttr::get(ctx, id));
  return SmallVector<Attribute>(ArrayRef(dims).take_back(n));
}

Value mlir::npu::buildTileGrid(
    OpBuilder &b, Location loc, ArrayRef<int64_t> ubs, ArrayRef<int64_t> steps,
    Value init, bool gpuBlocks,
    function_ref<OutputTile(OpBuilder &, Location, ValueRange)> body,
    function_ref<void(OpBuilder &, Location, unsigned, ValueRange)> enter,
    ArrayRef<int64_t> lanes) {
  assert(!(gpuBlocks && enter) && "a thread-block grid has no outer body");
  assert((lanes.empty() || (!gpuBlocks && lanes.size() == ubs.size())) &&
         "lanes: one per dim of an scf.for nest");
  auto strides = [&](OpBuilder &bb, size_t n) {
    return SmallVector<OpFoldResult>(n, bb.getIndexAttr(1));
  };
  if (gpuBlocks) {
    SmallVector<OpFoldResult> lbs(ubs.size(), b.getIndexAttr(0)), hi, st;
    for (auto [u, s] : llvm::zip(ubs, steps)) {
      hi.push_back(b.getIndexAttr(u));
      st.push_back(b.getIndexAttr(s));
    }
    auto forall = scf::ForallOp::create(
        b, loc, lbs, hi, st, ValueRange{init},
        b.getArrayAttr(getGpuBlockMapping(b.getContext(), ubs.size())));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forall.getBody());
    OutputTile t = body(b, loc, forall.getInductionVars());
    b.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(
        b, loc, t.value, forall.getRegionIterArgs()[0], t.offsets, t.sizes,
        strides(b, t.sizes.size()));
    return forall.getResult(0);
  }
  // An scf.for per dim, the output carried through the nest.
  SmallVector<Value> ivs;
  std::function<Value(OpBuilder &, Location, unsigned, Value)> nest =
      [&](OpBuilder &bb, Location l, unsigned d, Value out) -> Value {
    if (d == ubs.size()) {
      OutputTile t = body(bb, l, ivs);
      return insertSliceOf(bb, l, t.value, out, t.offsets, t.sizes);
    }
    int64_t n = lanes.empty() ? 1 : lanes[d];
    // The dim's tiles from `first`, `n` tiles apart.
    auto tiles = [&](OpBuilder &tb, Location tl, Value first, Value carried,
                     bool entered) {
      auto loop = scf::ForOp::create(
          tb, tl, first, arith::ConstantIndexOp::create(tb, tl, ubs[d]),
          arith::ConstantIndexOp::create(tb, tl, n * steps[d]),
          ValueRange{carried},
          [&](OpBuilder &lb, Location ll, Value iv, ValueRange iter) {
            ivs.push_back(iv);
            if (enter && !entered)
              enter(lb, ll, d, ivs);
            Value inner = nest(lb, ll, d + 1, iter[0]);
            ivs.pop_back();
            scf::YieldOp::create(lb, ll, inner);
          });
      return loop.getResult(0);
    };
    if (n == 1)
      return tiles(bb, l, arith::ConstantIndexOp::create(bb, l, 0), out,
                   /*entered=*/false);
    auto laneLoop = scf::ForOp::create(
        bb, l, arith::ConstantIndexOp::create(bb, l, 0),
        arith::ConstantIndexOp::create(bb, l, n),
        arith::ConstantIndexOp::create(bb, l, 1), ValueRange{out},
        [&](OpBuilder &lb, Location ll, Value lane, ValueRange iter) {
          if (enter)
            enter(lb, ll, d, ivs);
          Value first = arith::MulIOp::create(
              lb, ll, lane, arith::ConstantIndexOp::create(lb, ll, steps[d]));
          scf::YieldOp::create(lb, ll,
                               tiles(lb, ll, first, iter[0], /*entered=*/true));
        });
    return laneLoop.getResult(0);
  };
  return nest(b, loc, 0, init);
}

linalg::LinalgOp mlir::npu::getTileableResultOp(Value v) {
  auto op = v.getDefiningOp<linalg::LinalgOp>();
  if (!op || !op.hasPureTensorSemantics() || op->getNumResults() == 0 ||
      !isa<TilingInterface>(op.getOperation()))
    return nullptr;
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(op.getNumLoops(), op.getContext())
          .getMajorSubMap(type.getRank());
  for (OpResult r : op->getResults())
    if (cast<RankedTensorType>(r.getType()).getShape() != type.getShape() ||
        op.getIndexingMapMatchingResult(r) != identity)
      return nullptr;
  return op;
}

FailureOr<scf::SCFTileAndFuseResult>
mlir::npu::tileAndFuseResultOp(RewriterBase &rewriter, KernelOp kernel,
                               linalg::LinalgOp op,
                               const scf::SCFTileAndFuseOptions &options) {
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTileAndFuseResult> res =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(res))
    return failure();
  for (Value original : op->getResults())
    rewriter.replaceAllUsesWith(original, res->replacements.lookup(original));
  (void)runRegionDCE(rewriter, kernel->getRegions());
  return res;
}

void mlir::npu::fuseElementwiseInTileLoops(KernelOp kernel,
                                           bool soleUsersOnly) {
  RewritePatternSet patterns(kernel.getContext());
  linalg::populateElementwiseOpsFusionPatterns(
      patterns, [&](OpOperand *operand) {
        auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
        Operation *loop = consumer ? consumer->getParentOp() : nullptr;
        return consumer &&
               consumer.getNumLoops() == consumer.getNumParallelLoops() &&
               isa<scf::ForOp, scf::ForallOp>(loop) &&
               kernel->isProperAncestor(loop) &&
               (!soleUsersOnly || operand->get().hasOneUse());
      });
  // Only the merges: no folding or region simplification of the rest.
  GreedyRewriteConfig config;
  config.enableFolding(false)
      .enableConstantCSE(false)
      .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  (void)applyPatternsGreedily(kernel, std::move(patterns), config);
}

void mlir::npu::foldEmptyTensors(KernelOp kernel) {
  RewritePatternSet patterns(kernel.getContext());
  tensor::populateFoldTensorEmptyPatterns(patterns);
  linalg::populateSwapExtractSliceWithFillPatterns(patterns);
  (void)applyPatternsGreedily(kernel, std::move(patterns));
}
