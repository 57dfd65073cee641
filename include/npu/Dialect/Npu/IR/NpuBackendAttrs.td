//===- NpuBackendAttrs.td - decisions and costs of the backends -*- tablegen -*-===//
//
// The typed attributes the backend passes write and read (STYLE.md: decide,
// then apply): a fusion decision on graph ops, a tiling decision on kernels,
// the modelled cost of a kernel, and its slot in the static timeline. Each can
// be written by hand in a test, so every applying pass is testable alone.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUBACKENDATTRS_TD
#define NPU_DIALECT_NPU_IR_NPUBACKENDATTRS_TD

include "npu/Dialect/Npu/IR/NpuBase.td"
include "npu/Dialect/Npu/IR/NpuTargetAttrs.td"
include "mlir/IR/EnumAttr.td"

def Npu_KernelKind : I32EnumAttr<"KernelKind",
    "what a kernel computes, which decides its loop nest and cost model", [
      I32EnumAttrCase<"Gemm", 0, "gemm">,
      I32EnumAttrCase<"GatedMlp", 1, "gated_mlp">,
      I32EnumAttrCase<"Attention", 2, "attention">,
      I32EnumAttrCase<"MlaAbsorbed", 3, "mla_absorbed">,
      I32EnumAttrCase<"MoeFfn", 4, "moe_ffn">,
      I32EnumAttrCase<"Stream", 5, "stream">,
      I32EnumAttrCase<"Copy", 6, "copy">]> {
  let cppNamespace = "::mlir::npu";
  let genSpecializedAttr = 0;
}
def Npu_KernelKindAttr : EnumAttr<Npu_Dialect, Npu_KernelKind, "kernel_kind">;

def Npu_CostBound : I32EnumAttr<"CostBound",
    "the part of a modelled time that dominates it", [
      I32EnumAttrCase<"Compute", 0, "compute">,
      I32EnumAttrCase<"Memory", 1, "memory">,
      I32EnumAttrCase<"Overhead", 2, "overhead">]> {
  let cppNamespace = "::mlir::npu";
  let genSpecializedAttr = 0;
}

/// A list of integers printed and parsed as `[1, 2, 3]`.
class Npu_I64ListParameter<string desc> : ArrayRefParameter<"int64_t", desc> {
  let parser = [{ [&]() -> ::mlir::FailureOr<::llvm::SmallVector<int64_t>> {
    ::llvm::SmallVector<int64_t> values;
    if ($_parser.parseCommaSeparatedList(::mlir::AsmParser::Delimiter::Square,
            [&]() { return $_parser.parseInteger(values.emplace_back()); }))
      return ::mlir::failure();
    return values;
  }() }];
  let printer = [{ $_printer << '[';
    ::llvm::interleaveComma($_self, $_printer);
    $_printer << ']' }];
}

/// An optional list (omitted when empty).
class Npu_OptionalI64ListParameter<string desc> : Npu_I64ListParameter<desc> {
  let defaultValue = "::llvm::SmallVector<int64_t>()";
  let comparator = "::llvm::ArrayRef<int64_t>($_lhs) == ::llvm::ArrayRef<int64_t>($_rhs)";
}

