//===- NpuTargetAttrs.td - hardware target attributes ----------*- tablegen -*-===//
//
// A hardware target as a typed, verified attribute: `#npu.target<...>` holds
// what every chip has (clock, peak rates per dtype, HBM, links) and exactly one
// kind-specific part, `tpu = <...>` (compiler-managed SRAM, DMA, static
// schedule) or `gpu = <...>` (SMs, caches, block scheduler).
//
// The numbers live in npu-target/<name>.json (one file per chip, every number
// with its source); lib/npu/Target parses a file into these attributes. Every
// parameter name carries its unit and is spelled exactly as the JSON field.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUTARGETATTRS_TD
#define NPU_DIALECT_NPU_IR_NPUTARGETATTRS_TD

include "npu/Dialect/Npu/IR/NpuBase.td"
include "mlir/IR/EnumAttr.td"

def Npu_TargetKind : I32EnumAttr<"TargetKind",
    "who decides: the compiler (TPU-like) or the hardware (GPU-like)", [
      I32EnumAttrCase<"Tpu", 0, "tpu">,
      I32EnumAttrCase<"Gpu", 1, "gpu">]> {
  let cppNamespace = "::mlir::npu";
  let genSpecializedAttr = 0;
}

def Npu_TargetDtype : I32EnumAttr<"TargetDtype",
    "element type class of a peak rate", [
      I32EnumAttrCase<"FP32", 0, "fp32">,
      I32EnumAttrCase<"BF16", 1, "bf16">,
      I32EnumAttrCase<"FP8", 2, "fp8">,
      I32EnumAttrCase<"FP4", 3, "fp4">]> {
  let cppNamespace = "::mlir::npu";
  let genSpecializedAttr = 0;
}

/// A real number (rate, time, clock), stored as an APFloat so that the
/// attribute can be hashed and compared bitwise (`.convertToDouble()` for a
/// double). Printed in the shortest form that parses back to the same double;
/// the parser accepts floating-point literals only (`1.0e9`, not `1000000000`).
class Npu_DoubleParameter<string desc>
    : AttrParameter<"::llvm::APFloat", desc> {
  let comparator = "$_lhs.bitwiseIsEqual($_rhs)";
  let parser = [{ [&]() -> ::mlir::FailureOr<::llvm::APFloat> {
    double value;
    if ($_parser.parseFloat(value))
      return ::mlir::failure();
    return ::llvm::APFloat(value);
  }() }];
  let printer = [{ $_printer << $_self }];
}

/// A real number that a chip may lack (a dtype without a peak rate);
/// `TargetAttr::getPeakFlopPerS(TargetDtype)` gives it as a double.
class Npu_OptionalDoubleParameter<string desc>
    : AttrParameter<"std::optional<::llvm::APFloat>", desc> {
  let defaultValue = "std::optional<::llvm::APFloat>()";
  let comparator = [{ ($_lhs.has_value() == $_rhs.has_value() &&
                       (!$_lhs.has_value() || $_lhs->bitwiseIsEqual(*$_rhs))) }];
  let parser = [{ [&]() -> ::mlir::FailureOr<std::optional<::llvm::APFloat>> {
    double value;
    if ($_parser.parseFloat(value))
      return ::mlir::failure();
    return std::optional<::llvm::APFloat>(::llvm::APFloat(value));
  }() }];
  let printer = [{ $_printer << *$_self }];
}

