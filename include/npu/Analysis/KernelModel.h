//===- KernelModel.h - a kernel's loop nest as the cost models see it -*- C++
//-*-===//
//
// The bridge between IR and the cost models: describeKernel() reads a fused
// group of npu ops (an npu.kernel body, or a candidate group during fusion)
// and returns its loop nest, element sizes and work as plain numbers. The
// TPU-like and GPU-like cost models take a KernelDesc and a tile and return a
// cost; they never look at IR, so they are unit-testable with hand-made
// descriptions and the fusion pass can price a group before forming it.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_ANALYSIS_KERNELMODEL_H
#define NPU_ANALYSIS_KERNELMODEL_H

#include "npu/Dialect/Npu/IR/KernelNest.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "llvm/ADT/SmallVector.h"

namespace mlir::npu {

/// One loop nest of a kernel (a kernel may have several phases: the MLA
/// absorbed kernel runs a GEMM, attention and a GEMM back to back; the MoE
/// kernel runs the same expert FFN for each active expert).
struct KernelDesc {
  KernelKind kind = KernelKind::Stream;
  /// Iteration sizes, in the order #npu.tiling documents for `kind`; read
  /// them by name with gemmLoops(), mlpLoops(), attentionLoops() or
  /// rowLoops().
  llvm::SmallVector<int64_t, 4> loops;
  /// Times this loop nest runs back to back (MoE: active experts).
  int64_t repeat = 1;

  /// Useful work of one repetition (FLOPs by kind; bytes are derived from
  /// the loop nest and the tile, not from here).
  Work work;
  /// Element type of the matrix operands (selects the peak rate).
  Type matrixType;
  /// gemm, gated_mlp, moe_ffn: B stored in a scaled format (npu.dequantize;
  /// docs/formats.md); false for a plain B. `matrixType` is then the
  /// product's type where the chip takes the format in its matrix unit,
  /// which needs a rate for `nativeType` (fp8 or fp4; null for int8 and int4
  /// weights, which every chip converts). Elsewhere each B tile is converted
  /// on the vector unit as it loads (getMatrixPath) and multiplied at
  /// `fallbackType`'s rate (the activations' type). `valueBytes`: the
  /// values alone (0.5 for 4-bit), the pitch of B's rows in memory, its
  /// scales being a tensor of their own.
  struct StoredRhs {
    Type nativeType, fallbackType;
    double valueBytes = 0;
    explicit operator bool() const { return bool(fallbackType); }
  } storedRhs;

