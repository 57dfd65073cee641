//===- NpuAttentionOps.cpp - Attention ops of the npu dialect ------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Support/FormatReal.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

AttentionOp::Dims AttentionOp::getDims() {
  auto q = getQuery().getType();
  auto k = getKey().getType();
  Dims d;
  d.batch = q.getDimSize(0);
  d.qHeads = q.getDimSize(1);
  d.qLen = q.getDimSize(2);
  d.qkDim = q.getDimSize(3);
  d.kvHeads = k.getDimSize(1);
  d.kvLen = k.getDimSize(2);
  if (Value v = getValue())
    d.vDim = cast<ShapedType>(v.getType()).getDimSize(3);
  else if (IntegerAttr latent = getLatentAttr())
    d.vDim = latent.getInt();
  else
    d.vDim = getResult().getType().getDimSize(3);
  return d;
}

double AttentionOp::getScaleValue() {
  if (FloatAttr s = getScaleAttr())
    return s.getValueAsDouble();
  return 1.0 /
         std::sqrt(static_cast<double>(getQuery().getType().getDimSize(3)));
}

/// x * y / 2 for x * y even, halving the even factor first so that no
/// intermediate exceeds the result.
static Count halfProduct(int64_t x, int64_t y) {
  if (x % 2 == 0)
    return Count::fromSigned(x / 2) * Count::fromSigned(y);
  return Count::fromSigned(x) * Count::fromSigned(y / 2);
}

/// sum over positions p < n of (p mod C) + 1: the keys the first n
/// positions see under chunk(C), whole chunks in closed form.
static Count chunkPrefixPairs(int64_t n, int64_t chunk) {
  return Count::fromSigned(n / chunk) * halfProduct(chunk, chunk + 1) +
         halfProduct(n % chunk, n % chunk + 1);
}

Count AttentionOp::countUnmaskedPairs(int64_t qLen, int64_t kvLen, bool causal,
                                      int64_t window, int64_t chunk) {
  if (qLen < 0 || kvLen < 0 || window < 0 || chunk < 0)
    return Count::overflowed();
  if (!causal)
    return Count::fromSigned(qLen) * Count::fromSigned(kvLen);
  if (qLen > kvLen)
    return Count::overflowed(); // rejected by the verifier
  if (qLen == 0)
    return Count(0);
  // Position p sees (p mod C) + 1 keys: the sum over [kvLen - qLen, kvLen).
  if (chunk > 0)
    return chunkPrefixPairs(kvLen, chunk) -
           chunkPrefixPairs(kvLen - qLen, chunk);
  // Query i sees min(n_i, W) keys, n_i = p_i + 1 = kvLen - qLen + 1 + i, so
  // n runs over the consecutive integers [first, kvLen].
  int64_t first = kvLen - qLen + 1;
  if (window == 0 || window >= kvLen) // the window never cuts
    return halfProduct(first + kvLen, qLen);
  if (window < first) // the window cuts every query
    return Count::fromSigned(qLen) * Count::fromSigned(window);
  // n in [first, window] sees n keys; n in (window, kvLen] sees window keys.
  return halfProduct(first + window, window - first + 1) +
         Count::fromSigned(kvLen - window) * Count::fromSigned(window);
}