def Npu_TpuTargetAttr : AttrDef<Npu_Dialect, "TpuTarget"> {
  let mnemonic = "tpu_target";
  let summary = "the TPU-like part of a target: compiler-managed SRAM and DMA";
  let description = [{
    What a compiler that decides everything ahead of time needs to know about a
    TPU-like chip. Appears as the `tpu` parameter of `#npu.target`.

    | parameter | unit | meaning |
    |---|---|---|
    | `tensor_core_count` | cores | TensorCores per chip (each with its own VMEM) |
    | `matrix_unit_count_per_core` | units | matrix units (MXUs) per TensorCore |
    | `matrix_unit_dim_elements` | elements | systolic array side: operands are padded to a multiple of it |
    | `vmem_bytes_per_core` | bytes | compiler-managed SRAM (VMEM) per TensorCore |
    | `dma_engines_per_core` | engines | DMA engines that can move data concurrently, per core |
    | `dma_setup_latency_ns` | ns | fixed cost of one DMA transfer before its first byte |
    | `row_dmas_in_flight_per_core` | DMAs | small copies (one gathered row each) a core keeps outstanding at once |
    | `grid_step_overhead_ns` | ns | fixed cost of one step of a kernel's grid loop |
    | `sublanes` | rows | rows of a vector register: the M of a matrix pass is padded to it |

    Verified: every count and size is positive; latencies and overheads are
    finite and non-negative.

    ```mlir
    #npu.tpu_target<tensor_core_count = 1, matrix_unit_count_per_core = 4,
        matrix_unit_dim_elements = 128, vmem_bytes_per_core = 134217728,
        dma_engines_per_core = 4, dma_setup_latency_ns = 500.0,
        row_dmas_in_flight_per_core = 32, grid_step_overhead_ns = 350.0, sublanes = 8>
    ```
  }];
  let parameters = (ins
      "int64_t":$tensor_core_count,
      "int64_t":$matrix_unit_count_per_core,
      "int64_t":$matrix_unit_dim_elements,
      "int64_t":$vmem_bytes_per_core,
      "int64_t":$dma_engines_per_core,
      Npu_DoubleParameter<"ns">:$dma_setup_latency_ns,
      "int64_t":$row_dmas_in_flight_per_core,
      Npu_DoubleParameter<"ns">:$grid_step_overhead_ns,
      "int64_t":$sublanes);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// VMEM of the whole chip: vmem_bytes_per_core * tensor_core_count.
    int64_t getVmemBytes() const;
    /// Matrix units of the whole chip.
    int64_t getMatrixUnitCount() const;
  }];
}

def Npu_GpuTargetAttr : AttrDef<Npu_Dialect, "GpuTarget"> {
  let mnemonic = "gpu_target";
  let summary = "the GPU-like part of a target: SMs, caches and limits";
  let description = [{
    What a cost model of a GPU-like chip (hardware block scheduler, caches)
    needs. Appears as the `gpu` parameter of `#npu.target`.

    | parameter | unit | meaning |
    |---|---|---|
    | `sm_count` | SMs | streaming multiprocessors |
    | `l1_shared_bytes_per_sm` | bytes | unified L1 + shared memory SRAM per SM |
    | `shared_memory_bytes_per_sm` | bytes | largest shared-memory carve-out per SM |
    | `shared_memory_bytes_per_block` | bytes | largest shared memory one block may use |
    | `register_bytes_per_sm` | bytes | register file per SM |
    | `warp_size_threads` | threads | threads per warp |
    | `max_threads_per_sm` | threads | resident threads per SM |
    | `max_threads_per_block` | threads | threads per block |
    | `max_blocks_per_sm` | blocks | resident blocks per SM |
    | `l2_bytes` | bytes | L2 capacity |
    | `l2_line_bytes` | bytes | L2 line (allocation unit) |
    | `l2_associativity_ways` | ways | L2 ways per set |
    | `l2_bandwidth_bytes_per_s` | bytes/s | L2 read bandwidth of the chip |
    | `launch_overhead_ns` | ns | fixed cost of one kernel launch on a stream |
    | `graph_launch_overhead_ns` | ns | the same for a kernel replayed from a CUDA graph |
    | `max_cluster_blocks` | blocks | largest thread-block cluster (1: none) |
    | `dram_latency_ns` | ns | unloaded latency of a load from HBM |
    | `max_registers_per_thread` | registers | most 32-bit registers one thread may use |
    | `register_allocation_unit` | registers | a warp's registers are allocated in multiples of this |
    | `register_sub_partitions` | | SM sub-partitions (warp schedulers) the register file is split over |
    | `shared_memory_allocation_unit_bytes` | bytes | a block's shared memory is allocated in multiples of this |
    | `shared_memory_reserved_per_block_bytes` | bytes | shared memory the system reserves per resident block |
    | `shared_memory_bytes_per_clock` | bytes | shared memory one SM serves per clock (banks x bank width) |

    Verified: every count, size and rate is positive (the overheads and the
    latency may be 0); `max_cluster_blocks` is a power of two;
    `l2_line_bytes` is a power of two; `l2_bytes` is a whole number of lines,
    and of sets (`l2_line_bytes * l2_associativity_ways`);
    `shared_memory_bytes_per_block <= shared_memory_bytes_per_sm <=
    l1_shared_bytes_per_sm`; `max_threads_per_block <= max_threads_per_sm`,
    both multiples of `warp_size_threads`; the allocation units and
    sub-partitions are positive, the sub-partitions divide the registers per
    SM, and one block's largest shared memory plus the reserved bytes fit in
    `shared_memory_bytes_per_sm`.

    ```mlir
    #npu.gpu_target<sm_count = 4, l1_shared_bytes_per_sm = 65536, ...>
    ```
  }];
  let parameters = (ins
      "int64_t":$sm_count,
      "int64_t":$l1_shared_bytes_per_sm,
      "int64_t":$shared_memory_bytes_per_sm,
      "int64_t":$shared_memory_bytes_per_block,
      "int64_t":$register_bytes_per_sm,
      "int64_t":$warp_size_threads,
      "int64_t":$max_threads_per_sm,
      "int64_t":$max_threads_per_block,
      "int64_t":$max_blocks_per_sm,
      "int64_t":$l2_bytes,
      "int64_t":$l2_line_bytes,
      "int64_t":$l2_associativity_ways,
      Npu_DoubleParameter<"bytes/s">:$l2_bandwidth_bytes_per_s,
      Npu_DoubleParameter<"ns">:$launch_overhead_ns,
      Npu_DoubleParameter<"ns">:$graph_launch_overhead_ns,
      "int64_t":$max_cluster_blocks,
      Npu_DoubleParameter<"ns">:$dram_latency_ns,
      "int64_t":$max_registers_per_thread,
      "int64_t":$register_allocation_unit,
      "int64_t":$register_sub_partitions,
      "int64_t":$shared_memory_allocation_unit_bytes,
      "int64_t":$shared_memory_reserved_per_block_bytes,
      "int64_t":$shared_memory_bytes_per_clock);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// L1/shared SRAM of all SMs plus L2.
    int64_t getOnChipSramBytes() const;
    /// Number of L2 sets: l2_bytes / (l2_line_bytes * l2_associativity_ways).
    int64_t getL2SetCount() const;
  }];
}

