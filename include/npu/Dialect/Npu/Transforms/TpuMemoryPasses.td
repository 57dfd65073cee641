//===- TpuMemoryPasses.td - TPU-like memory-level passes -*- tablegen -*-===//
//
// Included by Passes.td (one pass registry, one Passes.h.inc): the passes
// that turn a tiled kernel into the TPU-like memory program.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPU_TRANSFORMS_TPUMEMORYPASSES_TD
#define NPU_DIALECT_NPU_TRANSFORMS_TPUMEMORYPASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// TPU-like backend: memory spaces, DMA, double buffering, SRAM allocation
// (bufferized IR, after npu-tile-kernels; docs/memory-tpu.md)
//===----------------------------------------------------------------------===//

def NpuWeightsToGlobals : Pass<"npu-weights-to-globals", "ModuleOp"> {
  let summary = "Make every npu.weight a read-only global in device memory";
  let description = [{
    A deployed model's parameters are data the runtime loads into HBM, not
    values the program computes. This pass replaces every `npu.weight` by a
    read of a `memref.global` of the same name: a constant external
    declaration (no initial value, the runtime binds it, as IREE's external
    parameters are), read as a tensor by `bufferization.to_tensor restrict`.
    One-shot bufferization then reads the global in place and
    `npu-tpu-assign-memory-spaces` places it in HBM like a function
    argument, so a kernel streams its tiles by DMA as it does for an
    argument.

    Without it the reference lowering materializes each weight
    (npu-lower-to-linalg: a deterministic tensor, so that small models run
    under `mlir-runner`): a computed whole tensor that the memory passes
    stage whole into VMEM, so no real model lowered as one program.

    Weights of one name share one global; two weights of one name with
    different types are an error at the second.

    ```mlir
    %w = npu.weight "model.norm.weight" : tensor<7168xbf16>
    // becomes
    memref.global "model.norm.weight" : memref<7168xbf16> {constant}
    %m = memref.get_global @"model.norm.weight" : memref<7168xbf16>
    %w = bufferization.to_tensor %m restrict : memref<7168xbf16> to tensor<7168xbf16>
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect"];
}

def NpuBufferize : Pass<"npu-bufferize", "ModuleOp"> {
  let summary = "One-shot module bufferization in time linear in layers and "
                "kernels";
  let description = [{
    Tensors to buffers for the TPU-like memory program: upstream one-shot
    module bufferization (function boundaries bufferized, identity layouts
    at them), with three work-arounds for costs that grow with the square of
    the program in LLVM 22 (issue 29; docs/benchmarks.md measures both):

    - Symbol tables. The call-op bufferization looks its callee up through a
      symbol table of the module built again per query, so a module with a
      `memref.global` per weight (npu-weights-to-globals: ~17 per layer) and
      a call per layer costs O(layers^2): 4,096 layers took 35 s. The
      globals are set aside (unlinked from the module, in order) while the
      bufferization runs and put back after it: nothing in it reads them
      (`memref.get_global` is already a buffer op) and a global it creates
      for a constant keeps its own name (a clash is a verifier error, not a
      silent merge). Upstream LLVM caches the tables after 22; when
      Debian's LLVM carries that, this step can go.
    - Fan-out. The analysis decides each tensor operand in place by
      collecting every read of the operand's alias set; a tile's
      `tensor.extract_slice` aliases its source, so a function argument
      read by N kernels (a residual input, a table every layer reads) costs
      O(N) per slice, O(N^2) in all: a chain of 20,000 `x = x + b` kernels
      took minutes. A tensor argument whose every use only reads it (a
      slice read by linalg inputs, or a linalg input itself) is read through
      one `bufferization.to_buffer read_only` at the function's entry; each
      slice becomes a `memref.subview` of it, seen as a tensor by a
      non-writable `bufferization.to_tensor restrict`. Nothing writes the
      argument, so no read-after-write conflict can be hidden; a write into
      one of the views is made out of place, as for any non-writable tensor.
    - Entry boundary. For each function the module analysis relates every
      tensor argument to every returned tensor (aliasing, equivalence), for
      its callers: O(layers^2) for a model entry with a KV cache argument
      and result per layer. A public function nothing calls gets its
      boundary bufferized here instead: tensor arguments become
      identity-layout buffers read by `bufferization.to_tensor restrict
      writable` (one-shot's own assumption for a function argument), and
      each returned tensor is returned through `bufferization.to_buffer`.

    The lowered program is the one plain one-shot bufferization gives
    (test/Backend/tpu-bufferize.mlir).
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect"];
}

def NpuTpuAssignMemorySpaces
    : Pass<"npu-tpu-assign-memory-spaces", "ModuleOp"> {
  let summary = "Place every buffer in HBM or VMEM and stage tiles into VMEM";
  let description = [{
    On bufferized IR (npu-tile-kernels + one-shot bufferization), gives every
    memref a memory space (`#npu.memory_space<hbm>` or `<vmem>`), so that
    compute ops touch only VMEM:

    1. Every memref without a memory space (function arguments and results,
       globals, allocations outside tile loops: the values that cross
       kernels, unless 2b says otherwise) goes to HBM.
    2. An allocation inside an `scf.for` (a per-tile temporary: flash
       attention's running max, sum and accumulator) goes to VMEM, at the
       upper bound of its sizes (`min(n - iv, tile)` is bounded by `tile`)
       with a view of the actual sizes when they are dynamic; its subviews
       and collapses (of unit dims, or of whole static inner dims: a row
       tile seen as a matrix) are rebuilt on the view.
    2b. An allocation outside the tile loops whose users (through views) are
       all linalg ops of one tiled kernel (`npu.kernel_id`, written by
       `npu-tile-kernels{mark-kernels}`) is that kernel's own: VMEM too (the
       f32 accumulator of a GEMM tiled as one tile, whose loops fold away; a
       table computed once before a row loop). What another kernel, a copy or
       the function's return uses stays in HBM, except a buffer filled by
       copies that belong to the kernel: between two of its ops, in a loop
       that only copies (a MoE combine's row gather whose token loop has one
       step), or before the first op of a kernel that holds its
       intermediates (`npu.kernel_holds`: an attention kernel's resident
       K/V when its head loop has one step).
    2c. (step 3's first part) A `linalg.copy` from HBM into VMEM is a
       transfer itself: it becomes a `memref.copy` (one DMA), its input not
       staged into a buffer of its own first (x's M tile a D-tiled MLP
       copies on chip once).
    3. Every HBM operand of a linalg op gets a VMEM buffer (same bounded
       shape): an HBM tile (a `memref.subview` defined in a tile loop) for
       the whole block that defines it, so that a tile read by many ops (the
       query tile of attention, the accumulator of a GEMM across its K loop)
       is staged once; a buffer a `linalg.fill` starts and the ops of the
       loop that follows accumulate into (a GEMM's f32 result across its K
       loop) once around that loop; any other HBM operand for the op alone. A
       `memref.copy` HBM -> VMEM goes before the first use unless the first
       use overwrites the whole buffer without reading it (`linalg.fill`),
       and a `memref.copy` VMEM -> HBM after the last use if a use writes.

    Fails at the op whose HBM operand has a size without a constant upper
    bound. Decides nothing about addresses: `npu-tpu-plan-sram` does.

    ```mlir
    // before                               // after
    %t = memref.subview %x[%i, 0] ...       %t = memref.subview %x[%i, 0] ... #hbm
    linalg.generic ins(%t ...) ...          %b = memref.alloc() : memref<32x64xf32, #vmem>
                                            memref.copy %t, %b
                                            linalg.generic ins(%b ...) ...
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::npu::NpuDialect"];
}

def NpuTpuInsertDma : Pass<"npu-tpu-insert-dma", "ModuleOp"> {
  let summary = "Turn HBM<->VMEM copies into npu.dma_start / npu.dma_wait";
  let description = [{
    Every `memref.copy` between HBM and VMEM becomes an `npu.dma_start` at
    the copy and an `npu.dma_wait` of its token placed as late as is safe:
    before the first later op of the same block that accesses the
    transfer's target or writes its source (views are followed to their
    root buffer), else before the block's terminator. Two tile loads with
    no use between them are thus in flight together. Copies within one
    memory space are left alone.

    ```mlir
    // before                       // after
    memref.copy %t, %b              %tok = npu.dma_start %t, %b : ...
    memref.copy %u, %c              %tok2 = npu.dma_start %u, %c : ...
    linalg.generic ins(%b, %c ...)  npu.dma_wait %tok
                                    npu.dma_wait %tok2
                                    linalg.generic ins(%b, %c ...)
    ```
  }];
  let dependentDialects = ["::mlir::npu::NpuDialect"];
}

def NpuTpuChunkLoads : Pass<"npu-tpu-chunk-loads", "ModuleOp"> {
  let summary = "Split a GEMM step's tile loads and matmul into K chunks";
  let description = [{
    A `linalg.generic` matmul on buffers marked `npu.load_chunks = n` (set
    by `npu-tile-kernels` from a GEMM tiling's `chunks`) is split along its
    reduction loop (the last) into n matmuls over K chunks of its inputs.
    An input loaded by an `npu.dma_start` of its own (HBM to exactly that
    buffer, waited for before the matmul) is loaded by n DMAs instead, one
    per chunk, and each chunk's matmul waits only for its chunks' DMAs: the
    compute of a step starts when its first chunks have arrived. An input
    not loaded so (computed on chip) is only viewed in chunks. Runs after
    `npu-tpu-insert-dma` and before `npu-tpu-double-buffer`, which
    prefetches the chunk DMAs like any load.

    ```mlir
    // before
    %t = npu.dma_start %a_hbm, %a : ...          // [tm, tk]
    %u = npu.dma_start %b_hbm, %b : ...          // [tk, tn]
    npu.dma_wait %t
    npu.dma_wait %u
    linalg.generic ... ins(%a, %b ...) outs(%acc ...) {npu.load_chunks = 2}
    // after: DMAs of a[:, 0:tk/2], a[:, tk/2:tk], then b's; then
    npu.dma_wait %t0
    npu.dma_wait %u0
    linalg.generic ... ins(%a0, %b0 ...) outs(%acc ...)
    npu.dma_wait %t1
    npu.dma_wait %u1
    linalg.generic ... ins(%a1, %b1 ...) outs(%acc ...)
    ```

    A matmul also marked `npu.store_bands = n` (a GEMM of one K step, whose
    output tile is complete after this step) computes its last K chunk in n
    row bands of the accumulator (the row dim: the second last), each
    followed by its band of the epilogue (the element-wise ops from the
    accumulator to the stored buffer; an operand broadcast along the rows,
    a bias, stays whole) and by its own store DMA; the tile's one store
    becomes n, and its wait waits for all of them. The first bands leave
    while the last are computed.

    A mark on a matmul that cannot be split so (a dynamic or indivisible K,
    K indexing an input twice; for bands: no store of the whole tile after
    the matmul in its block, an op other than an element-wise epilogue on
    the accumulator, rows not a static multiple of n) is an error at the
    op.
  }];
  let dependentDialects = ["::mlir::npu::NpuDialect",
                           "::mlir::memref::MemRefDialect"];
}

def NpuTpuDoubleBuffer : Pass<"npu-tpu-double-buffer", "ModuleOp"> {
  let summary = "Prefetch the next tile while computing this one (multi-buffering)";
  let description = [{
    First, each perfect nest of loops (a body that is only the inner loop,
    no loop-carried values, inner bounds defined outside the nest, the same
    `npu.buffers`) becomes one loop over all its iterations (upstream
    `coalesceLoops`): a GEMM's M and N tile loops are one sequence of
    output tiles, as the cost model deals a core's tiles.

    Then, for each `scf.for` with at least `buffers` iterations (or a trip count
    known only at run time) whose body starts DMAs HBM -> VMEM into VMEM buffers
    allocated in that body (loads whose source depends only on the
    induction variable and values from outside, and whose source buffer
    the loop does not write):

    1. the buffers are hoisted out of the loop and multiplied by `buffers`
       (upstream `memref::multiBuffer`: `memref<Bx...>`, buffer
       `(iv - lb) / step mod B` in iteration iv);
    2. the loop is software-pipelined (upstream `scf::pipelineForLoop`):
       stage 0 is the DMA starts and what they need (their slice in the
       body), stage `buffers - 1` everything else, so that iteration i
       starts the load of tile i + buffers - 1 into the buffer no iteration
       in flight uses, then waits on tile i's token (carried as an
       `scf.for` iteration argument) and computes on it. A prologue starts
       the first loads, an epilogue finishes the last tiles.
    3. a loop whose trip count is known only at run time (a causal KV loop:
       its range depends on the query block) is pipelined the same way
       without a peeled epilogue: the prologue's loads and each iteration's
       prefetch get `npu.dma_start ... if %p` (`%p`: the tile exists), so
       no load runs past the range and a loop of zero or one iteration is
       still correct. Only a load slice of DMAs and side-effect-free ops
       (index arithmetic, views) is predicated; another such loop is left
       as it is.

    4. a store the loop starts into HBM from a VMEM buffer of its body
       (an output tile), waited for in the iteration, completes one
       iteration later: the buffer gets two copies and the wait moves to
       the next stage, after that iteration's own store starts, its token
       carried as an iteration argument; the last is waited for after the
       loop. Only in a loop with a static trip count of at least two and
       at least the last stage's index, when nothing else in the loop accesses the stored-to HBM
       buffer and no later op of the iteration the stored VMEM buffer, and
       no load of the loop refills it; other stores are waited in their own
       iteration. Accesses through a view that provably does not overlap the
       store's (unit-strided subviews of one value with static ranges apart
       along a dim: the row bands of `npu-tpu-chunk-loads`) do not count, so
       the band stores of a tile are deferred together, sharing the two
       copies of their buffer.

    5. a loop around such a pipelined inner loop (a GEMM's output-tile loop
       around its K loop) starts the next iteration's inner prologue loads
       (its first K tiles, into slot 0 of the inner buffers) one iteration
       ahead, after the inner loop and before its peeled last step, when
       that step reads another slot (an odd number of inner kernel
       iterations) and no loop nested in the inner one loads into those
       buffers (its whole run is in the inner loop's last step); the inner
       buffers then leave the loop.

    6. a loop whose trip count is known only at run time around such inner
       loops (a MoE's visit loop: TileMoe.cpp) hands off the same way, after
       its body's last pipelined loop instead: an earlier inner loop's slot
       0 is free there whatever its parity (the body's last loop hands off
       only if it is the body's one pipelined loop, with the parity rule).
       With these loads go the body's row gathers (loops of one-row copies
       into a buffer of the body: the next visit's rows of x), their buffer
       doubled (`memref::multiBuffer`). Both run under the predicate that
       the next iteration exists: a DMA takes `if %p`, a scalar load (a
       visit table's next entry) and a gather are put under `scf.if`. The
       weights start first, then the rows' chain, then the last step of
       the last pipelined loop computes: the next visit starts with its
       first weights and its rows on chip.

    A loop's buffer count is its `npu.buffers`, which `npu-tile-kernels`
    writes on every loop of a tiled kernel from the kernel's `#npu.tiling`
    (1: a held K/V too long to be held twice, loaded in place once per
    head; the search offers 1 to every kind); a loop without one takes the
    `buffers` option (2: double buffering), and the option 1 turns the pass
    off. Inner loops are pipelined before outer ones. Only the loads and
    stores a loop has in the pass's input are overlapped, and the inner
    prologue loads of (5): the other DMAs that pipelining an inner loop puts
    into the body of its parent do not make the parent a candidate. Loops
    that do not qualify are left as they are (the DMA is then waited before
    use, without overlap).

    ```mlir
    %buf = memref.alloc() : memref<2x32x64xf32, #vmem>
    %t0 = npu.dma_start %x0, %b0 ...           // prologue: tile 0
    %r = scf.for %k = %c0 to %c64 step %c64 iter_args(%t = %t0) {
      %tn = npu.dma_start %xnext, %bnext ...   // tile k + 1 into the other buffer
      npu.dma_wait %t                          // tile k
      linalg.generic ins(%bk ...) ...
      scf.yield %tn
    }
    npu.dma_wait %r ...                        // epilogue: the last tile
    ```
  }];
  let options = [
    Option<"buffers", "buffers", "int64_t", /*default=*/"2",
           "VMEM buffers per streamed tile of a loop without npu.buffers "
           "(the #npu.tiling 'buffers'); 1 disables the pass">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::memref::MemRefDialect"];
}


def NpuTpuPipelineRowDmas : Pass<"npu-tpu-pipeline-row-dmas", "ModuleOp"> {
  let summary = "Keep a core's row copies in flight in a loop of one-row copies";
  let description = [{
    A loop that only moves data, one DMA per iteration waited in the same
    iteration (the rows of x a MoE expert's M tile gathers, one DMA per
    routed token: docs/cost-model-tpu.md, moe_ffn), waits each copy before
    the next starts, so the copies pay their setup latency one after
    another. The cost model counts `Q` of them in flight (`Q`: the target's
    `row_dmas_in_flight_per_core`); this pass makes the program do so: such a loop
    is software-pipelined (upstream `scf::pipelineForLoop`) with the start
    (and the index loads and views it needs) in stage 0 and the wait in
    stage `min(Q, trips) - 1`, so iteration `i` starts row `i + Q - 1` and
    waits for row `i`; a prologue starts the first `Q - 1` rows and an
    epilogue waits for the last.

    Matched: a static trip count of at least two and step 1; a body of pure
    ops and scalar loads (not of the target buffer), then the
    `npu.dma_start` and its `npu.dma_wait`; the target a `memref.subview`
    of a buffer from outside the loop whose offset in some dimension is the
    induction variable with size 1 there (each iteration its own row, so
    the copies in flight never overlap).

    ```mlir
    scf.for %r = %c0 to %c8 step %c1 {
      %i = memref.load %order[%r] : memref<64xindex, #hbm>
      %src = memref.subview %x[%i, 0] [1, 512] [1, 1] : ... #hbm>
      %dst = memref.subview %tile[%r, 0] [1, 512] [1, 1] : ... #vmem>
      %t = npu.dma_start %src, %dst : ...
      npu.dma_wait %t
    }
    // becomes (Q = 4): rows 0..2 started, then per iteration row r + 3
    // started and row r waited, then the last three waited.
    ```
  }];
  let dependentDialects = ["::mlir::npu::NpuDialect",
                           "::mlir::scf::SCFDialect"];
}
def NpuTpuIssueLoadsEarly : Pass<"npu-tpu-issue-loads-early", "ModuleOp"> {
  let summary = "Start a pipelined loop's first loads as early as their block allows";
  let description = [{
    `npu-tpu-double-buffer` puts the first loads of a pipelined loop (its
    prologue: the DMAs whose tokens are the loop's initial iteration
    arguments) right before the loop. Ops before them that they do not
    depend on may take a while: a MoE expert's M tile first gathers its
    rows of x, a chain of one-row copies that each wait (docs/cost-model-tpu.md,
    `moe_ffn`), and only then would its F loop's first weight tiles start.
    The cost model's refill is the larger of the two waits, not their sum;
    this pass makes the program do so.

    Each prologue load, with the ops of its block it needs (index
    arithmetic, views, its buffer's alloc, scalar loads), moves above every
    earlier op of the block that it may start before: one that writes
    neither the load's source nor a buffer its scalar loads read, does not
    use its target, calls nothing, and waits (itself or an op nested in it)
    only for DMAs known not to touch the source or the target. Moving a
    start earlier changes no byte moved and no value computed; the buffer's
    live range starts earlier (`npu-tpu-plan-sram` runs after).

    A load that stops at compute moves further if all that separates it
    from the pipelined loop before it is that loop's peeled last step and
    what follows it (compute and waits for DMAs known not to touch its
    buffers, no DMA start, no loop): it then starts right after that loop,
    so that it loads while the last step computes (the down loop of a
    D-tiled gated MLP starts its first chunk during the gate and up loop's
    last chunk), never above the loop itself. A wait's DMAs are followed
    through loop-carried tokens: the initial value and the yielded one.

    ```mlir
    // before: rows, then the weights
    %r = npu.dma_start %xrow, %rows ...   npu.dma_wait %r
    %w = npu.dma_start %w0, %buf ...
    scf.for ... iter_args(%t = %w) { ... }
    // after: the weights start first and load while the rows are copied
    %w = npu.dma_start %w0, %buf ...
    %r = npu.dma_start %xrow, %rows ...   npu.dma_wait %r
    scf.for ... iter_args(%t = %w) { ... }
    ```
  }];
  let dependentDialects = ["::mlir::npu::NpuDialect"];
}
def NpuTpuPlanSram : Pass<"npu-tpu-plan-sram", "ModuleOp"> {
  let summary = "Decide the VMEM byte offset of every VMEM buffer";
  let description = [{
    Per function: every `memref.alloc` in `#npu.memory_space<vmem>` (static
    shape) is a buffer of `elements x element bytes`; its live range is from
    the alloc to the last op of the alloc's block that uses it, a view of
    it, or a DMA on it (up to that DMA's wait) -- an op with a region counts
    as a whole. Positions are taken in a pre-order walk, so a buffer used
    inside a loop is live for the whole loop, and buffers allocated in one
    loop body are live only within one iteration.

    Buffers are placed in order of their start, first fit: the lowest
    offset (a multiple of the alloc's `alignment`, and of the element size)
    where the buffer does not overlap any buffer live at the same time. So a
    buffer reuses the space of one that is dead. Writes `npu.sram_offset`
    (bytes, i64) on each alloc and `npu.sram_peak` (bytes: the largest
    offset + size) on the function. Writes only the decision; capacity is
    checked by `npu-tpu-verify-sram`.

    ```mlir
    %a = memref.alloc() {npu.sram_offset = 0 : i64} : memref<32x64xf32, #vmem>
    // %a dead here
    %b = memref.alloc() {npu.sram_offset = 0 : i64} : memref<32x64xf32, #vmem>
    ```
  }];
}

def NpuTpuVerifySram : Pass<"npu-tpu-verify-sram", "ModuleOp"> {
  let summary = "Check the VMEM plan: no overlap of live buffers, capacity";
  let description = [{
    The contract after SRAM planning, checked independently of the planner
    (liveness is re-derived here, offsets are read from the IR): every VMEM
    `memref.alloc` has a static shape and an `npu.sram_offset` >= 0; offset
    + size is at most `vmem_bytes_per_core` of the module's `npu.target`
    (its `tpu` part); and no two buffers live at the same time have
    overlapping byte ranges. No `func.call` happens while a VMEM buffer is
    live (each function's plan starts at offset 0). Fails at the offending
    alloc, with a note at the buffer it overlaps.

    ```mlir
    // error: VMEM buffer [0, 8192) overlaps the live buffer [4096, 12288)
    ```
  }];
}

def NpuTpuCheckPlan : Pass<"npu-tpu-check-plan", "ModuleOp"> {
  let summary = "Check the lowered TPU memory program against what the cost "
                "model priced";
  let description = [{
    Run after `npu-tpu-pipeline` (kernels with `npu.tiling` and `npu.cost`).
    Each `npu.kernel` is copied into a module of its own (nested in this one
    while it is checked, then erased) as a function of the kernel's
    operands, lowered there by `lower-pipeline` (by default
    `npu-tpu-lower-pipeline`: tiling, bufferization, memory spaces, DMA,
    double buffering, the VMEM plan and its check), and measured
    (npu/Analysis/ProgramMeasure.h): the bytes its DMAs copy HBM -> VMEM and
    VMEM -> HBM, counted over the loops that run them (closed form where a
    loop's transfers do not depend on its index, enumerated otherwise), plus
    any copy left between HBM buffers; the DMAs started; the VMEM plan's
    peak (`npu.sram_peak`).

    Then it compares, per kernel:
    * HBM bytes read and written: the program's against the kernel's
      `#npu.cost` `hbm_read_bytes` and `hbm_write_bytes`; an error when they
      differ by more than `tolerance` (relative, either way);
    * VMEM: the plan's peak against the tiling's `sram_bytes` (the working
      set the model priced and the tile search fitted); an error when the
      plan needs more than `(1 + tolerance)` times it. A plan below the
      model is reported, not an error (the model is conservative there).

    A kernel whose transfers depend on run-time values (a MoE expert's rows,
    a loop bound read from memory) has its bytes reported as not measurable,
    with the reason; its VMEM is still checked. `report=true` prints one row
    per kernel (exact bytes) to stdout. The module is left unchanged.

    ```
    npu-opt m.mlir --npu-tpu-pipeline="target=tpu-v7" \
        --npu-tpu-check-plan="tolerance=0.01 report=true"
    ```
  }];
  let options = [
    Option<"tolerance", "tolerance", "double", /*default=*/"0.0",
           "Relative difference allowed between measured and claimed bytes">,
    Option<"lowerPipeline", "lower-pipeline", "std::string",
           /*default=*/"\"npu-tpu-lower-pipeline\"",
           "The pipeline that lowers a kernel's module (textual form)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Print the measured and claimed numbers of every kernel">,
  ];
}

def NpuTpuToHost : Pass<"npu-tpu-to-host", "ModuleOp"> {
  let summary = "Make a TPU memory program runnable on the host (mlir-runner)";
  let description = [{
    For execution tests only: every `npu.dma_start` becomes a synchronous
    `memref.copy` and every `npu.dma_wait` is erased (tokens are replaced by
    `ub.poison` and disappear once `canonicalize` drops the unused loop
    arguments that carried them); then every `#npu.memory_space` is erased
    from all types, so that the upstream LLVM lowering accepts the program.
    Run after it: `canonicalize`. The VMEM plan is not emulated: each VMEM
    buffer is a separate host allocation.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::ub::UBDialect"];
}

#endif // NPU_DIALECT_NPU_TRANSFORMS_TPUMEMORYPASSES_TD
