//===- NpuKVCacheOps.cpp - KV cache ops of the npu dialect ---------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::npu;

/// Names of the dimensions of a cache [B, H, S, D], for messages.
static const char *const kDimNames[] = {"B", "H", "S", "D"};

//===----------------------------------------------------------------------===//
// KVCacheAppendOp
//===----------------------------------------------------------------------===//

LogicalResult KVCacheAppendOp::verify() {
  auto cache = getCache().getType();
  auto update = getUpdate().getType();
  if (cache.getRank() != 4)
    return emitOpError("cache must have rank 4 ([B, H, Smax, D]), got ")
           << cache.getRank();
  if (update.getRank() != 4)
    return emitOpError("update must have rank 4 ([B, H, Snew, D]), got ")
           << update.getRank();
  for (int64_t i : {0, 1, 3})
    if (update.getDimSize(i) != cache.getDimSize(i))
      return emitOpError("update has ")
             << kDimNames[i] << " = " << update.getDimSize(i)
             << ", the cache has " << kDimNames[i] << " = "
             << cache.getDimSize(i);
  if (update.getElementType() != cache.getElementType())
    return emitOpError("update element type ")
           << update.getElementType() << " differs from the cache's "
           << cache.getElementType();
  if (update.getDimSize(2) > cache.getDimSize(2))
    return emitOpError("update has ")
           << update.getDimSize(2)
           << " tokens, more than the cache holds (Smax = "
           << cache.getDimSize(2) << ")";
  if (getResult().getType() != cache)
    return emitOpError("result must have the cache's type (")
           << cache << "), got " << getResult().getType();
  // A position known here must fit: the run-time clamp would silently write
  // the tokens elsewhere.
  APInt pos;
  if (matchPattern(getPos(), m_ConstantInt(&pos))) {
    int64_t p = pos.getSExtValue();
    int64_t last = cache.getDimSize(2) - update.getDimSize(2);
    if (p < 0 || p > last)
      return emitOpError("position ")
             << p << " puts the " << update.getDimSize(2)
             << " new tokens outside the cache (Smax = " << cache.getDimSize(2)
             << "): a constant position must be in [0, " << last << "]";
  }
  return success();
}

Work KVCacheAppendOp::computeWork() {
  // Only the appended rows move: read from `update`, written into the cache.
  Work w;
  w.bytesRead = getNumBytes(getUpdate());
  w.bytesWritten = getNumBytes(getUpdate());
  return w;
}

//===----------------------------------------------------------------------===//
// KVCacheReadOp
//===----------------------------------------------------------------------===//

LogicalResult KVCacheReadOp::verify() {
  auto cache = getCache().getType();
  if (cache.getRank() != 4)
    return emitOpError("cache must have rank 4 ([B, H, Smax, D]), got ")
           << cache.getRank();
  auto length = static_cast<int64_t>(getLength());
  if (length < 1 || length > cache.getDimSize(2))
    return emitOpError("length (")
           << length << ") must be in [1, Smax = " << cache.getDimSize(2)
           << "]";
  auto expected = RankedTensorType::get(
      {cache.getDimSize(0), cache.getDimSize(1), length, cache.getDimSize(3)},
      cache.getElementType());
  if (getResult().getType() != expected)
    return emitOpError("result must have type ")
           << expected << ", got " << getResult().getType();
  return success();
}

// A view: the consumer (attention) reads the tokens and counts them.
Work KVCacheReadOp::computeWork() { return Work(); }