def Npu_TargetAttr : AttrDef<Npu_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "a hardware target: one chip, TPU-like or GPU-like";
  let description = [{
    One chip, as loaded from `npu-target/<name>.json`. The common parameters
    are what every chip has; exactly one of `tpu` and `gpu` is present and
    decides the kind (who makes the decisions: the compiler or the hardware).

    | parameter | unit | meaning |
    |---|---|---|
    | `name` | | the target's name (its file name without `.json`) |
    | `clock_hz` | Hz | core clock at which the peak rates are quoted |
    | `matrix_clock_hz` | Hz | clock the matrix units sustain on long dense work (under the power limit): the cost models scale every matrix peak by `matrix_clock_hz / clock_hz`; the roofline does not |
    | `peak_fp32_flop_per_s` | FLOP/s | dense matmul rate with fp32 operands, fp32-accurate |
    | `peak_bf16_flop_per_s` | FLOP/s | dense matmul rate with bf16 (and fp16) operands |
    | `peak_fp8_flop_per_s` | FLOP/s | dense matmul rate with fp8 operands; absent if the chip has none |
    | `peak_fp4_flop_per_s` | FLOP/s | dense matmul rate with fp4 (e2m1, block-scaled) operands; absent if the chip has none |
    | `vector_flop_per_s` | FLOP/s | fp32 elementwise rate of the vector unit / CUDA cores (FMA = 2) |
    | `transcendental_per_s` | 1/s | exp evaluations per second (EUP / SFU) |
    | `hbm_bytes` | bytes | HBM capacity |
    | `hbm_bandwidth_bytes_per_s` | bytes/s | HBM bandwidth |
    | `sustained_hbm_bandwidth_bytes_per_s` | bytes/s | HBM bandwidth a streaming kernel sustains: the cost models use it; the roofline uses the peak |
    | `link_bandwidth_bytes_per_s` | bytes/s | chip-to-chip links, all links, both directions (0: none) |
    | `tpu` / `gpu` | | the kind-specific part |

    Verified: rates, clock and capacity positive and finite; the peak rates do
    not decrease with precision (`fp32 <= bf16 <= fp8 <= fp4`: a typo such as a rate
    in TFLOP/s instead of FLOP/s breaks this); `vector_flop_per_s <=
    peak_fp32_flop_per_s` (a matmul can always run on the vector unit);
    on-chip SRAM smaller than HBM; the sustained matrix clock and HBM
    bandwidth positive and not above the quoted ones; exactly one of `tpu`,
    `gpu`.

    ```mlir
    #npu.target<name = "mock-tpu", clock_hz = 1.0e9, matrix_clock_hz = 1.0e9,
        peak_fp32_flop_per_s = 1.0e12, peak_bf16_flop_per_s = 4.0e12,
        vector_flop_per_s = 5.0e11, transcendental_per_s = 1.0e11,
        hbm_bytes = 1073741824, hbm_bandwidth_bytes_per_s = 1.0e11,
        sustained_hbm_bandwidth_bytes_per_s = 1.0e11,
        link_bandwidth_bytes_per_s = 0.0,
        tpu = <tensor_core_count = 1, ...>>
    ```
  }];
  let parameters = (ins
      StringRefParameter<"target name">:$name,
      Npu_DoubleParameter<"Hz">:$clock_hz,
      Npu_DoubleParameter<"Hz">:$matrix_clock_hz,
      Npu_DoubleParameter<"FLOP/s">:$peak_fp32_flop_per_s,
      Npu_DoubleParameter<"FLOP/s">:$peak_bf16_flop_per_s,
      Npu_OptionalDoubleParameter<"FLOP/s">:$peak_fp8_flop_per_s,
      Npu_OptionalDoubleParameter<"FLOP/s">:$peak_fp4_flop_per_s,
      Npu_DoubleParameter<"FLOP/s">:$vector_flop_per_s,
      Npu_DoubleParameter<"1/s">:$transcendental_per_s,
      "int64_t":$hbm_bytes,
      Npu_DoubleParameter<"bytes/s">:$hbm_bandwidth_bytes_per_s,
      Npu_DoubleParameter<"bytes/s">:$sustained_hbm_bandwidth_bytes_per_s,
      Npu_DoubleParameter<"bytes/s">:$link_bandwidth_bytes_per_s,
      OptionalParameter<"::mlir::npu::TpuTargetAttr">:$tpu,
      OptionalParameter<"::mlir::npu::GpuTargetAttr">:$gpu);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// TPU-like (compiler decides) or GPU-like (hardware decides).
    TargetKind getKind() const;
    /// Peak dense matmul FLOP/s for `dtype`; nullopt if the chip lacks it.
    std::optional<double> getPeakFlopPerS(TargetDtype dtype) const;
    /// Peak for an element type (getDtypeOf); nullopt for other types or
    /// an absent rate.
    std::optional<double> getPeakFlopPerS(::mlir::Type elementType) const;
    /// The rate class of an element type: f32 -> fp32, bf16 and f16 ->
    /// bf16, any 8-bit float -> fp8, fp4 e2m1fn -> fp4; nullopt for any
    /// other type.
    static std::optional<TargetDtype> getDtypeOf(::mlir::Type elementType);
    /// Roofline ridge point: peak FLOP/s / HBM bytes/s, in FLOP/byte.
    std::optional<double> getRidgePointFlopPerByte(TargetDtype dtype) const;
    /// Data SRAM on the chip: TPU: VMEM of all cores; GPU: L1/shared of all
    /// SMs plus L2. Registers are not counted on either kind.
    int64_t getOnChipSramBytes() const;
    /// Peak per compute unit (TensorCore or SM): peak / unit count.
    std::optional<double> getPeakFlopPerSPerUnit(TargetDtype dtype) const;
    /// TensorCores (TPU) or SMs (GPU).
    int64_t getComputeUnitCount() const;
  }];
}

#endif // NPU_DIALECT_NPU_IR_NPUTARGETATTRS_TD
