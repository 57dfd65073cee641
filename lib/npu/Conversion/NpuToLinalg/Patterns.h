//===- Patterns.h - npu to linalg patterns, one entry per op family -------===//
//
// Private to the NpuToLinalg library. Each op family has its own file of
// patterns and adds them through one of these functions; the shared builders
// below are the few pieces every family needs.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_CONVERSION_NPUTOLINALG_PATTERNS_H
#define NPU_LIB_CONVERSION_NPUTOLINALG_PATTERNS_H

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::npu {

void populateMatmulToLinalgPatterns(RewritePatternSet &patterns);
void populateAttentionToLinalgPatterns(RewritePatternSet &patterns);
void populateNormToLinalgPatterns(RewritePatternSet &patterns);
void populateElementwiseToLinalgPatterns(RewritePatternSet &patterns);
void populateDataToLinalgPatterns(RewritePatternSet &patterns);
void populateMoEToLinalgPatterns(RewritePatternSet &patterns);
void populateKVCacheToLinalgPatterns(RewritePatternSet &patterns);
void populateQuantToLinalgPatterns(RewritePatternSet &patterns);

/// Iterator types of the linalg.generic ops the patterns build.
constexpr utils::IteratorType kPar = utils::IteratorType::parallel;
constexpr utils::IteratorType kRed = utils::IteratorType::reduction;
/// Converts a float scalar to `type` with arith.extf / arith.truncf (or
/// returns it unchanged). A stored format (fp8, fp4, e8m0) widens through
/// decodeToF32.
Value castFloat(OpBuilder &b, Location loc, Value v, Type type);
/// Whether `t` is a narrow float format whose widening the LLVM lowering
/// lacks (e4m3fn, e5m2, e2m1fn, e8m0fnu): decoded from its bits instead.
bool isStoredFormat(Type t);
/// The f32 value of a scalar of a stored format (QuantPatterns.cpp),
/// of an integer (signed), or of any other float type.
Value decodeToF32(OpBuilder &b, Location loc, Value v);
/// Whether encodeFromF32 takes `t`: the fp8 formats (e4m3fn, e5m2).
bool canEncodeFromF32(Type t);
/// `v` (any float) rounded to the fp8 type `t` (canEncodeFromF32), to the
/// nearest with ties to even as APFloat does: past the largest finite
/// value infinity (e5m2) or NaN (e4m3fn).
Value encodeFromF32(OpBuilder &b, Location loc, Value v, Type t);
/// Converts every element of a float tensor (static or dynamic sizes) to
/// `elementType` (a linalg.generic), or returns it unchanged when the type
/// already matches.
Value castTensor(OpBuilder &b, Location loc, Value tensor, Type elementType);
/// `tensor` converted into `dest` (same shape): a linalg.generic, or a
/// linalg.copy where the element types match (a value carried in `dest`'s
/// buffer, which an identity generic would fold away from).
Value castTensorInto(OpBuilder &b, Location loc, Value tensor, Value dest);
/// `tensor.empty` of `shape` x `elementType` filled with `value`.
Value createFilled(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Type elementType, double value);

/// A routed expert index (any integer type) as an `index` clamped to [0,
/// numExperts - 1], as npu.moe_experts reads it.
Value clampedExpert(OpBuilder &b, Location loc, Value idx, int64_t numExperts);
/// sum + exp(sink - m): an attention row's softmax sum with its sink (all
/// f32; m is the row's max score).
Value addSink(OpBuilder &b, Location loc, Value sum, Value m, Value sink);
/// c * tanh(s / c): npu.attention's logit soft-capping of an f32 score.
Value buildSoftcap(OpBuilder &b, Location loc, Value s, double c);
/// The first key a causal query at position `pos` (an index >= 0) sees,
/// AttentionOp::firstVisibleKey as index arithmetic: pos - window + 1 (not
/// clamped at 0) with a window, chunk * (pos floordiv chunk) with a chunk;
/// null with neither (every key up to pos).
Value buildFirstVisibleKey(OpBuilder &b, Location loc, Value pos,
                           int64_t window, int64_t chunk);
/// The first position whose first visible key is past `key`: key + window
/// with a window, chunk * (key floordiv chunk + 1) with a chunk; null with
/// neither.
Value buildFirstPositionPast(OpBuilder &b, Location loc, Value key,
                             int64_t window, int64_t chunk);
/// silu(g) * u = g / (1 + exp(-g)) * u, in f32 (npu.moe_experts' SwiGLU).
Value siluGate(OpBuilder &b, Location loc, Value g, Value u);
/// A routed expert's activation of f32 g and u: siluGate, or with
/// `limit` (npu.moe_experts' swiglu_limit, if set) GPT-OSS's clamped SwiGLU
/// (u' + 1) g' sigmoid(1.702 g') with g' = min(g, limit), u' = clamp(u,
/// -limit, limit).
Value expertGate(OpBuilder &b, Location loc, Value g, Value u, FloatAttr limit);
} // namespace mlir::npu

#endif // NPU_LIB_CONVERSION_NPUTOLINALG_PATTERNS_H
