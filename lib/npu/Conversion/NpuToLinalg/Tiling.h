//===- Tiling.h - helpers of npu-tile-kernels, one entry per kind -----*- C++
//-*-===//
//
// Private to the NpuToLinalg library. The npu-tile-kernels pass
// (TileKernels.cpp) calls one function per kernel kind; each returns
// failure() without touching the IR when the kernel's body does not have the
// shape it tiles, and the pass then lowers the kernel untiled.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_CONVERSION_NPUTOLINALG_TILING_H
#define NPU_LIB_CONVERSION_NPUTOLINALG_TILING_H

#include "npu/Dialect/Npu/IR/KernelNest.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::npu {

/// The TPU-like target of the module around `kernel` (its `npu.target`),
/// or null: the core count a held K/V's blocks are dealt over, the SRAM a
/// MoE dispatch sorts in.
inline TpuTargetAttr getKernelTpuTarget(Operation *kernel) {
  if (auto module = kernel->getParentOfType<ModuleOp>())
    if (auto target = module->getAttrOfType<TargetAttr>("npu.target"))
      return target.getTpu();
  return {};
}

/// Replaces the body's single npu.attention by a flash-attention loop nest
/// tiled as `tiling` says (kinds attention and mla_absorbed). Before the
/// reference lowering of the rest of the body. With `kvSplits` > 1, each
/// query tile's KV range is split over that many tiles whose partial
/// outputs are combined (split KV). With `gpuBlocks`, the (head, query
/// [, split]) tile loops are one scf.forall mapped to GPU thread blocks.
/// Fails, with an error at the kernel, on a tiling it cannot apply.
LogicalResult tileAttentionKernel(RewriterBase &rewriter, KernelOp kernel,
                                  TilingAttr tiling, int64_t kvSplits,
                                  bool gpuBlocks);
/// Replaces the down projection of the body's SwiGLU MLP by a loop over M
/// tiles and F tiles (kind gated_mlp). Before the reference lowering. With
/// `gpuBlocks`, the M tile loop is an scf.forall mapped to GPU blocks.
LogicalResult tileGatedMlpKernel(RewriterBase &rewriter, KernelOp kernel,
                                 TilingAttr tiling, bool gpuBlocks);
/// Per expert: the number of assignments routed to it and the first
/// position of its assignments in `order`; `order`: the assignments sorted
/// by expert, in assignment order within an expert; `where`: the position
/// of each assignment in `order`. The visits of the routed loop, one per
/// (expert, M tile of its rows) in expert order: per expert the first
/// visit of its M tiles (`firstVisit`), their number in all (`visits`,
/// [1]), and per visit its expert (`visitExpert`, [moeMaxVisits]). i64
/// tensors.
struct Dispatch {
  Value counts, offsets, order;
  Value firstVisit, visits, visitExpert;
};

/// The dispatch of `op` (TileMoeDispatch.cpp) for its assignments
/// `flatIdx` ([T K], the expert of each) and M tiles of `tileM` rows:
/// counts, offsets, order and the visits, with their values under
/// the static plan marked for the plan check; the order by a bitonic sort
/// with `sort` (moeDispatchSorts), else by the scalar unit's scatter.
Dispatch buildDispatch(OpBuilder &b, Location loc, MoEExpertsOp op,
                       Value flatIdx, bool sort, int64_t tileM);

/// Replaces the body's npu.moe_experts by its tiled form (kind moe_ffn):
/// the assignments sorted by expert once (TileMoeDispatch.cpp), then per expert
/// its rows in M tiles gathered from x, an F loop as the gated MLP's, and
/// each row's weighted output added to its token's f32 row; the shared
/// expert as a gated MLP over M tiles of x first. Before the reference
/// lowering. TPU-like targets only (no GPU block mapping).
LogicalResult tileMoeKernel(RewriterBase &rewriter, KernelOp kernel,
                            TilingAttr tiling);
/// Tiles the already lowered body of a gemm kernel: its last op over
/// (batch,) M, N with producer fusion, then the matmul's K. After the
/// reference lowering. With `gpuBlocks`, the (batch,) M, N tile loops are
/// one scf.forall mapped to GPU thread blocks.
LogicalResult tileGemmKernel(RewriterBase &rewriter, KernelOp kernel,
                             TilingAttr tiling, bool gpuBlocks);
/// Tiles each batched matmul at the top level of the (lowered) body, with
/// the rounding of its result, over its batch loop one batch at a time (an
/// MLA absorbed kernel's per-head projections): each batch's f32
/// accumulator exists one at a time, not the whole batch's.
void tileBatchedMatmulsByBatch(RewriterBase &rewriter, KernelOp kernel);
/// Tiles the already lowered body of a stream or copy kernel (loops [rows,
/// cols]): its last op over the result's row dimensions, the tile's rows per
/// tile, with producer fusion. After the reference lowering.
LogicalResult tileStreamKernel(RewriterBase &rewriter, KernelOp kernel,
                               TilingAttr tiling);
