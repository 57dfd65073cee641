//===- TargetFields.cpp - the schema of a target file ---------------------===//
//
// The one list of target fields with their units, and the accessors that map
// a field to the attribute's getter.
//
//===----------------------------------------------------------------------===//

#include "npu/Target/Target.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::target;
using JValue = llvm::json::Value;

std::string TargetField::path() const {
  switch (section) {
  case FieldSection::Common:
    return name.str();
  case FieldSection::Tpu:
    return ("tpu." + name).str();
  case FieldSection::Gpu:
    return ("gpu." + name).str();
  }
  llvm_unreachable("unknown FieldSection");
}

ArrayRef<std::pair<StringLiteral, StringLiteral>> target::getSustainedFields() {
  static constexpr std::pair<StringLiteral, StringLiteral> kPairs[] = {
      {"matrix_clock_hz", "clock_hz"},
      {"sustained_hbm_bandwidth_bytes_per_s", "hbm_bandwidth_bytes_per_s"}};
  return kPairs;
}

std::optional<double> target::getMatrixMacsPerCellPerCycle(TargetAttr t) {
  TpuTargetAttr tpu = t.getTpu();
  if (!tpu)
    return std::nullopt;
  double width = double(tpu.getMatrixUnitDimElements());
  double perCycle = 2.0 * double(tpu.getMatrixUnitCount()) * width * width;
  return t.getPeakBf16FlopPerS().convertToDouble() /
         (perCycle * t.getClockHz().convertToDouble());
}

