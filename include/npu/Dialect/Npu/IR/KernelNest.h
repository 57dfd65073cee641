//===- KernelNest.h - a kernel's loop nest with named loops -----*- C++ -*-===//
//
// The typed form of a kernel's loop nest, one struct per family of kernel
// kinds: the iteration sizes (`#npu.tiling`'s `loops`, KernelDesc::loops),
// the tile sizes (`tile`, `shared_tile`) and a tile search's candidates per
// loop are all one of these, so that code names a loop (`tile.m`,
// `loops.kv`) instead of indexing a list by position. The lists in the IR
// keep the order NpuBackendAttrs.td documents; `from` and `list` are the
// only places that know it.
//
// Each struct is a template over the value of a loop: `int64_t` for sizes,
// a list of candidates for a tile search.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPU_IR_KERNELNEST_H
#define NPU_DIALECT_NPU_IR_KERNELNEST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <optional>

namespace mlir::npu {

/// gemm: batch, M, N, K.
template <typename T = int64_t> struct GemmNest {
  T batch, m, n, k;
  static constexpr size_t kSize = 4;
  static GemmNest from(llvm::ArrayRef<T> v) {
    assert(v.size() == kSize && "a gemm nest has 4 loops");
    return {v[0], v[1], v[2], v[3]};
  }
  llvm::SmallVector<T, 6> list() const { return {batch, m, n, k}; }
};

/// gated_mlp and moe_ffn: M (tokens, per expert for moe_ffn), F (FFN
/// width), D (model width).
template <typename T = int64_t> struct MlpNest {
  T m, f, d;
  static constexpr size_t kSize = 3;
  static MlpNest from(llvm::ArrayRef<T> v) {
    assert(v.size() == kSize && "an MLP nest has 3 loops");
    return {v[0], v[1], v[2]};
  }
  llvm::SmallVector<T, 6> list() const { return {m, f, d}; }
};

/// attention and mla_absorbed: `heads` is batch x KV heads (a block holds
/// the query heads of its KV head), `q` the query length, `kv` the KV
/// length, `headDim` the Q/K head dim; `qSub` is the sub-tile loop (a query
/// block stays on chip while each K/V tile streams past it in sub-tiles;
/// sub-tile = block: none) and `kvHeld` the K/V a head holds on chip (as a
/// tile: the K/V tile, streamed past each block; KV length with a smaller
/// K/V tile: resident, loaded once per head and read by all its blocks; a
/// multiple of the K/V tile in between: the head's first keys resident, the
/// rest streamed). As loop sizes, qSub is the query length and kvHeld the
/// KV length.
template <typename T = int64_t> struct AttentionNest {
  T heads, q, kv, headDim, qSub, kvHeld;
  static constexpr size_t kSize = 6;
  static AttentionNest from(llvm::ArrayRef<T> v) {
    assert(v.size() == kSize && "an attention nest has 6 loops");
    return {v[0], v[1], v[2], v[3], v[4], v[5]};
  }
  llvm::SmallVector<T, 6> list() const {
    return {heads, q, kv, headDim, qSub, kvHeld};
  }
};

/// stream and copy: rows, columns.
template <typename T = int64_t> struct RowNest {
  T rows, cols;
  static constexpr size_t kSize = 2;
  static RowNest from(llvm::ArrayRef<T> v) {
    assert(v.size() == kSize && "a row nest has 2 loops");
    return {v[0], v[1]};
  }
  llvm::SmallVector<T, 6> list() const { return {rows, cols}; }
};

/// Tile sizes of a result of `shape` for tiles of `rows` rows (a row: one
/// index of every dimension but the last; whole last dimension): whole inner
/// row dimensions, then part of one. std::nullopt if `rows` spans part of
/// a dimension and more than one index of the next (what a stream kernel's
/// tile search must avoid: the lowering could not tile it).
inline std::optional<llvm::SmallVector<int64_t>>
rowTileSizes(llvm::ArrayRef<int64_t> shape, int64_t rows) {
  if (shape.empty() || rows < 1)
    return std::nullopt;
  llvm::SmallVector<int64_t> sizes(shape.begin(), shape.end());
  // From the innermost row dimension out: whole dimensions while the tile
  // holds a multiple of them, then part of one.
  int64_t left = rows;
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d) {
    if (shape[d] < 1)
      return std::nullopt;
    if (left >= shape[d]) {
      if (left % shape[d] != 0)
        return std::nullopt;
      left /= shape[d];
      continue;
    }
    sizes[d] = left;
    left = 1;
  }
  // More rows than the result has: one tile.
  return sizes;
}