int64_t AttentionOp::firstVisibleKey(int64_t p, int64_t window, int64_t chunk) {
  if (chunk > 0)
    return p - p % chunk;
  if (window > 0)
    return std::max<int64_t>(0, p - window + 1);
  return 0;
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

LogicalResult AttentionOp::verify() {
  auto q = getQuery().getType();
  auto k = getKey().getType();
  auto res = getResult().getType();
  auto v = getValue() ? cast<RankedTensorType>(getValue().getType())
                      : RankedTensorType();
  if (q.getRank() != 4)
    return emitOpError("query must have rank 4 [B, Hq, Sq, Dqk], got rank ")
           << q.getRank();
  if (k.getRank() != 4)
    return emitOpError("key must have rank 4 [B, Hkv, Skv, Dqk], got rank ")
           << k.getRank();
  if (v && v.getRank() != 4)
    return emitOpError("value must have rank 4 [B, Hkv, Skv, Dv], got rank ")
           << v.getRank();
  if (res.getRank() != 4)
    return emitOpError("result must have rank 4 [B, Hq, Sq, Dv], got rank ")
           << res.getRank();

  int64_t batch = q.getDimSize(0), qHeads = q.getDimSize(1),
          qLen = q.getDimSize(2), qkDim = q.getDimSize(3);
  int64_t kvHeads = k.getDimSize(1), kvLen = k.getDimSize(2);
  if (k.getDimSize(0) != batch)
    return emitOpError("batch sizes differ: query ")
           << batch << " vs key " << k.getDimSize(0);
  if (qHeads % kvHeads != 0)
    return emitOpError("query heads (Hq = ")
           << qHeads
           << ") must be a multiple of key/value heads (Hkv = " << kvHeads
           << ")";
  if (k.getDimSize(3) != qkDim)
    return emitOpError("query and key head dims differ: query Dqk = ")
           << qkDim << ", key " << k.getDimSize(3);

  // The value head dim, from the value operand or the latent attribute.
  IntegerAttr latent = getLatentAttr();
  int64_t vDim;
  if (v) {
    if (latent)
      return emitOpError("takes either a value operand or latent(Dv), not "
                         "both");
    if (v.getDimSize(0) != batch)
      return emitOpError("batch sizes differ: query ")
             << batch << " vs value " << v.getDimSize(0);
    if (v.getDimSize(1) != kvHeads || v.getDimSize(2) != kvLen)
      return emitOpError("value must have the heads and length of key (Hkv = ")
             << kvHeads << ", Skv = " << kvLen
             << "), got Hkv = " << v.getDimSize(1)
             << ", Skv = " << v.getDimSize(2);
    vDim = v.getDimSize(3);
  } else {
    if (!latent)
      return emitOpError("needs a value operand or latent(Dv) (V = "
                         "key[..., 0:Dv])");
    vDim = latent.getInt();
    if (vDim < 1 || vDim > qkDim)
      return emitOpError("latent(")
             << vDim << ") must be in [1, Dqk = " << qkDim
             << "]: V is a slice of key";
  }

  SmallVector<int64_t> expected = {batch, qHeads, qLen, vDim};
  if (res.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("result must be [B, Hq, Sq, Dv] = ")
           << shapeString(expected) << ", got " << shapeString(res.getShape());

  if (FloatAttr scale = getScaleAttr()) {
    double s = scale.getValueAsDouble();
    if (!std::isfinite(s) || s <= 0.0)
      return emitOpError("scale must be finite and > 0, got ")
             << formatShortestReal(s);
  }
  if (Value sinks = getSinks()) {
    auto s = cast<RankedTensorType>(sinks.getType());
    if (s.getRank() != 1 || s.getDimSize(0) != qHeads)
      return emitOpError("sinks must be [Hq] = [")
             << qHeads << "] (one logit per query head), got "
             << shapeString(s.getShape());
  }
  if (FloatAttr cap = getSoftcapAttr()) {
    double c = cap.getValueAsDouble();
    if (!std::isfinite(c) || c <= 0.0)
      return emitOpError("softcap must be finite and > 0, got ")
             << formatShortestReal(c);
  }
  if (IntegerAttr window = getWindowAttr()) {
    if (!getCausal())
      return emitOpError("window requires causal");
    if (window.getInt() < 1)
      return emitOpError("window must be >= 1, got ") << window.getInt();
  }
  if (IntegerAttr chunk = getChunkAttr()) {
    if (!getCausal())
      return emitOpError("chunk requires causal");
    if (getWindowAttr())
      return emitOpError("chunk and window are exclusive (a query sees the "
                         "keys of its chunk, or of its window)");
    if (chunk.getInt() < 1)
      return emitOpError("chunk must be >= 1, got ") << chunk.getInt();
  }
  if (getCausal() && qLen > kvLen)
    return emitOpError("causal needs Sq <= Skv (queries are the last Sq "
                       "positions), got Sq = ")
           << qLen << ", Skv = " << kvLen;
  return success();
}

Work AttentionOp::computeWork() {
  // query, key and value (if any) read once, the result written once. In
  // the latent form there is no value operand: V is a slice of key, which is
  // read once.
  Work w = getOperandResultTraffic(*this);
  Dims d = getDims();
  Count pairs = countUnmaskedPairs(d.qLen, d.kvLen, getCausal(),
                                   getWindowSize(), getChunkSize());
  Count heads = Count::fromSigned(d.batch) * Count::fromSigned(d.qHeads);
  Count scores = heads * pairs; // B*Hq*P
  // Q*K^T: Dqk MACs per score; P*V: Dv MACs per score.
  w.matrixFlops = Count(2) * scores *
                  (Count::fromSigned(d.qkDim) + Count::fromSigned(d.vDim));
  // One exp per score (and a tanh with softcap).
  bool capped = static_cast<bool>(getSoftcapAttr());
  w.transcendentalFlops = capped ? Count(2) * scores : scores;
  // Per score: scale, running max, subtract max, add to the sum (and the
  // softcap's divide and multiply); per output element: the final divide.
  w.vectorFlops = Count(capped ? 6 : 4) * scores +
                  heads * Count::fromSigned(d.qLen) * Count::fromSigned(d.vDim);
  if (getSinks()) {
    // Per row: exp(sink - m), the subtract and the add to the sum.
    Count rows = heads * Count::fromSigned(d.qLen);
    w.transcendentalFlops += rows;
    w.vectorFlops += Count(2) * rows;
  }
  return w;
}
