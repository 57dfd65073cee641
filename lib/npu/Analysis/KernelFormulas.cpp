//===- KernelFormulas.cpp - closed forms both cost models share -----------===//
//
// Counts and rates that do not depend on the IR: the floor sum behind the
// causal tile counts, the peak rate of a dtype, the bound of a cost, padded
// extents (declared in KernelModel.h).
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/KernelModel.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;

//===----------------------------------------------------------------------===//
// Closed forms
//===----------------------------------------------------------------------===//

__int128 mlir::npu::floorSum(int64_t n, int64_t m, int64_t a, int64_t b) {
  // sum_{i=0}^{n-1} floor((a*i + b)/m), by reducing a and b modulo m and
  // swapping the roles of the axes (ACL floor_sum), all in 128 bits.
  __int128 ans = 0, N = n, M = m, A = a, B = b;
  while (true) {
    if (A >= M) {
      ans += (N - 1) * N / 2 * (A / M);
      A %= M;
    }
    if (B >= M) {
      ans += N * (B / M);
      B %= M;
    }
    __int128 yMax = A * N + B;
    if (yMax < M)
      break;
    N = yMax / M;
    B = yMax % M;
    std::swap(M, A);
  }
  return ans;
}

/// The dtype whose rate `matrixType` runs at: its own, or bf16's (no type,
/// another type, or a chip without the type's rate).
static TargetDtype getRateDtype(TargetAttr target, Type matrixType) {
  std::optional<TargetDtype> dtype;
  if (matrixType)
    dtype = TargetAttr::getDtypeOf(matrixType);
  if (!dtype || !target.getPeakFlopPerS(*dtype))
    return TargetDtype::BF16;
  return *dtype;
}

double mlir::npu::getMatrixPeakFlopPerS(TargetAttr target, Type matrixType) {
  return *target.getPeakFlopPerS(getRateDtype(target, matrixType));
}

double mlir::npu::getMatrixSustainedFlopPerS(TargetAttr target,
                                             Type matrixType) {
  return getMatrixPeakFlopPerS(target, matrixType) *
         target.getMatrixClockHz().convertToDouble() /
         target.getClockHz().convertToDouble();
}

double mlir::npu::getSustainedClockShare(TargetAttr target) {
  return target.getMatrixClockHz().convertToDouble() /
         target.getClockHz().convertToDouble();
}

MatrixRates MatrixRates::get(TargetAttr target, int64_t units) {
  MatrixRates r;
  double matrixClock = target.getMatrixClockHz().convertToDouble();
  double clock = target.getClockHz().convertToDouble();
  // In getMatrixSustainedFlopPerS's order, so the rates are the same
  // doubles.
  for (TargetDtype d : {TargetDtype::FP32, TargetDtype::BF16, TargetDtype::FP8,
                        TargetDtype::FP4})
    if (std::optional<double> peak = target.getPeakFlopPerS(d))
      r.perNs[unsigned(d)] = *peak * matrixClock / clock / double(units) * 1e-9;
  return r;
}

double MatrixRates::ownRate(Type type) const {
  std::optional<TargetDtype> dtype;
  if (type)
    dtype = TargetAttr::getDtypeOf(type);
  return dtype ? perNs[unsigned(*dtype)] : 0.0;
}

double MatrixRates::of(Type matrixType) const {
  // A rate the chip lacks is 0 here (peaks are positive): bf16's instead.
  double rate = ownRate(matrixType);
  return rate > 0 ? rate : perNs[unsigned(TargetDtype::BF16)];
}

bool MatrixRates::has(Type type) const { return ownRate(type) > 0; }

MatrixPath mlir::npu::getMatrixPath(const KernelDesc &k,
                                    const MatrixRates &rates) {
  const KernelDesc::StoredRhs &s = k.storedRhs;
  if (!s || (s.nativeType && rates.has(s.nativeType)))
    return {k.matrixType, 0};
  // Decode each value to the activations' type and multiply by its scale
  // (docs/formats.md, "Where the conversion runs").
  return {s.fallbackType, 2};
}

Count mlir::npu::bytesOf(Count elements, double bytesPerElement) {
  if (elements.isOverflow() || !(bytesPerElement >= 0))
    return Count::overflowed();
  if (bytesPerElement == std::floor(bytesPerElement))
    return elements * Count(uint64_t(bytesPerElement));
  double bytes = std::ceil(double(elements.value()) * bytesPerElement);
  if (bytes >= 0x1p63)
    return Count::overflowed();
  return Count(uint64_t(bytes));
}

Type mlir::npu::getProductType(Type a, Type b) {
  if (!a || !b)
    return a ? a : b;
  auto isFp8 = [](Type t) {
    return isa<FloatType>(t) && t.getIntOrFloatBitWidth() == 8;
  };
  if (isFp8(a) || isFp8(b))
    return isFp8(a) ? a : b;
  return a.getIntOrFloatBitWidth() >= b.getIntOrFloatBitWidth() ? a : b;
}

CostBound CostParts::getBound() const {
  return classifyBound(computeNs, memoryNs, overheadNs);
}

