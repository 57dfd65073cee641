//===- Passes.td - passes on npu graph IR ---------------------------------===//

#ifndef NPU_DIALECT_NPU_TRANSFORMS_PASSES_TD
#define NPU_DIALECT_NPU_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def NpuReportWork : Pass<"npu-report-work", "ModuleOp"> {
  let summary = "Print the work (FLOPs by kind, bytes, parameter bytes) of every op";
  let description = [{
    Walks every function and prints, for each op that implements
    `NpuWorkOpInterface`, its matrix, vector and transcendental FLOPs, the
    minimum bytes it reads and writes, and its parameter bytes; then the
    totals per function. The numbers are exact integers so that they can be
    checked by hand (docs/work.md gives each op's formula).

    `format=text` prints an aligned table, `format=json` one JSON object
    (schema in docs/work.md). The report goes to stdout, the IR is left
    unchanged; use `-o /dev/null` to see only the report.

    A count that does not fit in 64 bits is an error at the op, and the pass
    fails without printing a partial report.

    ```
    npu-opt examples/llama3-8b-layer.mlir --npu-report-work -o /dev/null
    ```
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "Output format: 'text' (a table) or 'json'">,
  ];
}

def NpuReportBill : Pass<"npu-report-bill", "ModuleOp"> {
  let summary = "Print the bill of a model on a chip: bytes, FLOPs, roofline, fit";
  let description = [{
    For a module (typically imported by `npu-translate --import-hf-config`,
    whose `@model` calls one function per layer kind) and a target from
    `npu-target/`, prints per op, per layer and for the whole step:

    * parameter bytes (distinct `npu.weight`s), activation bytes and the peak
      of live activations, KV-cache bytes per token and in total;
    * FLOPs by kind, with the attention core (QK^T and PV) apart from the
      linear layers;
    * arithmetic intensity (FLOP per byte moved), the roofline lower bound on
      time (each op alone: max of compute time at the dtype's peak and memory
      time at HBM bandwidth) and whether the op is compute- or memory-bound;
    * whether parameters + KV cache + peak activations fit in one chip's HBM,
      and the minimum number of chips otherwise.

    The formulas are in docs/accounting.md, with a worked DeepSeek-V3
    example. `format=json` prints the same numbers (exact integers) with the
    schema `npu-bill/1` documented there. The IR is left unchanged.

    ```
    npu-translate --import-hf-config examples/configs/deepseek-v3.json \
        --phase=decode --batch=64 --context-len=4096 |
      npu-opt --npu-report-bill="target=h200" -o /dev/null
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target name (a file in npu-target/) or path to a target file; "
           "empty: the module's npu.target (one of the two is required)">,
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "Output format: 'text' (tables) or 'json'">,
  ];
}

def NpuReportParallelMap : Pass<"npu-report-parallel-map", "ModuleOp"> {
  let summary = "Print how each cut of a model talks on a system of chips";
  let description = [{
    For an imported model (an `npu.model` description) and a system from
    `npu-target/systems/`, prints the course's map of parallelism: for each
    dimension the model can be cut along (batch, hidden/heads, sequence,
    experts, layers), the collective the cut needs, what moves and its
    volume `V` per occurrence, how many occurrences one step has, and the
    time per step on each network level of the system (all its scale-up
    axes together, and its scale-out axis), priced by the collective model
    of docs/collectives.md. The frequency decides how slow a link a
    dimension may live on. The formulas are in docs/parallelism.md. The IR
    is left unchanged.

    ```
    npu-translate --import-hf-config examples/configs/deepseek-v3.json \
        --phase=prefill --seq-len=4096 |
      npu-opt --npu-report-parallel-map="system=16xh200" -o /dev/null
    ```
  }];
  let options = [
    Option<"system", "system", "std::string", /*default=*/"\"\"",
           "System name (a file in npu-target/systems/) or path (required)">,
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "Output format: 'text' (a table) or 'json'">,
  ];
}

//===----------------------------------------------------------------------===//
// Backends: target, fusion, tiling, cost, schedule, reports
//===----------------------------------------------------------------------===//

def NpuSetTarget : Pass<"npu-set-target", "ModuleOp"> {
  let summary = "Attach a hardware target (#npu.target) to the module";
  let description = [{
    Loads `target` (a name in npu-target/ or a path to a target file) and
    writes it as the module attribute `npu.target`. Every backend pass after
    it reads the target from there, so a pipeline loads the file once and a
    test can write the attribute by hand (e.g. a mock target).

    ```
    npu-opt --npu-set-target="target=tpu-v5e" model.mlir
    ```

    `gpu-launch` says how a GPU-like target's kernels are launched:
    `graph` (replayed from a CUDA graph: the target's
    `graph_launch_overhead_ns` per kernel) or `stream` (launched one by one:
    `launch_overhead_ns`), written as the module attribute `npu.gpu_launch`.
    `auto` (the default) writes nothing, and the cost model then replays a
    decode step (`npu.model` phase `decode`) from a graph and launches
    anything else on a stream, as serving stacks do (vLLM captures decode
    batches in full CUDA graphs by default; docs/cost-model-gpu.md).

    `gpu-epilogue` says whether a GPU-like GEMM's output store overlaps the
    next tile's main loop (`overlapped`, the default: a persistent kernel
    that waits for a tile's TMA store only before the next tile's store, as
    CUTLASS's warp-specialized kernels and DeepGEMM since commit 340d988 do)
    or stalls the tensor cores until the store is out (`serial`: DeepGEMM's
    kernel before that commit, which the published DeepGEMM table measured;
    docs/cost-model-gpu.md, "Epilogue"). `serial` is written as the module
    attribute `npu.gpu_epilogue`.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target name (a file in npu-target/) or path to a target file">,
    Option<"gpuLaunch", "gpu-launch", "std::string", /*default=*/"\"auto\"",
           "GPU-like kernels launched from a CUDA graph ('graph'), one by "
           "one on a stream ('stream'), or 'auto' (graph for a decode "
           "step)">,
    Option<"gpuEpilogue", "gpu-epilogue", "std::string",
           /*default=*/"\"overlapped\"",
           "GPU-like GEMM epilogues overlapped with the next tile "
           "('overlapped') or stalling the main loop ('serial')">,
  ];
}

def NpuDecideFusion : Pass<"npu-decide-fusion", "ModuleOp"> {
  let summary = "Decide fusion groups, guided by the target's cost model";
  let description = [{
    Writes `npu.fusion = #npu.fusion<group, kind, saved_bytes>` on every op
    that does work (views such as reshape, slice and KV-cache reads, and
    `npu.weight`, stay outside kernels). Candidate groups, in this order:

    * **mla_absorbed**: `q_nope x W_UK` -> reshapes/transposes/concat ->
      latent `npu.attention` -> transposes/reshapes -> `o_lat x W_UV` (MLA
      decode in absorbed form);
    * **attention**: any other `npu.attention` (flash-style: QK^T, mask,
      online softmax and PV in one kernel);
    * **gated_mlp**: gate and up matmuls of one input, `npu.swiglu`, the down
      matmul, with the normalization feeding them and a residual add after;
    * **moe_ffn**: `npu.moe_experts` (routed and shared experts);
    * **gemm**: matmuls with the normalization feeding them (all matmul
      consumers of one normalized input are one GEMM: the QKV projections)
      and a single-use elementwise epilogue (add, mul, silu, gelu, convert);
    * **stream**: chains of single-use row-wise ops (norms, softmax, rope,
      elementwise, router); **copy**: data movement (transpose, concat,
      broadcast, embedding, KV-cache append).

    A candidate with more than one op is kept only if the target's cost model
    finds a tile of it that fits on chip and prices it no slower than its
    parts run as separate kernels; otherwise its ops become separate
    kernels. `saved_bytes` is the HBM traffic the group saves: each
    intermediate written once and read once by each consumer.

    Needs `npu.target` on the module (`npu-set-target`). Ops that already
    carry `npu.fusion` keep it (hand-written decisions win).

    `fusion=none` forms no groups: every op that does work is a kernel of
    its own kind (attention stays one flash-style kernel, since it is one
    op), which prices what cross-op fusion is worth. `fusion=cost` (the
    default) is the decision above.
  }];
  let options = [
    Option<"fusion", "fusion", "std::string", /*default=*/"\"cost\"",
           "'cost': groups kept when the cost model prices them no slower "
           "than their parts; 'none': every op its own kernel">,
  ];
}

def NpuFormKernels : Pass<"npu-form-kernels", "ModuleOp"> {
  let summary = "Apply fusion decisions: wrap each group in an npu.kernel";
  let description = [{
    Reads `npu.fusion` and replaces the ops of each group with one
    `npu.kernel` of the decided kind: values the group uses from outside
    become its inputs, values used outside its results. A group must be
    convex (no op outside it uses a result of the group and feeds the group
    again); otherwise the pass fails at the offending op. Ops that do work
    but carry no decision become single-op kernels of their default kind.
  }];
}

def NpuDecideTiles : Pass<"npu-decide-tiles", "ModuleOp"> {
  let summary = "Choose each kernel's tile sizes from the target";
  let description = [{
    For each `npu.kernel` without an `npu.tiling`, searches tile sizes
    (powers of two from the hardware granule up to the loop size: the
    matrix unit's side for K and N, 8 sublanes for M) and writes the one with
    the smallest modelled time, breaking near-ties (0.5%) by the least HBM
    traffic, then the least SRAM: `#npu.tiling<loops, tile, buffers,
    sram_bytes>`, with two buffers per streamed operand (double buffering)
    or one (each load waited in place). The working set includes the
    buffers, the f32 accumulator and scratch
    (docs/cost-model-tpu.md). Fails at the kernel if no tile fits the SRAM of
    one core. Needs `npu.target`; on a GPU-like target the tile is a thread
    block tile of the GPU model.
  }];
}

def NpuVerifyTiles : Pass<"npu-verify-tiles", "ModuleOp"> {
  let summary = "Check the tiling contract: every kernel's tile fits on chip";
  let description = [{
    The contract after tiling: every `npu.kernel` has an `npu.tiling` whose
    loops are the kernel's, whose tile sizes are in [1, loop], and whose
    working set (recomputed here, not trusted) fits in one core's SRAM and
    is what `sram_bytes` says. Fails loudly at the first kernel that breaks
    it, e.g. a hand-written tile that is too large.
  }];
}

def NpuEstimateCost : Pass<"npu-estimate-cost", "ModuleOp"> {
  let summary = "Price every kernel's plan with the module's target cost model (#npu.cost)";
  let description = [{
    For each tiled `npu.kernel`, prices its plan (`npu.tiling`, and on a
    GPU-like target `npu.launch`) with the cost model of the module's target
    (`CostModel`, npu/Analysis/CostModel.h) and writes `npu.cost =
    #npu.cost<...>` on the kernel.

    TPU-like targets (docs/cost-model-tpu.md): the compiler decides, so the
    price is the static schedule of the tile loops in closed form: per grid
    step, DMA in, compute on the matrix/vector/transcendental units with
    padding to the matrix unit, DMA out, double-buffered; steps split over
    the TensorCores; DMA setup and grid-step overheads. The cost of a loop
    nest comes from trip counts, never from walking tiles.

    GPU-like targets (docs/cost-model-gpu.md): the hardware decides, so the
    price models it: occupancy from the block's threads, registers and shared
    memory; dynamic dispatch of the grid in waves over the SMs, with the tail
    wave's blocks sharing the chip among fewer; the L2 cache, simulated
    (set-associative LRU, sampled sets, at most three waves simulated and the
    rest extrapolated) on the order in which concurrently running blocks
    touch their tiles; and the launch overhead. Also writes `npu.grid` (one
    `#npu.grid` per launch); `npu.cost` has `l2_hit_rate` and `waves`, and
    its `onchip_bytes` is the L2 traffic.
  }];
  let options = [
    Option<"targetKind", "target-kind", "std::string", /*default=*/"\"\"",
           "Require a target of this kind: 'tpu' or 'gpu' (empty: either; "
           "the backend pipelines set it)">,
  ];
}

def NpuScheduleKernels : Pass<"npu-schedule-kernels", "ModuleOp"> {
  let summary = "Build the static timeline: start and end time of every kernel";
  let description = [{
    The timeline of kernels on the chip, for both kinds of target (a TPU runs
    its kernels back to back in a static order; a GPU stream launches them
    back to back). Builds a scheduling problem per function (npu/Scheduling: the chip's
    cores as one resource, each kernel an operation with its modelled time,
    SSA uses as dependences, a `func.call` taking the callee's makespan),
    solves it with the list scheduler, checks it with `verify()`, and writes
    `npu.slot = #npu.slot<start_ns, end_ns>` on each kernel and call, and
    the function's total (`npu.cost`, times summed over its kernels and
    calls) on the function. Functions are scheduled callees first.
  }];
}

def NpuReportCost : Pass<"npu-report-cost", "ModuleOp"> {
  let summary = "Print the modelled cost per kernel and in total; write a trace";
  let description = [{
    Prints, per function, each kernel's kind, tile, modelled time and its
    parts (compute, memory, overhead), bound, HBM bytes, SRAM bytes, FLOPs
    and matrix-unit utilization, then the totals; `format=json` prints the
    same numbers (schema `npu-cost/1`, docs/cost-model-tpu.md). With
    `trace=<file>`, writes the timeline as a Chrome trace (open it in
    Perfetto): one track per function, `@model`'s calls expanded into their
    kernels. The IR is left unchanged.
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "Output format: 'text' (a table) or 'json'">,
    Option<"trace", "trace", "std::string", /*default=*/"\"\"",
           "If set, write a Chrome trace (JSON) of the timeline to this file">,
  ];
}

// The TPU-like memory-level passes (bufferized IR, after npu-tile-kernels).
include "npu/Dialect/Npu/Transforms/TpuMemoryPasses.td"

#endif // NPU_DIALECT_NPU_TRANSFORMS_PASSES_TD