ArrayRef<TargetField> target::getTargetFields() {
  using S = FieldSection;
  using T = FieldType;
  static const TargetField fields[] = {
      // Common.
      {S::Common, "clock_hz", T::Real, "Hz",
       "core clock at which the peak rates are quoted"},
      {S::Common, "matrix_clock_hz", T::Real, "Hz",
       "clock the matrix units sustain on long dense work (power limit)"},
      {S::Common, "peak_fp32_flop_per_s", T::Real, "FLOP/s",
       "dense matmul, fp32 operands, fp32-accurate result"},
      {S::Common, "peak_bf16_flop_per_s", T::Real, "FLOP/s",
       "dense matmul, bf16 (or fp16) operands, fp32 accumulation"},
      {S::Common, "peak_fp8_flop_per_s", T::OptionalReal, "FLOP/s",
       "dense matmul, fp8 operands; absent if the chip has no fp8 path"},
      {S::Common, "peak_fp4_flop_per_s", T::OptionalReal, "FLOP/s",
       "dense matmul, fp4 (e2m1, block-scaled) operands; absent if the chip "
       "has no fp4 path"},
      {S::Common, "vector_flop_per_s", T::Real, "FLOP/s",
       "fp32 elementwise rate (TPU VPU / GPU CUDA cores), FMA counted as 2"},
      {S::Common, "transcendental_per_s", T::Real, "1/s",
       "exp evaluations per second (TPU EUP / GPU SFU)"},
      {S::Common, "hbm_bytes", T::Integer, "bytes", "HBM capacity"},
      {S::Common, "hbm_bandwidth_bytes_per_s", T::Real, "bytes/s",
       "HBM bandwidth"},
      {S::Common, "sustained_hbm_bandwidth_bytes_per_s", T::Real, "bytes/s",
       "HBM bandwidth a streaming kernel sustains (the cost models' figure)"},
      {S::Common, "link_bandwidth_bytes_per_s", T::Real, "bytes/s",
       "chip-to-chip links: all links, both directions; 0 if none"},
      // TPU-like.
      {S::Tpu, "tensor_core_count", T::Integer, "cores",
       "TensorCores per chip, each with its own VMEM"},
      {S::Tpu, "matrix_unit_count_per_core", T::Integer, "units",
       "matrix units (MXUs) per TensorCore"},
      {S::Tpu, "matrix_unit_dim_elements", T::Integer, "elements",
       "systolic array side; matmul operands are padded to a multiple"},
      {S::Tpu, "vmem_bytes_per_core", T::Integer, "bytes",
       "compiler-managed SRAM (VMEM) per TensorCore"},
      {S::Tpu, "dma_engines_per_core", T::Integer, "engines",
       "DMA transfers in flight at once, per TensorCore"},
      {S::Tpu, "dma_setup_latency_ns", T::Real, "ns",
       "fixed cost of one DMA before its first byte arrives"},
      {S::Tpu, "row_dmas_in_flight_per_core", T::Integer, "DMAs",
       "row copies (one gathered row each) outstanding at once, per core"},
      {S::Tpu, "sublanes", T::Integer, "rows",
       "vector register rows: a matrix pass's M is padded to them"},
      {S::Tpu, "grid_step_overhead_ns", T::Real, "ns",
       "fixed cost of one step of a kernel's grid loop"},
      // GPU-like.
      {S::Gpu, "sm_count", T::Integer, "SMs", "streaming multiprocessors"},
      {S::Gpu, "l1_shared_bytes_per_sm", T::Integer, "bytes",
       "unified L1 + shared memory SRAM per SM"},
      {S::Gpu, "shared_memory_bytes_per_sm", T::Integer, "bytes",
       "largest shared-memory carve-out per SM"},
      {S::Gpu, "shared_memory_bytes_per_block", T::Integer, "bytes",
       "largest shared memory of one block"},
      {S::Gpu, "register_bytes_per_sm", T::Integer, "bytes",
       "register file per SM"},
      {S::Gpu, "warp_size_threads", T::Integer, "threads", "threads per warp"},
      {S::Gpu, "max_threads_per_sm", T::Integer, "threads",
       "resident threads per SM"},
      {S::Gpu, "max_threads_per_block", T::Integer, "threads",
       "threads per block"},
      {S::Gpu, "max_blocks_per_sm", T::Integer, "blocks",
       "resident blocks per SM"},
      {S::Gpu, "l2_bytes", T::Integer, "bytes", "L2 capacity"},
      {S::Gpu, "l2_line_bytes", T::Integer, "bytes", "L2 line size"},
      {S::Gpu, "l2_associativity_ways", T::Integer, "ways", "L2 ways per set"},
      {S::Gpu, "l2_bandwidth_bytes_per_s", T::Real, "bytes/s",
       "L2 bandwidth of the chip"},
      {S::Gpu, "launch_overhead_ns", T::Real, "ns",
       "fixed cost of one kernel launch on a stream"},
      {S::Gpu, "graph_launch_overhead_ns", T::Real, "ns",
       "fixed cost of one kernel replayed from a CUDA graph"},
      {S::Gpu, "max_cluster_blocks", T::Integer, "blocks",
       "largest thread-block cluster (1: no clusters)"},
      {S::Gpu, "dram_latency_ns", T::Real, "ns",
       "unloaded latency of one load from HBM"},
      {S::Gpu, "max_registers_per_thread", T::Integer, "registers",
       "most 32-bit registers per thread"},
      {S::Gpu, "register_allocation_unit", T::Integer, "registers",
       "a warp's registers are allocated in multiples of this"},
      {S::Gpu, "register_sub_partitions", T::Integer, "",
       "SM sub-partitions the register file is split over"},
      {S::Gpu, "shared_memory_allocation_unit_bytes", T::Integer, "bytes",
       "a block's shared memory is allocated in multiples of this"},
      {S::Gpu, "shared_memory_reserved_per_block_bytes", T::Integer, "bytes",
       "shared memory reserved by the system per resident block"},
      {S::Gpu, "shared_memory_bytes_per_clock", T::Integer, "bytes",
       "shared memory one SM serves per clock (banks x bank width)"},
  };
  return fields;
}

