//===- TpuTileSearch.cpp - the TPU-like cost model's tile search ----------===//
//
// chooseTpuTile: every combination of the candidate tiles of a kernel's
// loops (powers of two of the matrix unit's granules and the loop's extent;
// for attention also the K/V a query block can hold), with two buffers and
// one, and for a GEMM 1 to 16 load chunks, priced by getTpuPhaseCost
// (TpuCostModel.cpp). The fastest that fits in SRAM wins; within 0.5%, less
// HBM traffic, then less SRAM, then fewer chunks.
//
// Its work is bounded by what fits, not by the loops' extents: a tile whose
// smallest form does not fit ends the enumeration of every larger one
// (forEachTile), the working set is tested once per tile, and a context
// keeps each search's result (the fusion and tile decisions and every layer
// function search the same kernels).
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/ContextMemo.h"
#include "npu/Analysis/TpuCostModel.h"
#include "npu/Dialect/Npu/IR/NpuDialect.h"

using namespace mlir;
using namespace mlir::npu;

namespace {
Count c(int64_t v) { return Count::fromSigned(v); }

/// Powers of two times `granule` below `n` (with `halfSteps`, 1.5 times
/// each from 2 granules on as well), and `n` itself.
SmallVector<int64_t> candidates(int64_t n, int64_t granule,
                                bool halfSteps = false) {
  SmallVector<int64_t> out;
  for (int64_t v = granule; v < n; v *= 2) {
    out.push_back(v);
    if (halfSteps && v >= 2 * granule && v / 2 * 3 < n)
      out.push_back(v / 2 * 3);
  }
  out.push_back(n);
  return out;
}

/// The K/V an attention tiling `t` (its held K/V aside) can hold with `buffers`
/// buffers: the K/V tile (streamed), all the keys (resident), and the
/// longest prefix of whole K/V tiles that fits in SRAM beside the rest of
/// the tiling. Holding more keys never costs traffic, so no shorter prefix
/// is worth trying.
SmallVector<int64_t, 3> heldKvChoices(const KernelDesc &k, ArrayRef<int64_t> t,
                                      int64_t buffers, int64_t sramBytes) {
  AttentionNest<> streamed = AttentionNest<>::from(t);
  int64_t skv = k.attentionLoops().kv, tkv = streamed.kv;
  SmallVector<int64_t, 3> out = {tkv};
  if (tkv < skv)
    out.push_back(skv);
  streamed.kvHeld = tkv;
  int64_t rest = getTpuWorkingSet(k, streamed.list(), buffers);
  Count perTile = c(buffers) * bytesOf(c(tkv) * c(k.kvWidth()), k.rhsBytes);
  if (rest <= 0 || rest >= sramBytes || perTile.isOverflow())
    return out;
  Count prefix = c(sramBytes - rest) / perTile * c(tkv);
  if (prefix.value() > uint64_t(tkv) && prefix.value() < uint64_t(skv))
    out.push_back(int64_t(prefix.value()));
  return out;
}

/// One candidate list per loop, each ascending; a loop whose tile the kind
/// fixes gets a single candidate.
SmallVector<SmallVector<int64_t>, 6> candidateLists(const KernelDesc &k,
                                                    const TpuParams &p) {
  using List = SmallVector<int64_t>;
  SmallVector<List, 6> lists;
  switch (k.kind) {
  case KernelKind::Gemm: {
    GemmNest<> l = k.gemmLoops();
    lists = GemmNest<List>{{1},
                           candidates(l.m, p.sublanes),
                           candidates(l.n, p.mxuDim),
                           k.needsFullK ? List{l.k} : candidates(l.k, p.mxuDim)}
                .list();
    break;
  }
  case KernelKind::GatedMlp:
  case KernelKind::MoeFfn: {
    MlpNest<> l = k.mlpLoops();
    // D whole, or in chunks of the matrix unit's width (a small SRAM).
    lists = MlpNest<List>{candidates(l.m, p.sublanes),
                          candidates(l.f, p.mxuDim), candidates(l.d, p.mxuDim)}
                .list();
    break;
  }
  case KernelKind::Attention:
  case KernelKind::MlaAbsorbed: {
    AttentionNest<> l = k.attentionLoops();
    lists =
        AttentionNest<List>{
            {1},
            candidates(l.q, p.sublanes, /*halfSteps=*/true),
            candidates(l.kv, p.mxuDim),
            {l.headDim},
            candidates(l.qSub, p.sublanes),
            // The held K/V: chosen per K/V tile and buffers below.
            {l.kvHeld}}
            .list();
    break;
  }
  case KernelKind::Stream:
  case KernelKind::Copy: {
    RowNest<> l = k.rowLoops();
    List rows = candidates(l.rows, p.sublanes);
    llvm::erase_if(rows, [&](int64_t t) { return !k.isRowTile(t); });
    lists = RowNest<List>{rows, {l.cols}}.list();
    break;
  }
  }
  return lists;
}

/// chooseTpuTile without the memo.
std::optional<TpuTileChoice> searchTile(const KernelDesc &k, const TpuParams &p,
                                        std::optional<int64_t> onlyBuffers) {
  SmallVector<SmallVector<int64_t>, 6> lists = candidateLists(k, p);
  // Double buffering, or single (the tiling's buffers reach every loop of
  // the kernel's lowering): a held K/V too long to be held twice needs
  // it.
  const int64_t bufferChoices[] = {2, 1};
  // GEMM: a step's A and B loads in 1 to 16 K chunks (and with one K step
  // its output in as many row bands).
  SmallVector<int64_t> chunkChoices{1};
  if (k.kind == KernelKind::Gemm)
    chunkChoices.append({2, 4, 8, 16});
  // A rotary table held whole, or computed per tile (#npu.tiling's
  // table_per_tile).
  SmallVector<KernelDesc, 2> variants = {k};
  if (k.tableRows > 0 && !k.tablePerTile) {
    variants.push_back(k);
    variants.back().tablePerTile = true;
  }
  std::optional<TpuTileChoice> best;
  auto better = [&](const TpuCost &a, int64_t sramA, int64_t chunksA,
                    bool tableA, const TpuTileChoice &b) {
    double tb = b.cost.timeNs;
    if (a.timeNs < tb * 0.995)
      return true;
    if (a.timeNs > tb * 1.005)
      return false;
    uint64_t ba = (a.hbmReadBytes + a.hbmWriteBytes).value();
    uint64_t bb = (b.cost.hbmReadBytes + b.cost.hbmWriteBytes).value();
    if (ba != bb)
      return ba < bb;
    // A held table does no work twice.
    if (tableA != b.tablePerTile)
      return !tableA;
    if (sramA != b.cost.sramBytes)
      return sramA < b.cost.sramBytes;
    if (chunksA != b.chunks)
      return chunksA < b.chunks;
    return a.timeNs < tb;
  };
  bool attention = isAttentionKind(k.kind);
  forEachTile(lists, [&](ArrayRef<int64_t> tile) {
    // Whether the smallest form of this tile (streamed K/V) fits with some
    // buffers and table placement: the working set grows with every loop's
    // tile, so if it does not, no larger tile does either.
    bool mayFit = false;
    for (int64_t buffers : bufferChoices) {
      if (onlyBuffers && buffers != *onlyBuffers)
        continue;
      // Attention: one tile per K/V it can hold with these buffers.
      SmallVector<SmallVector<int64_t, 6>, 3> tiles;
      if (attention) {
        AttentionNest<> a = AttentionNest<>::from(tile);
        for (int64_t held : heldKvChoices(k, tile, buffers, p.sramBytes)) {
          a.kvHeld = held;
          tiles.push_back(a.list());
        }
      } else {
        tiles.emplace_back(tile);
      }
      for (auto [i, tileI] : llvm::enumerate(tiles)) {
        ArrayRef<int64_t> t = tileI;
        for (const KernelDesc &kv : variants) {
          // The working set does not depend on the chunks. A malformed
          // tile (0) says nothing of larger ones.
          int64_t sram = getTpuWorkingSet(kv, t, buffers, &p.matrixRates);
          if (i == 0 && sram <= p.sramBytes)
            mayFit = true;
          if (sram <= 0 || sram > p.sramBytes)
            continue;
          for (int64_t chunks : chunkChoices) {
            std::optional<TpuCost> cost =
                getFittingTpuPhaseCost(kv, t, buffers, p, chunks, sram);
            if (cost && (!best || better(*cost, cost->sramBytes, chunks,
                                         kv.tablePerTile, *best)))
              best = TpuTileChoice{SmallVector<int64_t, 4>(t), buffers, chunks,
                                   *cost, kv.tablePerTile};
          }
        }
      }
    }
    return mayFit;
  });
  return best;
}

/// The searches of a context (NpuDialect::getContextCache): the fusion
/// decision prices a kernel's candidate groups and their parts, the tile
/// decision the kernels formed, and each layer function has the same
/// kernels, so most searches are repeats.
struct TileMemo : ContextMemo<std::optional<TpuTileChoice>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TileMemo)
};
} // namespace

std::optional<TpuTileChoice>
mlir::npu::chooseTpuTile(const KernelDesc &k, const TpuParams &p,
                         std::optional<int64_t> onlyBuffers) {
  SmallVector<uint64_t, 64> words;
  p.appendKey(words);
  words.push_back(onlyBuffers.value_or(0));
  appendKey(k, words);
  return cast<NpuDialect>(p.target.getDialect())
      .getContextCache<TileMemo>()
      .getOrCompute(words, [&] { return searchTile(k, p, onlyBuffers); });
}