void CostParts::add(const CostParts &o) {
  timeNs += o.timeNs;
  computeNs += o.computeNs;
  memoryNs += o.memoryNs;
  overheadNs += o.overheadNs;
  hbmReadBytes += o.hbmReadBytes;
  hbmWriteBytes += o.hbmWriteBytes;
  paddedMatrixFlops += o.paddedMatrixFlops;
}

CostBound mlir::npu::classifyBound(double computeNs, double memoryNs,
                                   double overheadNs) {
  if (overheadNs > computeNs && overheadNs > memoryNs)
    return CostBound::Overhead;
  return computeNs >= memoryNs ? CostBound::Compute : CostBound::Memory;
}

int64_t mlir::npu::paddedExtent(int64_t n, int64_t t, int64_t granule) {
  return (n / t) * llvm::alignTo(t, granule) +
         static_cast<int64_t>(llvm::alignTo(n % t, granule));
}

/// Tiles of tq queries from query 0 whose first query's position (off +
/// i * tq) lies in [lo, hi): i in [ceil((lo - off) / tq), ceil((hi - off) /
/// tq)) within [0, nq).
static int64_t tilesStartingIn(int64_t lo, int64_t hi, int64_t off, int64_t tq,
                               int64_t nq) {
  auto firstAtOrPast = [&](int64_t pos) {
    return pos <= off ? int64_t(0)
                      : std::min<int64_t>(nq, llvm::divideCeil(pos - off, tq));
  };
  return firstAtOrPast(hi) - firstAtOrPast(lo);
}

int64_t mlir::npu::countVisitedTiles(int64_t qLen, int64_t kvLen, int64_t tq,
                                     int64_t tkv, bool causal, int64_t window,
                                     int64_t chunk) {
  int64_t nq = llvm::divideCeil(qLen, tq), nkv = llvm::divideCeil(kvLen, tkv);
  if (!causal)
    return nq * nkv;
  int64_t off = kvLen - qLen;
  // Last KV tile of query tile i: floor((off + min((i+1)tq, qLen) - 1) /
  // tkv); over the full tiles i < nq - 1 that is floorSum, the last tile
  // (ending at qLen - 1) apart.
  __int128 last =
      floorSum(nq - 1, tkv, tq, off + tq - 1) + (off + qLen - 1) / tkv;
  // First KV tile of query tile i: floor(max(0, off + i*tq - window + 1) /
  // tkv), 0 without a window.
  __int128 first = 0;
  if (chunk > 0) {
    // Query tile i starts at key C * floor((off + i*tq) / C): the tiles
    // that start in chunk c share c*C / tkv. Summed over the chunks the
    // tiles start in, or over the tiles where they are fewer.
    int64_t c0 = off / chunk, c1 = (off + (nq - 1) * tq) / chunk;
    if (c1 - c0 < nq) {
      for (int64_t c = c0; c <= c1; ++c)
        first +=
            __int128(tilesStartingIn(c * chunk, (c + 1) * chunk, off, tq, nq)) *
            (c * chunk / tkv);
    } else {
      for (int64_t i = 0; i < nq; ++i)
        first += AttentionOp::firstVisibleKey(off + i * tq, 0, chunk) / tkv;
    }
  } else if (window > 0) {
    int64_t shift = off - window + 1; // key index of query 0's first key
    // Tiles i with off + i*tq - window + 1 >= 0 start at i0.
    int64_t i0 = shift >= 0 ? 0 : llvm::divideCeil(-shift, tq);
    if (i0 < nq)
      first = floorSum(nq - i0, tkv, tq, shift + i0 * tq);
  }
  return static_cast<int64_t>(last - first + nq);
}

int64_t mlir::npu::countVisitedTilesFrom(int64_t qLen, int64_t kvLen,
                                         int64_t tq, int64_t tkv, bool causal,
                                         int64_t firstTile) {
  int64_t nq = llvm::divideCeil(qLen, tq), nkv = llvm::divideCeil(kvLen, tkv);
  if (firstTile >= nkv)
    return 0;
  if (!causal)
    return nq * (nkv - firstTile);
  // Query tile i (ending at e_i = min((i+1)tq, qLen)) visits tiles
  // firstTile..L_i, L_i = floor((off + e_i - 1) / tkv): L_i - firstTile + 1
  // of them when L_i >= firstTile, i.e. e_i >= firstTile * tkv - off + 1,
  // which holds from the full tile i0 on (L_i grows with i).
  int64_t off = kvLen - qLen, p = firstTile;
  auto visits = [&](int64_t last) {
    return std::max<int64_t>(0, last - p + 1);
  };
  __int128 count = visits((off + qLen - 1) / tkv);
  int64_t need = p * tkv - off + 1;
  int64_t i0 = need <= tq ? 0 : llvm::divideCeil(need, tq) - 1;
  if (i0 < nq - 1) {
    int64_t n = nq - 1 - i0;
    count +=
        floorSum(n, tkv, tq, off + tq - 1 + i0 * tq) - __int128(n) * (p - 1);
  }
  return static_cast<int64_t>(count);
}
