//===- QuantPatterns.cpp - npu.dequantize to linalg -----------------------===//
//
// The narrow formats decoded from their bits with integer arith (LLVM has no
// 8- or 4-bit float types, and MLIR 22 lowers no extf from e4m3fn or e5m2):
// what the reference pipeline runs for npu.dequantize and for any widening
// from a stored format (an fp8 KV cache read by attention); and encoded
// from f32 with integer arith for a narrowing to fp8 (an fp8 KV cache
// written), rounding as APFloat does.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::npu;

namespace {
/// A minifloat layout: exponent and mantissa bits, bias, and which all-ones
/// exponents are special (fn: only the all-ones pattern is NaN; ieee: inf
/// and NaN; none: every pattern is finite).
struct Minifloat {
  unsigned expBits, manBits;
  int bias;
  enum { None, FiniteNaN, Ieee } specials;
};

std::optional<Minifloat> getMinifloat(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return Minifloat{4, 3, 7, Minifloat::FiniteNaN};
  if (isa<Float8E5M2Type>(t))
    return Minifloat{5, 2, 15, Minifloat::Ieee};
  if (isa<Float4E2M1FNType>(t))
    return Minifloat{2, 1, 1, Minifloat::None};
  return std::nullopt;
}

struct Ints {
  OpBuilder &b;
  Location l;
  Value c(int64_t v) {
    return arith::ConstantOp::create(b, l, b.getI32IntegerAttr(int32_t(v)));
  }
  Value f(float v) {
    return arith::ConstantOp::create(b, l, b.getF32FloatAttr(v));
  }
  Value shr(Value x, int64_t s) {
    return arith::ShRUIOp::create(b, l, x, c(s));
  }
  Value shl(Value x, int64_t s) { return arith::ShLIOp::create(b, l, x, c(s)); }
  Value mask(Value x, int64_t bits) {
    return arith::AndIOp::create(b, l, x, c((int64_t(1) << bits) - 1));
  }
  Value eq(Value x, int64_t v) {
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, x, c(v));
  }
  Value sel(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, l, cond, x, y);
  }
  Value asF32(Value bits) {
    return arith::BitcastOp::create(b, l, b.getF32Type(), bits);
  }
};

/// The f32 value of a minifloat from its bits `u` (zero-extended to i32):
/// (E == 0 ? M : M + 2^m) * 2^(max(E, 1) - bias - m), negated by the sign,
/// with the format's specials. Every power of two here is a normal f32.
Value decodeMinifloat(Ints &i, Value u, const Minifloat &f) {
  OpBuilder &b = i.b;
  Location l = i.l;
  Value e = i.mask(i.shr(u, f.manBits), f.expBits);
  Value m = i.mask(u, f.manBits);
  Value isSub = i.eq(e, 0);
  Value sig =
      i.sel(isSub, m, arith::OrIOp::create(b, l, m, i.c(1 << f.manBits)));
  Value eMin1 = arith::MaxUIOp::create(b, l, e, i.c(1));
  Value pow2 = i.asF32(i.shl(
      arith::AddIOp::create(b, l, eMin1, i.c(127 - f.bias - int(f.manBits))),
      23));
  Value mag = arith::MulFOp::create(
      b, l, arith::UIToFPOp::create(b, l, b.getF32Type(), sig), pow2);
  Value neg = i.eq(i.mask(i.shr(u, f.expBits + f.manBits), 1), 1);
  Value v = i.sel(neg, arith::NegFOp::create(b, l, mag), mag);
  int64_t allOnes = (int64_t(1) << f.expBits) - 1;
  Value nan = i.f(std::numeric_limits<float>::quiet_NaN());
  if (f.specials == Minifloat::FiniteNaN) {
    Value isNaN = arith::AndIOp::create(b, l, i.eq(e, allOnes),
                                        i.eq(m, (int64_t(1) << f.manBits) - 1));
    v = i.sel(isNaN, nan, v);
  } else if (f.specials == Minifloat::Ieee) {
    Value top = i.eq(e, allOnes);
    Value inf = i.sel(neg, i.f(-std::numeric_limits<float>::infinity()),
                      i.f(std::numeric_limits<float>::infinity()));
    v = i.sel(top, i.sel(i.eq(m, 0), inf, nan), v);
  }
  return v;
}