namespace {
JValue real(const APFloat &v) { return v.convertToDouble(); }
JValue integer(int64_t v) { return v; }

std::optional<JValue> commonValue(TargetAttr t, StringRef name) {
  if (name == "clock_hz")
    return real(t.getClockHz());
  if (name == "peak_fp32_flop_per_s")
    return real(t.getPeakFp32FlopPerS());
  if (name == "peak_bf16_flop_per_s")
    return real(t.getPeakBf16FlopPerS());
  if (name == "peak_fp8_flop_per_s") {
    if (std::optional<APFloat> v = t.getPeakFp8FlopPerS())
      return real(*v);
    return std::nullopt;
  }
  if (name == "peak_fp4_flop_per_s") {
    if (std::optional<APFloat> v = t.getPeakFp4FlopPerS())
      return real(*v);
    return std::nullopt;
  }
  if (name == "vector_flop_per_s")
    return real(t.getVectorFlopPerS());
  if (name == "transcendental_per_s")
    return real(t.getTranscendentalPerS());
  if (name == "hbm_bytes")
    return integer(t.getHbmBytes());
  if (name == "hbm_bandwidth_bytes_per_s")
    return real(t.getHbmBandwidthBytesPerS());
  if (name == "sustained_hbm_bandwidth_bytes_per_s")
    return real(t.getSustainedHbmBandwidthBytesPerS());
  if (name == "matrix_clock_hz")
    return real(t.getMatrixClockHz());
  if (name == "link_bandwidth_bytes_per_s")
    return real(t.getLinkBandwidthBytesPerS());
  llvm_unreachable("unknown common field");
}

std::optional<JValue> tpuValue(TpuTargetAttr t, StringRef name) {
  if (name == "tensor_core_count")
    return integer(t.getTensorCoreCount());
  if (name == "matrix_unit_count_per_core")
    return integer(t.getMatrixUnitCountPerCore());
  if (name == "matrix_unit_dim_elements")
    return integer(t.getMatrixUnitDimElements());
  if (name == "vmem_bytes_per_core")
    return integer(t.getVmemBytesPerCore());
  if (name == "dma_engines_per_core")
    return integer(t.getDmaEnginesPerCore());
  if (name == "dma_setup_latency_ns")
    return real(t.getDmaSetupLatencyNs());
  if (name == "row_dmas_in_flight_per_core")
    return integer(t.getRowDmasInFlightPerCore());
  if (name == "grid_step_overhead_ns")
    return real(t.getGridStepOverheadNs());
  if (name == "sublanes")
    return integer(t.getSublanes());
  llvm_unreachable("unknown tpu field");
}

std::optional<JValue> gpuValue(GpuTargetAttr t, StringRef name) {
  if (name == "sm_count")
    return integer(t.getSmCount());
  if (name == "l1_shared_bytes_per_sm")
    return integer(t.getL1SharedBytesPerSm());
  if (name == "shared_memory_bytes_per_sm")
    return integer(t.getSharedMemoryBytesPerSm());
  if (name == "shared_memory_bytes_per_block")
    return integer(t.getSharedMemoryBytesPerBlock());
  if (name == "register_bytes_per_sm")
    return integer(t.getRegisterBytesPerSm());
  if (name == "warp_size_threads")
    return integer(t.getWarpSizeThreads());
  if (name == "max_threads_per_sm")
    return integer(t.getMaxThreadsPerSm());
  if (name == "max_threads_per_block")
    return integer(t.getMaxThreadsPerBlock());
  if (name == "max_blocks_per_sm")
    return integer(t.getMaxBlocksPerSm());
  if (name == "l2_bytes")
    return integer(t.getL2Bytes());
  if (name == "l2_line_bytes")
    return integer(t.getL2LineBytes());
  if (name == "l2_associativity_ways")
    return integer(t.getL2AssociativityWays());
  if (name == "l2_bandwidth_bytes_per_s")
    return real(t.getL2BandwidthBytesPerS());
  if (name == "launch_overhead_ns")
    return real(t.getLaunchOverheadNs());
  if (name == "graph_launch_overhead_ns")
    return real(t.getGraphLaunchOverheadNs());
  if (name == "max_cluster_blocks")
    return integer(t.getMaxClusterBlocks());
  if (name == "dram_latency_ns")
    return real(t.getDramLatencyNs());
  if (name == "max_registers_per_thread")
    return integer(t.getMaxRegistersPerThread());
  if (name == "register_allocation_unit")
    return integer(t.getRegisterAllocationUnit());
  if (name == "register_sub_partitions")
    return integer(t.getRegisterSubPartitions());
  if (name == "shared_memory_allocation_unit_bytes")
    return integer(t.getSharedMemoryAllocationUnitBytes());
  if (name == "shared_memory_reserved_per_block_bytes")
    return integer(t.getSharedMemoryReservedPerBlockBytes());
  if (name == "shared_memory_bytes_per_clock")
    return integer(t.getSharedMemoryBytesPerClock());
  llvm_unreachable("unknown gpu field");
}
} // namespace