  /// Bytes per element of the main operands: gemm A, B, C; gated_mlp x, W,
  /// y; attention Q, K/V, O; stream/copy: bytes moved per (row, column)
  /// element, all inputs and outputs together, in `lhsBytes`. B's is a
  /// fraction for a stored format (its values and its scales' share: 0.53125
  /// for MXFP4); count with bytesOf.
  int64_t lhsBytes = 0;
  double rhsBytes = 0;
  int64_t outBytes = 0;
  /// B's row pitch per element: a stored B's values, else rhsBytes.
  double getRhsValueBytes() const {
    return storedRhs ? storedRhs.valueBytes : rhsBytes;
  }
  /// gemm: B has batch dimensions (a per-batch operand, not a shared weight).
  bool rhsBatched = false;
  /// gemm: a batch of more than one folded into M (a shared weight): an
  /// output tile's rows may span batch elements.
  bool foldedBatch = false;
  /// gemm: one matmul (one output), the form npu-tile-kernels tiles.
  bool singleOutput = true;
  /// gemm with several outputs (projections of one input): each output's
  /// N, in order (they sum to N); the lowering tiles each in a loop
  /// nest of its own. Empty for one output.
  llvm::SmallVector<int64_t, 2> siblingN;
  /// gemm: a row-wise prologue (normalization) needs whole rows of A on
  /// chip, so the K tile must be K.
  bool needsFullK = false;
  /// Bytes of other inputs read once (residual, bias, norm weights).
  int64_t extraReadBytes = 0;
  /// gemm: of `extraReadBytes`, vectors of one value per output column (a
  /// bias [N]): each output tile reads its columns' slice, so each is read
  /// once per M tile (TileGemm.cpp's epilogue).
  int64_t columnBytes = 0;
  /// gated_mlp: its epilogue adds another input of the output's shape (not
  /// the MLP's own input), loaded tile by tile beside the output's.
  bool epilogueInput = false;
  /// stream, copy: the shape of the loop nest's result, rows then the
  /// columns (rowTileSizes says which row tiles the lowering can make).
  llvm::SmallVector<int64_t, 4> rowShape;
  /// stream, copy: the bytes per row of each row-tiled input and output,
  /// when they account for every byte moved per row (each is a buffer of
  /// its own on chip, rounded up to 64 bytes); empty otherwise.
  llvm::SmallVector<int64_t, 4> rowBufferBytes;
  /// Whether the lowering can tile this kernel's rows `rows` at a time
  /// (always, for kernels that are not streams or copies).
  bool isRowTile(int64_t rows) const {
    return rowShape.empty() || rowTileSizes(rowShape, rows).has_value();
  }
  /// gemm, gated_mlp: a normalization of the input runs in each M tile; its
  /// output tile (the matmuls' input) holds this many bytes per element (0:
  /// no norm).
  int64_t normBytes = 0;
  /// stream: what the kernel computes once and holds for all its tiles (a
  /// rotary embedding's inverse frequencies and cos/sin table, f32).
  int64_t tableBytes = 0;
  /// stream: the table's positions (the rotary embeddings' sequence length;
  /// 0 if it has none, or ropes of different lengths) and its entries per
  /// position (the sum of their R/2: an f32 cos and sin each), for a table
  /// computed per tile instead (`tablePerTile`, #npu.tiling's
  /// table_per_tile): a tile holds its positions' share and recomputes it.
  int64_t tableRows = 0, tableEntries = 0;
  bool tablePerTile = false;
  /// What is held whole on chip beside the tiles, each buffer rounded up to
  /// the 64 bytes every SRAM allocation is aligned to. stream: the inputs
  /// that are not row-tiled (a norm's weight, a bias, a scalar): loaded once
  /// and held for all the tiles (npu-tpu-assign-memory-spaces hoists them
  /// out of the row loop), `heldReadBytes` of the bytes read; attention: a
  /// transposed query computed before the tile loops.
  int64_t heldBytes = 0, heldReadBytes = 0;
  /// attention: the peak on chip while the body's ops before the tile loops
  /// run (a transposed query: its input staged whole beside its result);
  /// the working set is at least that.
  int64_t prologueBytes = 0;
  /// stream: what each row holds on chip while it is computed beyond the
  /// bytes it moves, in one buffer with the tile's (a layer norm's
  /// centered row in f32, a combine's f32 accumulator).
  int64_t rowStateBytes = 0;
  /// stream: state a row holds in buffers of their own, bytes per row of
  /// each (each allocation is aligned to 64 bytes: a norm's f32 statistics,
  /// a router's scores, its softmax statistics and each top-k slot's value,
  /// expert and score).
  SmallVector<int64_t, 4> rowStateBuffers;
  /// moe_ffn's routed experts (TPU-like): each tile's rows of x are gathered
  /// one DMA per row, and its output rows leave as one block (in the
  /// result's type) to the buffer the combine reads. The GPU-like model,
  /// which runs an expert as two GEMMs, does not read this.
  bool gatheredRows = false;
  /// stream: of `work.bytesRead`, the rows read one DMA each (an
  /// embedding's table rows): DMA count.
  int64_t rowReads = 0;
  /// moe_ffn's combine, run in each M tile after its compute (the shared
  /// expert's gated MLP, or a stream's row tile): each token adds its
  /// `combineSlots` routed outputs (rows of the result's type) weighted by
  /// its routing weights (`combineWeightBytes` each). The rows are copied
  /// moeCombineTokens(tile, slots) tokens at a time by a loop of one-row
  /// DMAs that nothing overlaps, then summed (TileMoe.cpp, buildCombine).
  int64_t combineSlots = 0, combineWeightBytes = 0;
  /// The combine's routed rows, each read once (tokens x slots x D of the
  /// result's type, tokens the first loop and D the last): part of
  /// `extraReadBytes` (gated_mlp) or `work.bytesRead` (stream); 0 without a
  /// combine.
  Count combineReadBytes() const {
    if (combineSlots <= 0 || loops.empty())
      return Count(0);
    return Count::fromSigned(loops.front()) * Count::fromSigned(combineSlots) *
           Count::fromSigned(loops.back()) * Count::fromSigned(outBytes);
  }
  /// The main input or the output lives on chip already (an earlier or
  /// later phase of the same kernel produces or consumes it): no HBM
  /// traffic, no DMA.
  bool inputOnChip = false, outputOnChip = false;