/// Every row gather in the kernel (the embedding's reference form, a
/// scalar read of the table per element) as the ids copied on chip and one
/// copy per row of the table (GatherRows.cpp).
void gatherRowsByCopies(RewriterBase &rewriter, KernelOp kernel);
/// Moves into the tile loops of the (lowered) kernel body the ops that
/// compute whole, before the loops, a value the loops only read slices of
/// (a normalization producing a gated MLP's input): each slice becomes the
/// producer computed on that slice (upstream
/// scf::tileAndFuseProducerOfSlice), and so on up its producers.
void fuseProducersIntoTileLoops(RewriterBase &rewriter, KernelOp kernel);
/// Moves into a tile loop of the (lowered) kernel body the element-wise op
/// that reads the loop's result (a gated MLP's residual add): each
/// iteration computes it on its tile (upstream scf::tileAndFuseConsumer).
void fuseConsumersIntoTileLoops(RewriterBase &rewriter, KernelOp kernel);
/// A weight tile of the F tile [f0, f0 + nf) of a gated MLP at the D chunk
/// [d0, d0 + nd): `which` 0 (gate) and 1 (up) give [nf, nd] when
/// `transposed`, else [nd, nf]; 2 (down) gives [nd, nf] when `transposed`,
/// else [nf, nd].
struct GatedWeightTile {
  Value tile;
  bool transposed;
};
/// The F loop of a gated MLP on the M tile `xt` ([nm, D]): F tiles of
/// `tileF`, the model width D in chunks of `tileD` (TileGatedMlp.cpp):
///   per F tile f (nf wide, `weight` given f0 and nf):
///     g, u = x Wg^T, x Wu^T summed in f32 over the D chunks, each rounded
///            to `gType` / `uType` once whole                  [nm, nf]
///     h    = `combine`(g, u, f0) element by element, in g's buffer (f0
///            the F tile's first column: a combine that reads per-column
///            data adds linalg.index 1 to it)
///     acc[:, chunk] += h Wd[chunk, f]^T for each D chunk     acc: [nm, D] f32
/// starting from `acc0`; returns the last acc. With `tileD` >= D there are
/// no D loops. With `biases` (the F tile's gate and up bias tiles, [nf]
/// each, of any float type), h's op also reads them and adds each, in f32,
/// to g and u before `combine`.
using GatedWeightsFn = function_ref<GatedWeightTile(
    OpBuilder &, Location, Value f0, OpFoldResult nf, unsigned which,
    OpFoldResult d0, OpFoldResult nd)>;
using GatedBiasesFn = function_ref<std::array<Value, 2>(
    OpBuilder &, Location, Value f0, OpFoldResult nf)>;
/// Work each F step does beside its tile, on a value the loop carries from
/// `init` (a MoE visit's stores of the previous visit's rows, in its first
/// step): `step` gives the step's new value from its F offset and the
/// carried one, emitted before the step's tile.
struct GatedSide {
  Value init;
  function_ref<Value(OpBuilder &, Location, Value f0, Value carried)> step;
};
/// With `side`, its `init` is replaced by the loop's last carried value.
Value buildGatedFLoop(
    OpBuilder &b, Location loc, Value xt, Value acc0, OpFoldResult nm,
    int64_t f, int64_t tileF, int64_t d, int64_t tileD, Type gType, Type uType,
    GatedWeightsFn weight,
    function_ref<Value(OpBuilder &, Location, Value g, Value u, Value f0)>
        combine,
    GatedBiasesFn biases = nullptr, GatedSide *side = nullptr);
/// acc + lhs rhs^T (`transposed`: rhs [N, K]) or acc + lhs rhs (rhs [K, N])
/// in f32, lhs [M, K], acc [M, N] f32: a projection's or a down
/// projection's tile.
Value buildMatmulTile(OpBuilder &b, Location loc, Value lhs, Value rhs,
                      bool transposed, Value acc);
//===----------------------------------------------------------------------===//
// Tiling a lowered kernel body's last op (TileBuilders.cpp)
/// The op computing `v`, if it can be tiled over its result: a linalg op on
/// tensors whose first loops are the result's dims, in order (with several
/// results, of one shape, each so: a router's indices and weights).
linalg::LinalgOp getTileableResultOp(Value v);
/// Tiles `op` (in the body of `kernel`) as `options` say, fusing its
/// producers into the tile loops; replaces its uses and erases what is dead.
FailureOr<scf::SCFTileAndFuseResult>
tileAndFuseResultOp(RewriterBase &rewriter, KernelOp kernel,
                    linalg::LinalgOp op,
                    const scf::SCFTileAndFuseOptions &options);
