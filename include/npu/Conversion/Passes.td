//===- Passes.td - conversions out of the npu dialect ---------------------===//

#ifndef NPU_CONVERSION_PASSES_TD
#define NPU_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def NpuLowerToLinalg : Pass<"npu-lower-to-linalg", "ModuleOp"> {
  let summary = "Reference lowering of every npu op to linalg/tensor/arith/math/scf";
  let description = [{
    Rewrites every `npu` op into upstream dialects on tensors. This lowering
    *defines* the numerical semantics of the dialect: the execution tests run
    its output with `mlir-runner` and compare with an independent reference,
    and the tiled and fused pipelines are checked against it.

    The lowering favours clarity over speed: attention materializes its
    score matrix, top-k is a selection loop, and `npu.weight` becomes a
    deterministic constant tensor (see its description). Reductions
    accumulate in f32 (or the op's accumulator type) and round once.

    Any npu op left unconverted is an error at its location.

    Example:
    ```mlir
    %y = npu.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
    ```
    becomes a `linalg.fill` of the accumulator and a `linalg.generic` with
    iterators `[parallel, parallel, reduction]`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def NpuTileKernels : Pass<"npu-tile-kernels", "ModuleOp"> {
  let summary = "Apply the tiling decision of each npu.kernel: tiled linalg/scf on tensors";
  let description = [{
    Lowers every `npu.kernel` to linalg/tensor/arith/math/scf on tensors and
    inlines it, applying the kernel's `npu.tiling` decision
    (`#npu.tiling<loops = [...], tile = [...], ...>`, written by
    `npu-decide-tiles` or by hand). Deciding is not this pass's job: it
    applies the tile sizes it is given, and tile sizes that do not divide
    their loop give smaller boundary tiles. docs/tiling.md says how each kind
    is tiled and which tests prove it is the same program as the reference
    lowering (`npu-lower-to-linalg` of the untiled kernel).

    * `gemm` (loops batch, M, N, K): the body is lowered with the reference
      patterns, then its last op is tiled over (batch,) M and N with
      `scf::tileConsumerAndFuseProducersUsingSCF`, which fuses the matmul,
      its producers (a normalization of its lhs) and the epilogue into the
      tile loop; the matmul's K reduction is then tiled with
      `scf::tileUsingSCF` when the K tile is smaller than K.
    * `attention`, `mla_absorbed` (loops batch x KV heads, query rows, KV
      length, head dim): the `npu.attention` of the body becomes a
      flash-attention loop nest: tiles of (batch x KV head, query rows of
      all query heads of that KV head), and an inner `scf.for` over KV tiles
      carrying the running max, running sum and unnormalized output (online
      softmax). Causal and sliding-window masks are applied per tile and KV
      tiles outside every row's visible range are not visited. The other
      ops of the body (MLA's absorbed projections) use the reference
      patterns. The head-dim loop is not tiled. With keys held on chip
      (tile #5 larger than the K/V tile: a prefix of whole K/V tiles, or
      all of them), each head block first copies its held keys on chip,
      and a query block's KV range is a loop over the held tiles (views of
      the copy) followed by one over the streamed tiles past them, the
      state carried from the first to the second. With a split-KV decision
      (`npu.launch` with `kv_splits` > 1, GPU-like targets), each query
      tile's KV range is split: every split writes its f32 partial output,
      max and sum, and a combine rescales and adds them (docs/tiling.md).
    * `gated_mlp` (loops M, F, D): the down projection of
      `swiglu(x Wg^T, x Wu^T)` becomes a loop over M tiles with an inner
      loop over F tiles accumulating `h[:, f] Wd[:, f]^T` in f32; with a D
      tile below D (a small SRAM), each F tile sums g and u over D chunks
      and adds the down projection's output D chunk by D chunk (x's M tile
      copied on chip once). Other ops (norm, residual) use the reference
      patterns; with `scf.for` tile loops, the ops computing x (a norm) are
      then fused into the M loop (`scf::tileAndFuseProducerOfSlice` on each
      M tile's slice of x).
    * `stream`, `copy` (loops rows, cols of the result): the lowered body's
      last op is tiled over the result's row dimensions, `tile[0]` rows per
      tile, with `scf::tileConsumerAndFuseProducersUsingSCF` (with
      `block-mapping=none` only).
    * `moe_ffn` (loops M, F, D; with `block-mapping=none` only): expert-
      major. The assignments are counted, prefix-summed and sorted by
      expert once; for each expert, an `scf.for` over M tiles of its rows
      (its count: a run-time trip count) gathers the tile's rows of x, runs
      the F loop (D chunks as the gated MLP's) with the expert's weight tiles and stores the real rows'
      f32 outputs as one block; then per M tile of tokens (`shared_tile`,
      the main tile if absent) the shared expert's output plus each
      token's routed outputs in slot order, rounded to the result type
      (docs/tiling.md).
    * Kernels whose body does not have the expected shape, and kernels
      without `npu.tiling` are lowered untiled with the reference patterns.

    With `block-mapping=gpu` (a GPU-like target's thread blocks), the tile
    loops that are thread blocks are one `scf.forall` mapped to
    `#gpu.block<z>, <y>, <x>` with `tensor.parallel_insert_slice` outputs:
    gemm (batch,) M and N, attention (heads, query rows), gated MLP M. Each
    iteration is one thread block of the grid, in no order the program
    fixes (the hardware's block scheduler decides); the loops inside a
    block (gemm K, attention KV, gated MLP F) stay `scf.for`. The default,
    `none`, gives sequential `scf.for` tile loops (the TPU-like target's
    static order). `npu-reference-to-llvm` runs an `scf.forall` as nested
    loops (`scf-forall-to-for`).
  }];
  let options = [
    Option<"blockMapping", "block-mapping", "std::string", /*default=*/"\"none\"",
           "none: scf.for tile loops; gpu: the block tile loops (gemm, "
           "attention, gated MLP) as scf.forall mapped to GPU thread blocks">,
    Option<"markKernels", "mark-kernels", "bool", /*default=*/"false",
           "mark the linalg ops of each kernel whose tiling was applied with "
           "`npu.kernel_id` (the kernel's number), for "
           "npu-tpu-assign-memory-spaces; a module with ops that do work "
           "and no npu.kernel is then an error (the memory pipeline needs "
           "--npu-tpu-pipeline first)">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // NPU_CONVERSION_PASSES_TD
