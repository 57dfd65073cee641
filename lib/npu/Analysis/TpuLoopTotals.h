//===- TpuLoopTotals.h - what each kind of loop nest moves and computes ---===//
//
// Private to the TPU-like cost model (TpuCostModel.cpp prices the totals,
// TpuLoopTotals.cpp computes them per kernel kind). docs/cost-model-tpu.md.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_ANALYSIS_TPULOOPTOTALS_H
#define NPU_ANALYSIS_TPULOOPTOTALS_H

#include "npu/Analysis/TpuCostModel.h"

#include "llvm/Support/MathExtras.h"

#include <optional>

namespace mlir::npu::tpu_detail {

inline Count c(int64_t v) { return Count::fromSigned(v); }
inline double d(Count v) { return double(v.value()); }
inline int64_t pad(int64_t n, int64_t g) {
  return int64_t(llvm::alignTo(n, g));
}

/// What one loop nest does in total, before it is spread over steps.
struct LoopTotals {
  int64_t parallelTiles = 1; ///< independent tiles, split over the cores
  int64_t steps = 1;         ///< grid steps in all (parallel x sequential)
  Count readBytes, writeBytes;
  Count readTransfers, writeTransfers;
  /// Of the reads, copies of one row each (gathered rows, rows read back by
  /// position): issued `rowDmas` at a time beside the tile transfers, each
  /// paying the setup latency (not counted in readTransfers).
  Count rowReadTransfers;
  /// Of them, those the first step waits for (unset: a step's average).
  std::optional<int64_t> firstRowTransfers;
  /// The MoE combine's blocks (KernelDesc::combineSlots): per M tile a
  /// loop over its tokens' rows of o, `combineBlocks` blocks in all in
  /// `combineLoops` loops, each block read one ahead of its weighted sum
  /// (`combineVectorFlops` in all), after the tile's compute with nothing
  /// else beside it. Their bytes (`combineBytes`) are in readBytes, not in
  /// the steps' transfers.
  int64_t combineBlocks = 0, combineLoops = 0;
  Count combineBytes, combineVectorFlops;
  /// Rows each refilled tile stores one copy each after its last step (a
  /// MoE expert's outputs, at their assignments' rows of o): a chain
  /// `rowDmas` deep that the core waits for. Their bytes are in writeBytes.
  int64_t tileRowWrites = 0;
  /// With two buffers, the next tile's first step runs that chain, after
  /// it has issued its second step's loads (a MoE visit's F loop of
  /// several steps, TileMoe.cpp); else the next tile starts with it.
  bool rowWritesInFirstStep = false;
  Count paddedMatrixFlops;
  Count vectorFlops, transcendentalFlops;
  /// B elements (gemm, gated MLP) the steps load on chip, held ones once:
  /// what a stored format converts on the vector unit (getMatrixPath).
  Count rhsLoadedElements;
  /// A reduction loop split over cores: each core but one writes its f32
  /// partial sum (reductionBytes) and one reads and adds them.
  int64_t reductionCores = 1;
  Count reductionBytes;
  /// reductionBytes x (cores that split the reduction - 1), once known.
  Count crossCoreBytes;
  /// Of the reads, operands loaded once before the loops and held (a GEMM
  /// operand that is one block whole): the first step waits for them, the
  /// later steps do not load them.
  Count heldReadBytes;
  int64_t heldReadTransfers = 0;
  /// What the first step loads before any compute can start, and what the
  /// last step stores after all compute (the fill and the drain); unset:
  /// the average step's.
  std::optional<Count> firstReadBytes, lastWriteBytes;
  /// What each parallel tile after a core's first waits for before its
  /// first step: the first step's loads of an inner pipelined loop (a
  /// GEMM's K loop, a block's KV loop), which the lowering issues during
  /// the previous tile only when the buffer slot they go to is free then
  /// (handsOff); 0: they overlap the previous tile.
  Count refillBytes;
  /// The DMAs of a refill (an average where refills differ: a D-tiled
  /// gated MLP's).
  double refillTransfers = 0;
  /// One refill in this many also waits for the tile's gathered rows
  /// (firstRowTransfers of them): a MoE expert's M tile, whose D-tiled F
  /// tiles refill twice each.
  int64_t refillsPerRowWait = 1;
  /// The outer tiles whose inner loop refills, dealt to the cores like the
  /// parallel tiles (0: the parallel tiles themselves).
  int64_t refillTiles = 0;
  /// Of each core's refills, those the fill already made (1: its first
  /// tile's; 0: the fill loads something else, a held K/V prefix).
  int64_t fillRefills = 1;
  /// With two buffers, each refilled tile's successor's first weights
  /// (`prefetchBytes` in `prefetchTransfers` DMAs) and gathered rows are
  /// issued during its last step instead (a MoE's visit loop,
  /// npu-tpu-double-buffer): no refill, but the rows' chain and that step's
  /// compute run beside those loads. 0: not prefetched.
  Count prefetchBytes;
  double prefetchTransfers = 0;
  /// Of the first step's loads (fill and refill), the bytes loaded in
  /// `chunks` DMAs each, which the step's compute consumes chunk by chunk.
  Count chunkedBytes;
  int64_t chunks = 1;
  /// The last step stores its output in `bands` row bands, each as soon as
  /// the last K chunk has computed its rows (1: one store after the step).
  int64_t bands = 1;
};

/// The totals of a GEMM nest (`chunks` K chunks per step), a gated MLP, an
/// attention block loop and a stream kernel with tile `t`; nullopt when the
/// tile does not apply to the kernel.
std::optional<LoopTotals> gemmTotals(const KernelDesc &k, const GemmNest<> &t,
                                     int64_t chunks, int64_t mxu, int64_t sub);
std::optional<LoopTotals> gatedTotals(const KernelDesc &k, const MlpNest<> &t,
                                      int64_t mxu, int64_t sub, int64_t cores);
std::optional<LoopTotals> attentionTotals(const KernelDesc &k,
                                          const AttentionNest<> &t, int64_t mxu,
                                          int64_t sub, int64_t cores);
std::optional<LoopTotals> streamTotals(const KernelDesc &k, const RowNest<> &t);

/// Adds the MoE combine's blocks (if `k` has a combine) of `tokens` tokens
/// of `cols` columns in M tiles of `tileTokens` and D chunks of `tileCols`.
void addCombineBlocks(LoopTotals &l, const KernelDesc &k, int64_t tokens,
                      int64_t tileTokens, int64_t cols, int64_t tileCols);

} // namespace mlir::npu::tpu_detail

#endif // NPU_ANALYSIS_TPULOOPTOTALS_H