/// The bits of the minifloat nearest to the f32 `x` (ties to even), as
/// APFloat converts: a magnitude that rounds past the largest finite value
/// is infinity (Ieee) or NaN (FiniteNaN); NaN stays NaN. Normals are
/// rounded on the f32 bits (adding half an ulp of the target less one, plus
/// the kept mantissa's last bit, then truncating); subnormals by scaling to
/// units of the smallest subnormal and rounding to an even integer, which
/// is the field itself (2^m: the smallest normal). Returns i32.
Value encodeMinifloat(Ints &i, Value x, const Minifloat &f, double largest) {
  OpBuilder &b = i.b;
  Location l = i.l;
  int m = f.manBits, shift = 23 - m;
  Value bits = arith::BitcastOp::create(b, l, b.getI32Type(), x);
  Value absBits = i.mask(bits, 31);
  Value ax = i.asF32(absBits);
  Value lsb = i.mask(i.shr(absBits, shift), 1);
  Value rounded = arith::AndIOp::create(
      b, l,
      arith::AddIOp::create(
          b, l,
          arith::AddIOp::create(b, l, absBits, i.c((1 << (shift - 1)) - 1)),
          lsb),
      i.c(~((int64_t(1) << shift) - 1)));
  Value exponent =
      arith::SubIOp::create(b, l, i.shr(rounded, 23), i.c(127 - f.bias));
  Value normal = arith::OrIOp::create(b, l, i.shl(exponent, m),
                                      i.mask(i.shr(rounded, shift), m));
  // Subnormal: below the smallest normal, 2^(1 - bias).
  float minNormal = std::ldexp(1.0f, 1 - f.bias);
  Value isSub = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, ax,
                                      i.f(minNormal));
  Value units = math::RoundEvenOp::create(
      b, l,
      arith::MulFOp::create(b, l, ax, i.f(std::ldexp(1.0f, m - 1 + f.bias))));
  Value sub = arith::FPToUIOp::create(b, l, b.getI32Type(), units);
  Value field = i.sel(isSub, sub, normal);
  int64_t allOnes = (int64_t(1) << f.expBits) - 1;
  int64_t nanField = f.specials == Minifloat::Ieee
                         ? (allOnes << m) | (int64_t(1) << (m - 1))
                         : (allOnes << m) | ((int64_t(1) << m) - 1);
  int64_t overflowField =
      f.specials == Minifloat::Ieee ? allOnes << m : nanField;
  Value tooBig =
      arith::CmpFOp::create(b, l, arith::CmpFPredicate::UGT, i.asF32(rounded),
                            i.f(static_cast<float>(largest)));
  field = i.sel(tooBig, i.c(overflowField), field);
  Value isNaN = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
  field = i.sel(isNaN, i.c(nanField), field);
  Value sign = i.shl(i.shr(bits, 31), f.expBits + m);
  return arith::OrIOp::create(b, l, sign, field);
}

/// The bits of `v` (an 8- or 4-bit float) zero-extended to i32.
Value bitsOf(OpBuilder &b, Location l, Value v) {
  unsigned width = v.getType().getIntOrFloatBitWidth();
  Value raw = arith::BitcastOp::create(b, l, b.getIntegerType(width), v);
  return arith::ExtUIOp::create(b, l, b.getI32Type(), raw);
}
} // namespace

bool mlir::npu::isStoredFormat(Type t) {
  return getMinifloat(t).has_value() || isa<Float8E8M0FNUType>(t);
}

bool mlir::npu::canEncodeFromF32(Type t) {
  std::optional<Minifloat> f = getMinifloat(t);
  return f && f->specials != Minifloat::None;
}

Value mlir::npu::encodeFromF32(OpBuilder &b, Location l, Value v, Type t) {
  Ints i{b, l};
  const llvm::fltSemantics &sem = cast<FloatType>(t).getFloatSemantics();
  Value bits =
      encodeMinifloat(i, castFloat(b, l, v, b.getF32Type()), *getMinifloat(t),
                      llvm::APFloat::getLargest(sem).convertToDouble());
  unsigned width = t.getIntOrFloatBitWidth();
  Value narrow = arith::TruncIOp::create(b, l, b.getIntegerType(width), bits);
  return arith::BitcastOp::create(b, l, t, narrow);
}

Value mlir::npu::decodeToF32(OpBuilder &b, Location l, Value v) {
  Type t = v.getType();
  Ints i{b, l};
  if (auto f = getMinifloat(t))
    return decodeMinifloat(i, bitsOf(b, l, v), *f);
  if (isa<Float8E8M0FNUType>(t)) {
    // 2^(u - 127); 0xFF is NaN; u = 0 is 2^-127, an f32 subnormal.
    Value u = bitsOf(b, l, v);
    Value p = i.sel(i.eq(u, 0), i.c(0x00400000), i.shl(u, 23));
    return i.sel(i.eq(u, 0xFF), i.f(std::numeric_limits<float>::quiet_NaN()),
                 i.asF32(p));
  }
  if (isa<IntegerType>(t))
    return arith::SIToFPOp::create(b, l, b.getF32Type(), v);
  return castFloat(b, l, v, b.getF32Type());
}

namespace {
/// dequantize -> one linalg.generic: decode the value and its block's
/// scale (and the global scale) to f32, multiply, round once.
struct DequantizeToGeneric : OpRewritePattern<DequantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getResult().getType();
    unsigned rank = type.getRank();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> scaleIdx;
    for (auto [d, block] : llvm::enumerate(op.getBlock()))
      scaleIdx.push_back(getAffineDimExpr(d, ctx).floorDiv(block));
    SmallVector<Value> inputs = {op.getValues(), op.getScales()};
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank),
                                   AffineMap::get(rank, 0, scaleIdx, ctx)};
    if (Value g = op.getGlobal()) {
      inputs.push_back(g);
      maps.push_back(AffineMap::get(rank, 0, {}, ctx));
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    SmallVector<utils::IteratorType> iters(rank, kPar);
    Value r = linalg::GenericOp::create(
                  rewriter, loc, TypeRange{type}, inputs, ValueRange{init},
                  maps, iters,
                  [&](OpBuilder &b, Location l, ValueRange args) {
                    Value v =
                        arith::MulFOp::create(b, l, decodeToF32(b, l, args[0]),
                                              decodeToF32(b, l, args[1]));
                    if (inputs.size() == 3)
                      v = arith::MulFOp::create(b, l, v, args[2]);
                    linalg::YieldOp::create(
                        b, l, castFloat(b, l, v, type.getElementType()));
                  })
                  .getResult(0);
    rewriter.replaceOp(op, r);
    return success();
  }
};
} // namespace

void mlir::npu::populateQuantToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<DequantizeToGeneric>(patterns.getContext());
}