/// Fused producers' destinations are slices of whole-size empty or filled
/// tensors (a bf16 GEMM's f32 accumulator, a router's reductions): as
/// tile-size empty (filled) tensors they bufferize
/// to buffers of the tile, on chip, not slices of a whole-size HBM buffer
/// that each tile would be staged from and stored to.
void foldEmptyTensors(KernelOp kernel);
/// Inside the tile loops of `kernel`, merges an element-wise producer into
/// each element-wise user (a matmul tile's rounding into the epilogue's
/// residual add): one pass over the tile, and no tile of the intermediate
/// value in SRAM once the producer has no other user. Exact: the merged
/// body rounds where the two ops did. With `soleUsersOnly`, only producers
/// with one user (a producer with several is otherwise recomputed in each:
/// the running max of flash attention's KV loop).
void fuseElementwiseInTileLoops(KernelOp kernel, bool soleUsersOnly = false);

// Builders on tiles of dynamic size (TileBuilders.cpp)
//===----------------------------------------------------------------------===//

/// `tensor.empty` of `sizes` x `elementType`.
Value emptyTile(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                Type elementType);
/// `tile` (of `sizes`) copied into a tile of its own by a `linalg.copy`: on
/// a TPU-like target a buffer in VMEM that one DMA fills (an M tile of x
/// whose D chunks every F tile reads, copied on chip once).
Value copyTile(OpBuilder &b, Location loc, Value tile,
               ArrayRef<OpFoldResult> sizes);
/// `tensor.empty` of `sizes` x `elementType` filled with `value`.
Value filledTile(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                 Type elementType, double value);
/// `tensor.extract_slice` of `source` at `offsets` with `sizes`, unit
/// strides.
Value sliceOf(OpBuilder &b, Location loc, Value source,
              ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes);
/// `tensor.insert_slice` of `source` into `dest` at `offsets` with `sizes`,
/// unit strides.
Value insertSliceOf(OpBuilder &b, Location loc, Value source, Value dest,
                    ArrayRef<OpFoldResult> offsets,
                    ArrayRef<OpFoldResult> sizes);
/// An `index` constant.
Value constIndex(OpBuilder &b, Location loc, int64_t v);
/// min(tile, total - iv): the size of the tile starting at `iv`.
Value tileSize(OpBuilder &b, Location loc, Value iv, int64_t tile,
               int64_t total);
/// The size of the tile at `iv`: `tile` when it divides `total` (a static
/// size), else tileSize.
OpFoldResult tileExtent(OpBuilder &b, Location loc, Value iv, int64_t tile,
                        int64_t total);
/// The map of `numLoops` loops onto the loops `dims`, in order.
AffineMap loopsMap(MLIRContext *ctx, unsigned numLoops,
                   ArrayRef<unsigned> dims);
/// A linalg.generic whose results have the types of `inits` and whose body
/// yields what `body` returns.
ValueRange buildGeneric(
    OpBuilder &b, Location loc, ValueRange ins, ValueRange inits,
    ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iters,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body);
/// f32 constant.
Value f32Const(OpBuilder &b, Location loc, double v);
/// x * (1 / (1 + exp(-x))) in f32, as the reference lowering computes silu.
Value buildSiluF32(OpBuilder &b, Location loc, Value x);
/// npu.gelu of an f32 x: exact (erf) or, with `tanh`, the tanh form.
Value buildGeluF32(OpBuilder &b, Location loc, Value x, bool tanh);
/// npu.swiglu's act(gate) of an f32 gate.
Value buildGateActivationF32(OpBuilder &b, Location loc, Value g,
                             GatedActivation act);

/// `#gpu.block<z>, <y>, <x>` for the last `n` (at most 3) tile loops.
SmallVector<Attribute> getGpuBlockMapping(MLIRContext *ctx, size_t n);

/// One output tile of a tile grid: its value and where it goes in the
/// output.
struct OutputTile {
  Value value;
  SmallVector<OpFoldResult> offsets, sizes;
};
/// The grid of tiles with `steps` over `[0, ubs)` (at most 3 dims),
/// writing each tile `body(ivs)` returns into `init`: an scf.for nest that
/// carries the output, or with `gpuBlocks` one scf.forall mapped to GPU
/// thread blocks whose tiles are tensor.parallel_insert_slice'd (the order
/// is the hardware's). Returns the filled output. `enter(d, ivs)`, if
/// given, builds at the start of dim d's loop body, before the loops of
/// the dims after it (scf.for nest only): what the tiles of one outer
/// tile share. `lanes` (scf.for nest only; empty: 1 per dim) deals a dim's
/// tiles over that many lanes, round-robin: a loop over the lanes, and in
/// it the lane's tiles (lane c: tiles c, c + lanes, ...); `enter` of that
/// dim then builds in the lane loop, before its tiles (what each core of a
/// split loads for itself).
Value buildTileGrid(
    OpBuilder &b, Location loc, ArrayRef<int64_t> ubs, ArrayRef<int64_t> steps,
    Value init, bool gpuBlocks,
    function_ref<OutputTile(OpBuilder &, Location, ValueRange)> body,
    function_ref<void(OpBuilder &, Location, unsigned, ValueRange)> enter =
        nullptr,
    ArrayRef<int64_t> lanes = {});

} // namespace mlir::npu

#endif // NPU_LIB_CONVERSION_NPUTOLINALG_TILING_H