/// moe_ffn's combine (TileMoe.cpp): at most this many rows of the routed
/// outputs per gather, a loop that only moves rows (kept
/// `row_dmas_in_flight_per_core` deep by npu-tpu-pipeline-row-dmas):
/// several waves of copies in flight before the loop drains, and staged
/// rows that are small beside the tile's weights.
constexpr int64_t kMoeCombineGatherRows = 256;

/// The tokens of each combine gather in an M tile of `tileTokens` tokens
/// with `slots` routed outputs each: as many whole tokens as fit in
/// kMoeCombineGatherRows rows and in the tile's own row count (so that a
/// small SRAM's small tile stages no more rows than its x tile holds), at
/// least one.
inline int64_t moeCombineTokens(int64_t tileTokens, int64_t slots) {
  int64_t rows = std::min(kMoeCombineGatherRows, tileTokens);
  return std::max<int64_t>(1, rows / std::max<int64_t>(slots, 1));
}

/// moe_ffn's dispatch (TileMoe.cpp): the assignments are ranked within
/// their expert on the vector unit in blocks of this many (per block, each
/// expert's count; per assignment, the earlier ones of its block).
constexpr int64_t kMoeDispatchBlock = 256;

/// moe_ffn's dispatch sort (TileMoeDispatch.cpp): the keys of
/// `assignments`, padded to a power of two (A').
inline int64_t moeSortKeys(int64_t assignments) {
  return int64_t(
      llvm::PowerOf2Ceil(uint64_t(std::max<int64_t>(1, assignments))));
}

/// The bitonic sort's compare-exchange passes over moeSortKeys keys:
/// log A' (log A' + 1) / 2, run two per loop iteration, so rounded up to
/// an even count (a pass past the last keeps every key).
inline int64_t moeSortPasses(int64_t assignments) {
  int64_t log = llvm::Log2_64(uint64_t(moeSortKeys(assignments)));
  return 2 * llvm::divideCeil(log * (log + 1) / 2, 2);
}

/// moe_ffn's dispatch (TileMoeDispatch.cpp): whether its `assignments`
/// are put in expert order by a bitonic sort on the vector unit, on a
/// TPU-like core of `vmemBytes` of SRAM: where 64 bytes per key (the keys
/// padded to a power of two) fit it, so that the sort's peak (two buffers
/// of i64 keys, the order and the ranks: about 32 bytes per key) takes at
/// most half of it. The order it makes stays on chip for the routed
/// experts' gathers (8 bytes per assignment beside their working set);
/// else the scalar unit scatters each assignment to its rank, the order
/// through HBM.
inline bool moeDispatchSorts(int64_t assignments, int64_t vmemBytes) {
  return vmemBytes > 0 && moeSortKeys(assignments) <= vmemBytes / 64;
}