std::optional<JValue> target::getFieldValue(TargetAttr target,
                                            const TargetField &field) {
  switch (field.section) {
  case FieldSection::Common:
    return commonValue(target, field.name);
  case FieldSection::Tpu:
    if (!target.getTpu())
      return std::nullopt;
    return tpuValue(target.getTpu(), field.name);
  case FieldSection::Gpu:
    if (!target.getGpu())
      return std::nullopt;
    return gpuValue(target.getGpu(), field.name);
  }
  llvm_unreachable("unknown FieldSection");
}

std::string target::formatReal(double value) {
  // Fewest significant digits that read back as the same double.
  char buf[64];
  int precision = 1;
  for (; precision < 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*e", precision - 1, value);
    if (std::strtod(buf, nullptr) == value)
      break;
  }
  // Plain notation for magnitudes in [1e-4, 1e6) ("2000", "0.35"), else
  // exponent notation ("9.894e+14").
  double magnitude = std::fabs(value);
  if (magnitude >= 1e-4 && magnitude < 1e6 && value != 0) {
    int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
    precision = std::max(precision, exponent + 1);
  }
  std::snprintf(buf, sizeof(buf), "%.*g", precision, value);
  return buf;
}

std::vector<DerivedQuantity> target::getDerivedQuantities(TargetAttr t) {
  std::vector<DerivedQuantity> rows;
  const TargetDtype dtypes[] = {TargetDtype::FP32, TargetDtype::BF16,
                                TargetDtype::FP8, TargetDtype::FP4};
  for (TargetDtype dtype : dtypes)
    if (std::optional<double> r = t.getRidgePointFlopPerByte(dtype))
      rows.push_back(
          {("ridge_point_" + stringifyTargetDtype(dtype) + "_flop_per_byte")
               .str(),
           *r, false, "FLOP/byte"});
  std::string unit = t.getTpu() ? "core" : "sm";
  for (TargetDtype dtype : dtypes)
    if (std::optional<double> p = t.getPeakFlopPerSPerUnit(dtype))
      rows.push_back(
          {("peak_" + stringifyTargetDtype(dtype) + "_flop_per_s_per_" + unit)
               .str(),
           *p, false, "FLOP/s"});
  rows.push_back(
      {"on_chip_sram_bytes", double(t.getOnChipSramBytes()), true, "bytes"});
  if (TpuTargetAttr tpu = t.getTpu()) {
    rows.push_back(
        {"matrix_unit_count", double(tpu.getMatrixUnitCount()), true, "units"});
    rows.push_back({"matrix_macs_per_cell_per_cycle",
                    *getMatrixMacsPerCellPerCycle(t), false, "MAC"});
  }
  if (GpuTargetAttr gpu = t.getGpu())
    rows.push_back({"l2_set_count", double(gpu.getL2SetCount()), true, "sets"});
  return rows;
}

JValue target::toJSON(const TargetFile &file) {
  TargetAttr t = file.attr;
  llvm::json::Object root;
  root["name"] = t.getName().str();
  root["kind"] = stringifyTargetKind(t.getKind()).str();
  root["description"] = file.description;
  llvm::json::Object tpu, gpu;
  for (const TargetField &field : getTargetFields()) {
    std::optional<JValue> v = getFieldValue(t, field);
    if (!v)
      continue;
    llvm::json::Object &into = field.section == FieldSection::Tpu   ? tpu
                               : field.section == FieldSection::Gpu ? gpu
                                                                    : root;
    into[field.name] = std::move(*v);
  }
  if (t.getTpu())
    root["tpu"] = std::move(tpu);
  if (t.getGpu())
    root["gpu"] = std::move(gpu);

  llvm::json::Object derived;
  for (const DerivedQuantity &q : getDerivedQuantities(t)) {
    if (q.integral)
      derived[q.name] = static_cast<int64_t>(q.value);
    else
      derived[q.name] = q.value;
  }
  root["derived"] = std::move(derived);
  if (file.interconnect)
    root["interconnect"] = toJSON(*file.interconnect);

  llvm::json::Object sources;
  for (const auto &[key, text] : file.sources)
    sources[key] = text;
  root["sources"] = std::move(sources);
  return JValue(std::move(root));
}