  /// attention: query heads per KV head, causal mask, sliding window and
  /// chunk (0: none), value dim, latent form (V is part of K: K/V bytes are
  /// K's).
  int64_t group = 1, vDim = 0, window = 0, chunk = 0;
  bool causal = false, latent = false;
  /// attention: soft-capped logits (a divide, a tanh and a multiply more
  /// per score); sinks (an exp, a subtract and an add more per row).
  bool softcap = false, sinks = false;
  /// attention: per-score vector and transcendental work of a visited
  /// score tile (the softmax's, plus the soft-cap's).
  int64_t scoreVectorFlops() const { return softcap ? 6 : 4; }
  int64_t scoreTranscendentals() const { return softcap ? 2 : 1; }

  /// attention: elements of K and V per key (the head dim plus the value
  /// dim, or the head dim alone in the latent form).
  int64_t kvWidth() const {
    return attentionLoops().headDim + (latent ? 0 : vDim);
  }

  /// `loops` with named loops, for the kinds each nest describes.
  GemmNest<> gemmLoops() const {
    assert(kind == KernelKind::Gemm);
    return GemmNest<>::from(loops);
  }
  MlpNest<> mlpLoops() const {
    assert(kind == KernelKind::GatedMlp || kind == KernelKind::MoeFfn);
    return MlpNest<>::from(loops);
  }
  AttentionNest<> attentionLoops() const {
    assert(kind == KernelKind::Attention || kind == KernelKind::MlaAbsorbed);
    return AttentionNest<>::from(loops);
  }
  RowNest<> rowLoops() const {
    assert(kind == KernelKind::Stream || kind == KernelKind::Copy);
    return RowNest<>::from(loops);
  }
};

/// Appends every field of `desc` to `key`: two descriptions with the same
/// key are the same (a memo's key; its type by its uniqued pointer, so a
/// key is only meaningful within one context).
void appendKey(const KernelDesc &desc, llvm::SmallVectorImpl<uint64_t> &key);

/// A kernel: its phases, run one after the other.
struct KernelModel {
  KernelKind kind = KernelKind::Stream;
  llvm::SmallVector<KernelDesc, 1> phases;
  /// Index of the phase whose tile #npu.tiling records.
  unsigned mainPhase = 0;
  /// moe_ffn: index of the shared expert's phase, whose tile #npu.tiling
  /// records as `shared_tile` (-1: none).
  int sharedPhase = -1;
  /// Useful work of the whole kernel (the work interface's, summed).
  Work work;
  /// Operations the core's scalar unit runs one after another before the
  /// tile loops can start (a MoE dispatch's scatter), once per kernel.
  int64_t serialScalarOps = 0;
  /// Vector-unit operations of one core before the tile loops (a MoE
  /// dispatch's dense ranking), once per kernel.
  int64_t serialVectorFlops = 0;
  /// HBM bytes the kernel moves besides its phases' tiles, charged at one
  /// core's bandwidth before the tile loops (a MoE dispatch's arrays, as
  /// the lowering moves them in bulk).
  int64_t serialReadBytes = 0, serialWriteBytes = 0;
  /// A MoE dispatch's order (TileMoeDispatch.cpp): for `assignments`, a
  /// bitonic sort on the vector unit where moeDispatchSorts says its keys
  /// fit the core's SRAM, else the scalar unit's scatter, whose order
  /// (`orderBytes`) goes through HBM. Added to the serial work above by the
  /// TPU-like model (withTpuDispatch), which knows the SRAM; a GPU-like
  /// dispatch kernel writes the order for the grouped GEMMs after it.
  /// The TPU-like routed loop's visit table is priced with the tile too
  /// (its size depends on the M tile): `experts`, the `tokens` that cap the
  /// M tile, and the static plan's rows in all (`plannedRows`).
  struct DispatchOrder {
    int64_t assignments = 0;
    /// The sorted order's vector work; the scattered order's `where` (its
    /// vector work and its second read of the indices) and scalar work.
    int64_t sortVectorFlops = 0, whereVectorFlops = 0, scatterScalarOps = 0;
    int64_t whereReadBytes = 0, orderBytes = 0;
    int64_t experts = 0, tokens = 0, plannedRows = 0;
  };
  std::optional<DispatchOrder> dispatchOrder;
};

/// `model` with its main phase's rotary table held whole or computed per
/// tile, as a plan places it (#npu.tiling's table_per_tile).
inline KernelModel withTablePerTile(KernelModel model, bool perTile) {
  model.phases[model.mainPhase].tablePerTile = perTile;
  return model;
}

/// Describes a group of ops fused into one kernel of kind `kind`. `ops` are
/// the group's ops in program order; values they use that no op of the group
/// defines are its inputs, values used outside (or by `npu.yield`) its
/// outputs. Fails (without a diagnostic) if the group does not have the
/// shape `kind` requires; the caller reports it.
FailureOr<KernelModel> describeKernel(KernelKind kind,
                                      llvm::ArrayRef<Operation *> ops);

/// Calls `fn` with every tile that takes one value from each of `lists`
/// (a tile search's candidates per loop, each list ascending), the last
/// list varying fastest; `fn` may change the tile it is given (a choice it
/// derives from the others). `fn` returns false when the tile cannot fit
/// and no tile at least as large in every loop can either (a fit test
/// monotone in each loop's size): those tiles are skipped unvisited, so a
/// search's work is bounded by what fits, not by the loops' extents.
void forEachTile(llvm::ArrayRef<llvm::SmallVector<int64_t>> lists,
                 llvm::function_ref<bool(llvm::MutableArrayRef<int64_t>)> fn);

/// Whether `op` does work a kernel must do (FLOPs or bytes); views
/// (reshape, slice, KV-cache read), `npu.weight` and ops outside the npu
/// dialect do not.
bool doesWork(Operation *op);

/// The kind of the kernel `op` forms on its own: matmul -> gemm, attention
/// -> attention, MoE experts -> moe_ffn, data movement -> copy, anything
/// else -> stream.
KernelKind getDefaultKernelKind(Operation *op);

/// describeKernel on the body of an npu.kernel.
FailureOr<KernelModel> describeKernel(KernelOp kernel);

/// Why describeKernel(kernel) failed, for a diagnostic: a 0-d tensor in the
/// body, or a body that is not the shape its kind needs.
std::string explainUndescribedKernel(KernelOp kernel);

/// Number of (query tile, KV tile) pairs a flash-style kernel visits for one
/// (batch, KV head), in closed form (O(log) per call): every KV tile that
/// holds an unmasked key of some query of the query tile. Query i sees keys
/// [AttentionOp::firstVisibleKey(off + i, window, chunk), off + i] with off
/// = kvLen - qLen when causal (all keys otherwise). With chunk(C) the first
/// keys are summed chunk by chunk or tile by tile, whichever are fewer.
int64_t countVisitedTiles(int64_t qLen, int64_t kvLen, int64_t tq, int64_t tkv,
                          bool causal, int64_t window, int64_t chunk);

/// Of those pairs (without a window), the ones whose KV tile is tile
/// `firstTile` or later: what a kernel holding the first firstTile * tkv
/// keys on chip still streams. Closed form too.
int64_t countVisitedTilesFrom(int64_t qLen, int64_t kvLen, int64_t tq,
                              int64_t tkv, bool causal, int64_t firstTile);

/// sum_{i=0}^{n-1} floor((a*i + b) / m) for n, m >= 1, a, b >= 0, in
/// O(log m) (the classic Euclid-like reduction). Exact in 128-bit
/// arithmetic.
__int128 floorSum(int64_t n, int64_t m, int64_t a, int64_t b);

/// Peak matrix FLOP/s of `target` for operands of `matrixType`. A chip
/// without that dtype's rate (fp8 on an A100), or no matrix type at all,
/// runs at bf16's. Shared by the bill and both cost models.
double getMatrixPeakFlopPerS(TargetAttr target, Type matrixType);
/// What the cost models use: that peak scaled by the target's sustained
/// matrix clock (matrix_clock_hz / clock_hz). The bill's roofline keeps the
/// peak.
double getMatrixSustainedFlopPerS(TargetAttr target, Type matrixType);
/// The share of its quoted clock a chip sustains under load (matrix_clock_hz
/// / clock_hz, npu-target/calibration.md): one clock for a whole core, so
/// its vector, special-function and scalar units run at it too.
double getSustainedClockShare(TargetAttr target);

/// getMatrixSustainedFlopPerS per compute unit in FLOP/ns, read from the
/// target once per dtype: the cost models' tile searches price a kernel
/// tens of thousands of times.
struct MatrixRates {
  static MatrixRates get(TargetAttr target, int64_t units);
  double of(Type matrixType) const;
  /// Whether the chip has `type`'s own rate (not bf16's in its place).
  bool has(Type type) const;

private:
  /// `type`'s own rate; 0 for a type without one or a chip that lacks it.
  double ownRate(Type type) const;
  double perNs[4] = {0, 0, 0, 0}; ///< by TargetDtype; 0: the chip lacks it
};

/// How a kernel's matrix FLOPs run on a chip of `rates`: at `type`'s rate,
/// with `dequantFlops` vector FLOPs per B element each B tile load converts
/// (a stored format the matrix unit does not take: decode and scale).
struct MatrixPath {
  Type type;
  int64_t dequantFlops = 0;
};
MatrixPath getMatrixPath(const KernelDesc &k, const MatrixRates &rates);

/// Sets what `k` knows of its weight operand `rhs`, multiplied by A of
/// element type `lhsType`: the product's type (getProductType) and B's bytes
/// per element, or, for a weight stored in a scaled format (produced by
/// npu.dequantize; docs/formats.md, "Product types"): fp8 values multiply
/// as fp8 (W8A8, A quantized as its tiles load), MXFP4 as W4A8 (fp8, A in
/// MXFP8: the block-scaled MMA's mixed fp4 x fp8 kind), NVFP4 as W4A4
/// (fp4), all three native where the chip has the values' own rate; int8
/// and int4 are weight-only (A's type, always converted).
void describeRhs(KernelDesc &k, Type lhsType, Value rhs);

/// Bytes of `elements` elements of `bytesPerElement` each, rounded up (a
/// stored format's fractional bytes); overflows past 64 bits. Exact for a
/// whole number of bytes per element.
Count bytesOf(Count elements, double bytesPerElement);

/// The element type whose peak rate a product of `a` by `b` runs at: an
/// 8-bit float operand makes it an 8-bit product (the other operand is
/// quantized as its tiles load: W8A8, DeepSeek-V3's fp8 recipe with 1 x 128
/// activation groups, as DeepGEMM and the TPU stacks' quantized matmuls run
/// it); otherwise the wider of the two. Null types are ignored.
Type getProductType(Type a, Type b);

/// What both cost models compute for a loop nest or a whole kernel: the
/// parts of `#npu.cost` that mean the same on both kinds of target. Each
/// model's cost (TpuCost, GpuCost) adds its own.
struct CostParts {
  double timeNs = 0;
  double computeNs = 0;  ///< the compute units alone, at their rates
  double memoryNs = 0;   ///< the HBM traffic alone, at the bandwidth
  double overheadNs = 0; ///< timeNs - max(computeNs, memoryNs)
  Count hbmReadBytes, hbmWriteBytes;
  Count paddedMatrixFlops;
  CostBound getBound() const;
  bool isOverflow() const {
    return hbmReadBytes.isOverflow() || hbmWriteBytes.isOverflow() ||
           paddedMatrixFlops.isOverflow();
  }
  /// Adds `o`'s times and counts (phases run one after the other).
  void add(const CostParts &o);
};

/// The bound of a modelled time: `overhead` if that part exceeds both
/// others, else `compute` or `memory`, whichever is larger (compute on a
/// tie). Shared by both cost models and the function totals.
CostBound classifyBound(double computeNs, double memoryNs, double overheadNs);

/// Size of `n` split into tiles of `t`, each padded up to a multiple of
/// `granule`: (n / t) * roundUp(t, g) + roundUp(n % t, g).
int64_t paddedExtent(int64_t n, int64_t t, int64_t granule);

} // namespace mlir::npu

#endif // NPU_ANALYSIS_KERNELMODEL_H