/// moe_ffn's routed loop (TileMoe.cpp) visits each expert's rows in M
/// tiles of `tileM`, one visit per tile, as megablox `gmm` walks its grid:
/// at most sum over experts of ceil(count / tileM) <= (A + E (tileM - 1)) /
/// tileM visits, and at most one per assignment. The static size of the
/// visit table; the loop runs the visits the routing makes (a run-time
/// count), no empty one.
inline int64_t moeMaxVisits(int64_t assignments, int64_t experts,
                            int64_t tileM) {
  tileM = std::max<int64_t>(tileM, 1);
  // (A + E (tileM - 1)) / tileM without overflow: A / tileM + E, less what
  // the remainders leave.
  int64_t bound = assignments / tileM + experts -
                  (experts - assignments % tileM + tileM - 1) / tileM;
  return std::max<int64_t>(1, std::min(assignments, bound));
}

/// The size of moe_ffn's visit table (TileMoeDispatch.cpp): room for the
/// visits of any routing of its `assignments` and of its static plan's
/// `plannedRows` in all (each active expert's count rounded up).
inline int64_t moeVisitTableSize(int64_t assignments, int64_t plannedRows,
                                 int64_t experts, int64_t tileM) {
  return moeMaxVisits(std::max(assignments, plannedRows), experts, tileM);
}

/// The bytes the sorted order of `assignments` (i64) holds on chip, aligned
/// as every SRAM allocation is.
inline int64_t moeSortedOrderBytes(int64_t assignments) {
  return int64_t(llvm::alignTo(uint64_t(assignments) * 8, 64));
}

/// Whether `chunks` load chunks can split a gemm tiling's K steps: K tiles
/// of one static size (tk divides K) in chunks of one size (chunks divides
/// tk); one chunk always can.
inline bool isValidGemmChunks(const GemmNest<> &loops, const GemmNest<> &tile,
                              int64_t chunks) {
  return chunks == 1 ||
         (chunks > 1 && tile.k % chunks == 0 && loops.k % tile.k == 0);
}

/// Whether a gemm tiling with `chunks` load chunks stores its output tiles
/// in `chunks` row bands: one K step (the tile is complete inside it) and
/// row bands of one static size. (A batch folded into M, which the caller
/// knows, excludes it too.)
inline bool isGemmOutputBanded(const GemmNest<> &loops, const GemmNest<> &tile,
                               int64_t chunks) {
  return chunks > 1 && tile.k == loops.k && loops.m % tile.m == 0 &&
         tile.m % chunks == 0;
}

/// Whether an attention tiling's held K/V is one it can be: the K/V tile
/// (streamed), the whole KV length (resident), or a multiple of the K/V
/// tile between them (a held prefix).
inline bool isValidHeldKv(const AttentionNest<> &loops,
                          const AttentionNest<> &tile) {
  return tile.kv >= 1 &&
         (tile.kvHeld == tile.kv ||
          (tile.kvHeld > tile.kv &&
           (tile.kvHeld == loops.kv ||
            (tile.kvHeld < loops.kv && tile.kvHeld % tile.kv == 0))));
}

/// The keys of its head a valid attention tiling holds on chip across its
/// query blocks, loaded once per head: none when the held K/V is the K/V
/// tile (every K/V tile streamed past every block), else the first
/// `tile.kvHeld` (the KV length: all of them); keys past them are streamed.
inline int64_t getHeldKvPrefix(const AttentionNest<> &tile) {
  return tile.kvHeld == tile.kv ? 0 : tile.kvHeld;
}

/// How many cores each load their own copy of a head's `held` keys: with
/// fewer heads (head blocks) than cores, a head's query blocks are dealt
/// over min(query blocks, cores / heads) cores, each with its own SRAM
/// (npu-tile-kernels deals them round-robin, the cost model prices a copy
/// per core); else a head's blocks stay on one core, one copy.
inline int64_t getHeldKvCopies(int64_t heads, int64_t queryBlocks,
                               int64_t cores, int64_t held) {
  if (held <= 0 || heads >= cores)
    return 1;
  return std::max<int64_t>(1, std::min(queryBlocks, cores / heads));
}

} // namespace mlir::npu

#endif // NPU_DIALECT_NPU_IR_KERNELNEST_H