def Npu_FusionAttr : AttrDef<Npu_Dialect, "Fusion"> {
  let mnemonic = "fusion";
  let summary = "fusion decision: the kernel an op belongs to";
  let description = [{
    Written on graph ops by `npu-decide-fusion` (or by hand) as the `npu.fusion`
    attribute, read by `npu-form-kernels`: ops with the same `group` in one
    function become one `npu.kernel` of kind `kind`, whose intermediates never
    leave on-chip memory. `saved_bytes` is the HBM traffic the fusion saves
    (every intermediate written once and read once by each consumer), for
    the reader; the applying pass does not need it.

    ```mlir
    %y = npu.matmul %x, %w transpose_rhs {npu.fusion = #npu.fusion<group = 0, kind = gemm, saved_bytes = 0>} : ...
    ```
  }];
  let parameters = (ins "int64_t":$group, EnumParameter<Npu_KernelKind>:$kind,
                        "int64_t":$saved_bytes);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Npu_TilingAttr : AttrDef<Npu_Dialect, "Tiling"> {
  let mnemonic = "tiling";
  let summary = "tiling decision of a kernel: its loop nest and tile sizes";
  let description = [{
    Written on `npu.kernel` by `npu-decide-tiles` (or by hand), read by the
    cost model and the tile-applying passes. `loops` are the kernel's
    iteration sizes and `tile` the tile size per loop, in the order its kind
    defines (docs/cost-model-tpu.md); C++ reads and writes them through the
    named loops of `npu/Dialect/Npu/IR/KernelNest.h`:

    | kind | loops |
    |---|---|
    | `gemm` | batch, M, N, K |
    | `gated_mlp`, `moe_ffn` | M (tokens per expert), F (FFN width), D (model width) |
    | `attention`, `mla_absorbed` | batch x KV heads, query length (a block holds the query heads of its KV head), KV length, head dim, query length again: the sub-tile loop (a block stays on chip while each K/V tile streams past it in sub-tiles; sub-tile = block: none), KV length again: the K/V a head holds on chip (the K/V tile: streamed past each block; KV length with a smaller K/V tile: resident, loaded once per head and read by all its blocks; a multiple of the K/V tile in between: the head's first keys resident, the rest streamed) |
    | `stream`, `copy` | rows, columns |

    `buffers` is the number of SRAM buffers per streamed operand (2: double
    buffering); `sram_bytes` the kernel's working set on chip with those
    buffers, which `npu-verify-tiles` checks against the target's SRAM.
    `chunks` (gemm only; 1 when omitted) splits each K step's loads of the
    A and B tiles into that many DMAs along K, and the step's matmul into
    as many K chunks, each waiting only for its own chunk: the first step
    computes on its first chunk while the rest arrive; with one K step, the
    last K chunk is computed in `chunks` row bands, each stored as soon as
    it is done (docs/memory-tpu.md).

    `shared_tile` (moe_ffn with a shared expert, TPU-like targets; omitted:
    the main tile) is the shared expert's own tile `[tm, tf, D]`: it runs
    over all tokens, not an expert's share of them, so its best M tile is
    another than the routed experts'.

    `table_per_tile` (stream kernels with a rotary embedding, TPU-like
    targets; 0 when omitted) says where the cos/sin table of the positions
    lives: 0, computed once before the tile loop and held whole in SRAM for
    all the tiles; 1, computed in each tile for the tile's positions (as
    XLA fuses the sin/cos into the rotation), so that a table larger than
    SRAM (1M positions: 256 MiB of f32 cos and sin) costs a tile's share of
    it; the tile search takes the faster that fits.

    ```mlir
    #npu.tiling<loops = [1, 4096, 4096, 4096], tile = [1, 1024, 1024, 512], buffers = 2, sram_bytes = 12582912>
    ```
  }];
  let parameters = (ins Npu_I64ListParameter<"iteration sizes">:$loops,
                        Npu_I64ListParameter<"tile sizes">:$tile,
                        "int64_t":$buffers, "int64_t":$sram_bytes,
                        DefaultValuedParameter<"int64_t", "1">:$chunks,
                        Npu_OptionalI64ListParameter<"shared expert's tile">:$shared_tile,
                        DefaultValuedParameter<"int64_t", "0">:$table_per_tile);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Npu_CostAttr : AttrDef<Npu_Dialect, "Cost"> {
  let mnemonic = "cost";
  let summary = "modelled cost of a kernel or op on a target";
  let description = [{
    Written by the cost pass (`npu-estimate-cost`, either kind of target)
    on every `npu.kernel`, and by `npu-schedule-kernels` as the total on
    each function. The
    same attribute on both kinds of target, so that `npu-compare` reads them
    alike.

    | parameter | unit | meaning |
    |---|---|---|
    | `time_ns` | ns | modelled time of the kernel |
    | `compute_ns` | ns | time the compute units alone would need (padded FLOPs at the sustained rate) |
    | `memory_ns` | ns | time the HBM traffic alone would need at the sustained bandwidth |
    | `overhead_ns` | ns | fixed costs: DMA setup, grid steps, pipeline fill and drain, launches |
    | `hbm_read_bytes`, `hbm_write_bytes` | bytes | modelled HBM traffic |
    | `onchip_bytes` | bytes | SRAM working set (TPU) or L2 traffic (GPU) |
    | `flops` | FLOP | useful FLOPs (the work interface's, all kinds) |
    | `padded_flops` | FLOP | matrix FLOPs the matrix unit executes, padding included |
    | `bound` | | `compute`, `memory` or `overhead`: the largest of the three parts |
    | `matrix_utilization` | | useful matrix FLOPs / (time x peak matrix rate) |
    | `l2_hit_rate` | | GPU-like only: modelled L2 hit rate (absent on TPU-like) |
    | `waves` | | GPU-like only: waves of blocks over the SMs (absent on TPU-like) |
    | `cross_core_bytes` | bytes | TPU-like only, when a reduction is split over the cores: the f32 partial sums the cores but one write and one reads back, included in `hbm_read_bytes` and `hbm_write_bytes` (absent otherwise). The lowered memory program is one core's and does not move them: `npu-tpu-check-plan` takes them out of the claim |

    `time_ns` is at least max(compute_ns, memory_ns): the parts overlap
    (double buffering), and `time_ns - max(compute_ns, memory_ns)` is what
    the overlap did not hide.
  }];
  let parameters = (ins
      Npu_DoubleParameter<"ns">:$time_ns,
      Npu_DoubleParameter<"ns">:$compute_ns,
      Npu_DoubleParameter<"ns">:$memory_ns,
      Npu_DoubleParameter<"ns">:$overhead_ns,
      "int64_t":$hbm_read_bytes,
      "int64_t":$hbm_write_bytes,
      "int64_t":$onchip_bytes,
      "int64_t":$flops,
      "int64_t":$padded_flops,
      EnumParameter<Npu_CostBound>:$bound,
      Npu_DoubleParameter<"fraction">:$matrix_utilization,
      Npu_OptionalDoubleParameter<"fraction">:$l2_hit_rate,
      Npu_OptionalDoubleParameter<"waves">:$waves,
      OptionalParameter<"std::optional<int64_t>", "bytes">:$cross_core_bytes);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Npu_SlotAttr : AttrDef<Npu_Dialect, "Slot"> {
  let mnemonic = "slot";
  let summary = "a kernel's place in the static timeline";
  let description = [{
    Written by `npu-schedule-kernels` as the `npu.slot` attribute of each
    kernel and call: when it starts and ends, in ns from the start of its
    function.

    ```mlir
    #npu.slot<start_ns = 0.0, end_ns = 1250.5>
    ```
  }];
  let parameters = (ins Npu_DoubleParameter<"ns">:$start_ns,
                        Npu_DoubleParameter<"ns">:$end_ns);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Npu_LaunchAttr : AttrDef<Npu_Dialect, "Launch"> {
  let mnemonic = "launch";
  let summary = "how a launch is arranged on a GPU-like target";
  let description = [{
    Written by `npu-decide-tiles` on a GPU-like target (or by hand) in the
    `npu.launch` array of a kernel, one element per launch (gemm,
    attention, mla_absorbed: one; gated_mlp and moe_ffn: two, gate+up then
    down); read by `npu-estimate-cost`. Without it a launch is CUDA's
    default: no cluster, row-major block order, no split.

    | parameter | meaning |
    |---|---|
    | `cluster_m`, `cluster_n` | a thread-block cluster of `cluster_m x cluster_n` output tiles; with TMA multicast one L2 read of an A tile feeds the `cluster_n` blocks of its row, one of a B tile the `cluster_m` blocks of its column |
    | `raster_group` | launch order: groups of `raster_group` rows of clusters, walked column by column inside a group (grouped or "swizzled" rasterization); 1 is row-major |
    | `kv_splits` | attention only (default 1, elided): each block's KV range is split over `kv_splits` blocks; the last to finish combines their partial outputs (split-KV, "flash-decoding") |

    Verified here: all >= 1, the cluster sides powers of two. Checked by the
    cost pass against the kernel and target: clusters and raster groups
    arrange GEMM launches, `kv_splits` attention ones (at most the KV tiles
    a block visits); `cluster_m x cluster_n <=
    gpu.max_cluster_blocks`, and whole clusters fit the chip's block slots.
    CUDA launches whole clusters, so a grid whose tile counts the cluster
    sides do not divide is padded with empty blocks (as CUTLASS does).
    docs/cost-model-gpu.md gives the rules the compiler picks them by.

    ```mlir
    npu.kernel gemm ... {npu.launch = [#npu.launch<cluster_m = 2, cluster_n = 1, raster_group = 8>]}
    ```
  }];
  let parameters = (ins "int64_t":$cluster_m, "int64_t":$cluster_n,
                        "int64_t":$raster_group,
                        DefaultValuedParameter<"int64_t", "1">:$kv_splits);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Npu_GridAttr : AttrDef<Npu_Dialect, "Grid"> {
  let mnemonic = "grid";
  let summary = "one launch of a GPU-like kernel: grid, occupancy and waves";
  let description = [{
    Written by `npu-estimate-cost` (GPU-like targets) in the `npu.grid` array of each
    kernel, one element per launch in order (a gated MLP or MoE FFN runs as
    two GEMM launches). It records what the hardware will do with the
    compiler's block tile (docs/cost-model-gpu.md): the grid, the occupancy,
    and the waves the block scheduler forms. `npu-report-cost`'s trace draws
    one event per wave from it.

    | parameter | meaning |
    |---|---|
    | `blocks` | thread blocks of the grid |
    | `threads` | threads per block |
    | `blocks_per_sm` | occupancy (CUDA's rules) |
    | `full_waves` | floor(blocks / (sm_count x blocks_per_sm)) |
    | `wave_ns` | time of one full wave |
    | `tail_blocks` | blocks mod (sm_count x blocks_per_sm): the last, partial wave |
    | `tail_ns` | time of the tail (0 without one) |
    | `fill_ns` | DRAM latency exposed once per launch: before the first tiles arrive (0 when every wave pays it in `wave_ns`: one block per SM), plus, with split KV, the combining block's read-back of the partials |

    The kernel's `npu.cost` time is the launch overhead plus, over its
    grids, `fill_ns + full_waves x wave_ns + tail_ns`. A grouped launch (the
    experts of MoE) is one grid of every group's blocks.

    ```mlir
    #npu.grid<blocks = 4, threads = 128, blocks_per_sm = 2, full_waves = 0,
              wave_ns = 0.0, tail_blocks = 4, tail_ns = 1024.0, fill_ns = 0.0>
    ```
  }];
  let parameters = (ins "int64_t":$blocks, "int64_t":$threads,
                        "int64_t":$blocks_per_sm, "int64_t":$full_waves,
                        Npu_DoubleParameter<"ns">:$wave_ns,
                        "int64_t":$tail_blocks,
                        Npu_DoubleParameter<"ns">:$tail_ns,
                        Npu_DoubleParameter<"ns">:$fill_ns);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Time of the grid's blocks, launch excluded:
    /// fill_ns + full_waves x wave_ns + tail_ns.
    double getBodyNs() const {
      return getFillNs().convertToDouble() +
             double(getFullWaves()) * getWaveNs().convertToDouble() +
             getTailNs().convertToDouble();
    }
  }];
}

#endif // NPU_DIALECT_NPU_IR_NPUBACKENDATTRS_TD
