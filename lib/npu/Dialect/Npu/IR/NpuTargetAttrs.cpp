//===- NpuTargetAttrs.cpp - hardware target attributes --------------------===//
//
// Verifiers and derived quantities of #npu.target, #npu.tpu_target and
// #npu.gpu_target. Every diagnostic names the offending field exactly as it is
// spelled in the attribute and in npu-target/*.json (nested fields as
// `tpu.<field>` / `gpu.<field>`).
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/GpuModel/Cache.h"
#include "npu/Support/FormatReal.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;

namespace {
using EmitErrorFn = function_ref<InFlightDiagnostic()>;

LogicalResult checkPositive(EmitErrorFn emitError, StringRef field,
                            int64_t value) {
  if (value > 0)
    return success();
  return emitError() << "field '" << field << "' must be positive, got "
                     << value;
}

/// Physical ranges of the real fields, wide enough for any chip and any
/// design-space sweep, narrow enough that no derived quantity can leave the
/// doubles: a count of at most 2^64 over a rate of at least 1/s is finite in
/// picoseconds, and a rate of at most 1e24/s times a time of at most 1e12 ns
/// (bytes in flight) is finite too (docs/limits.md).
constexpr double kMinRate = 1.0, kMaxRate = 1e24, kMaxNs = 1e12;

/// A rate (per second): in [kMinRate, kMaxRate].
LogicalResult checkPositive(EmitErrorFn emitError, StringRef field,
                            double value) {
  if (std::isfinite(value) && value >= kMinRate && value <= kMaxRate)
    return success();
  return emitError() << "field '" << field << "' must be in ["
                     << formatShortestReal(kMinRate) << ", "
                     << formatShortestReal(kMaxRate) << "] (per second), got "
                     << formatShortestReal(value);
}

/// A rate that may be 0 (a chip with no links), or a time in ns: in [0,
/// kMaxRate] or [0, kMaxNs].
LogicalResult checkNonNegative(EmitErrorFn emitError, StringRef field,
                               double value, double max) {
  if (std::isfinite(value) && value >= 0 && value <= max)
    return success();
  return emitError() << "field '" << field << "' must be in [0, "
                     << formatShortestReal(max) << "], got "
                     << formatShortestReal(value);
}
} // namespace

//===----------------------------------------------------------------------===//
// TpuTargetAttr
//===----------------------------------------------------------------------===//

LogicalResult
TpuTargetAttr::verify(EmitErrorFn emitError, int64_t tensorCoreCount,
                      int64_t matrixUnitCountPerCore,
                      int64_t matrixUnitDimElements, int64_t vmemBytesPerCore,
                      int64_t dmaEnginesPerCore, APFloat dmaSetupLatencyNs,
                      int64_t rowDmasInFlightPerCore,
                      APFloat gridStepOverheadNs, int64_t sublanes) {
  if (failed(
          checkPositive(emitError, "tpu.tensor_core_count", tensorCoreCount)) ||
      failed(checkPositive(emitError, "tpu.matrix_unit_count_per_core",
                           matrixUnitCountPerCore)) ||
      failed(checkPositive(emitError, "tpu.matrix_unit_dim_elements",
                           matrixUnitDimElements)) ||
      failed(checkPositive(emitError, "tpu.vmem_bytes_per_core",
                           vmemBytesPerCore)) ||
      failed(checkPositive(emitError, "tpu.dma_engines_per_core",
                           dmaEnginesPerCore)) ||
      failed(checkPositive(emitError, "tpu.row_dmas_in_flight_per_core",
                           rowDmasInFlightPerCore)) ||
      failed(checkPositive(emitError, "tpu.sublanes", sublanes)) ||
      failed(checkNonNegative(emitError, "tpu.dma_setup_latency_ns",
                              dmaSetupLatencyNs.convertToDouble(), kMaxNs)) ||
      failed(checkNonNegative(emitError, "tpu.grid_step_overhead_ns",
                              gridStepOverheadNs.convertToDouble(), kMaxNs)))
    return failure();
  int64_t total;
  if (llvm::MulOverflow(vmemBytesPerCore, tensorCoreCount, total))
    return emitError() << "field 'tpu.vmem_bytes_per_core' times "
                          "'tpu.tensor_core_count' overflows 64 bits";
  return success();
}

int64_t TpuTargetAttr::getVmemBytes() const {
  return getVmemBytesPerCore() * getTensorCoreCount();
}

int64_t TpuTargetAttr::getMatrixUnitCount() const {
  return getMatrixUnitCountPerCore() * getTensorCoreCount();
}

//===----------------------------------------------------------------------===//
// GpuTargetAttr
//===----------------------------------------------------------------------===//

LogicalResult GpuTargetAttr::verify(
    EmitErrorFn emitError, int64_t smCount, int64_t l1SharedBytesPerSm,
    int64_t sharedMemoryBytesPerSm, int64_t sharedMemoryBytesPerBlock,
    int64_t registerBytesPerSm, int64_t warpSizeThreads,
    int64_t maxThreadsPerSm, int64_t maxThreadsPerBlock, int64_t maxBlocksPerSm,
    int64_t l2Bytes, int64_t l2LineBytes, int64_t l2AssociativityWays,
    APFloat l2BandwidthBytesPerS, APFloat launchOverheadNs,
    APFloat graphLaunchOverheadNs, int64_t maxClusterBlocks,
    APFloat dramLatencyNs, int64_t maxRegistersPerThread,
    int64_t registerAllocationUnit, int64_t registerSubPartitions,
    int64_t sharedMemoryAllocationUnitBytes,
    int64_t sharedMemoryReservedPerBlockBytes,
    int64_t sharedMemoryBytesPerClock) {
  struct {
    StringRef name;
    int64_t value;
  } counts[] = {
      {"gpu.sm_count", smCount},
      {"gpu.l1_shared_bytes_per_sm", l1SharedBytesPerSm},
      {"gpu.shared_memory_bytes_per_sm", sharedMemoryBytesPerSm},
      {"gpu.shared_memory_bytes_per_block", sharedMemoryBytesPerBlock},
      {"gpu.register_bytes_per_sm", registerBytesPerSm},
      {"gpu.warp_size_threads", warpSizeThreads},
      {"gpu.max_threads_per_sm", maxThreadsPerSm},
      {"gpu.max_threads_per_block", maxThreadsPerBlock},
      {"gpu.max_blocks_per_sm", maxBlocksPerSm},
      {"gpu.l2_bytes", l2Bytes},
      {"gpu.l2_line_bytes", l2LineBytes},
      {"gpu.l2_associativity_ways", l2AssociativityWays},
      {"gpu.max_cluster_blocks", maxClusterBlocks},
      {"gpu.max_registers_per_thread", maxRegistersPerThread},
      {"gpu.register_allocation_unit", registerAllocationUnit},
      {"gpu.register_sub_partitions", registerSubPartitions},
      {"gpu.shared_memory_allocation_unit_bytes",
       sharedMemoryAllocationUnitBytes},
      {"gpu.shared_memory_bytes_per_clock", sharedMemoryBytesPerClock},
  };
  for (const auto &c : counts)
    if (failed(checkPositive(emitError, c.name, c.value)))
      return failure();
  if (failed(checkPositive(emitError, "gpu.l2_bandwidth_bytes_per_s",
                           l2BandwidthBytesPerS.convertToDouble())) ||
      failed(checkNonNegative(emitError, "gpu.launch_overhead_ns",
                              launchOverheadNs.convertToDouble(), kMaxNs)) ||
      failed(checkNonNegative(emitError, "gpu.graph_launch_overhead_ns",
                              graphLaunchOverheadNs.convertToDouble(),
                              kMaxNs)) ||
      failed(checkNonNegative(emitError, "gpu.dram_latency_ns",
                              dramLatencyNs.convertToDouble(), kMaxNs)))
    return failure();
  // The L2 simulator keeps a set's ways in order of use (gpumodel::Cache).
  if (uint64_t(l2AssociativityWays) > gpumodel::CacheConfig::kMaxWays)
    return emitError() << "field 'gpu.l2_associativity_ways' must be at most "
                       << gpumodel::CacheConfig::kMaxWays
                       << " (the L2 simulator's limit), got "
                       << l2AssociativityWays;
  if (!llvm::isPowerOf2_64(maxClusterBlocks))
    return emitError() << "field 'gpu.max_cluster_blocks' must be a power of "
                          "two, got "
                       << maxClusterBlocks;

  if (!llvm::isPowerOf2_64(l2LineBytes))
    return emitError() << "field 'gpu.l2_line_bytes' must be a power of two, "
                          "got "
                       << l2LineBytes;
  if (l2Bytes % l2LineBytes != 0)
    return emitError() << "field 'gpu.l2_bytes' (" << l2Bytes
                       << ") must be a multiple of 'gpu.l2_line_bytes' ("
                       << l2LineBytes << ")";
  if ((l2Bytes / l2LineBytes) % l2AssociativityWays != 0)
    return emitError() << "field 'gpu.l2_associativity_ways' ("
                       << l2AssociativityWays
                       << ") must divide the number of L2 lines ("
                       << l2Bytes / l2LineBytes << ")";
  if (uint64_t(l2Bytes / l2LineBytes / l2AssociativityWays) >
      gpumodel::CacheConfig::kMaxSets)
    return emitError() << "the L2 has "
                       << l2Bytes / l2LineBytes / l2AssociativityWays
                       << " sets ('gpu.l2_bytes' / 'gpu.l2_line_bytes' / "
                          "'gpu.l2_associativity_ways'): at most "
                       << gpumodel::CacheConfig::kMaxSets
                       << " (the L2 simulator's limit)";
  if (sharedMemoryBytesPerSm > l1SharedBytesPerSm)
    return emitError() << "field 'gpu.shared_memory_bytes_per_sm' ("
                       << sharedMemoryBytesPerSm
                       << ") must not exceed 'gpu.l1_shared_bytes_per_sm' ("
                       << l1SharedBytesPerSm << ")";
  if (sharedMemoryReservedPerBlockBytes < 0)
    return emitError()
           << "field 'gpu.shared_memory_reserved_per_block_bytes' must be "
              "non-negative, got "
           << sharedMemoryReservedPerBlockBytes;
  if ((registerBytesPerSm / 4) % registerSubPartitions != 0)
    return emitError() << "field 'gpu.register_sub_partitions' ("
                       << registerSubPartitions
                       << ") must divide the 32-bit registers per SM ("
                       << registerBytesPerSm / 4 << ")";
  if (sharedMemoryBytesPerBlock > sharedMemoryBytesPerSm)
    return emitError() << "field 'gpu.shared_memory_bytes_per_block' ("
                       << sharedMemoryBytesPerBlock
                       << ") must not exceed 'gpu.shared_memory_bytes_per_sm' ("
                       << sharedMemoryBytesPerSm << ")";
  if (sharedMemoryBytesPerBlock >
      sharedMemoryBytesPerSm - sharedMemoryReservedPerBlockBytes)
    return emitError() << "field 'gpu.shared_memory_bytes_per_block' ("
                       << sharedMemoryBytesPerBlock << ") plus "
                       << "'gpu.shared_memory_reserved_per_block_bytes' ("
                       << sharedMemoryReservedPerBlockBytes
                       << ") must not exceed 'gpu.shared_memory_bytes_per_sm' ("
                       << sharedMemoryBytesPerSm << ")";
  if (maxThreadsPerSm % warpSizeThreads != 0)
    return emitError() << "field 'gpu.max_threads_per_sm' (" << maxThreadsPerSm
                       << ") must be a multiple of 'gpu.warp_size_threads' ("
                       << warpSizeThreads << ")";
  if (maxThreadsPerBlock % warpSizeThreads != 0)
    return emitError() << "field 'gpu.max_threads_per_block' ("
                       << maxThreadsPerBlock
                       << ") must be a multiple of 'gpu.warp_size_threads' ("
                       << warpSizeThreads << ")";
  if (maxThreadsPerBlock > maxThreadsPerSm)
    return emitError() << "field 'gpu.max_threads_per_block' ("
                       << maxThreadsPerBlock
                       << ") must not exceed 'gpu.max_threads_per_sm' ("
                       << maxThreadsPerSm << ")";
  int64_t smSram, total;
  if (llvm::MulOverflow(l1SharedBytesPerSm, smCount, smSram) ||
      llvm::AddOverflow(smSram, l2Bytes, total))
    return emitError() << "on-chip SRAM ('gpu.l1_shared_bytes_per_sm' times "
                          "'gpu.sm_count' plus 'gpu.l2_bytes') overflows 64 "
                          "bits";
  return success();
}

int64_t GpuTargetAttr::getOnChipSramBytes() const {
  return getL1SharedBytesPerSm() * getSmCount() + getL2Bytes();
}

int64_t GpuTargetAttr::getL2SetCount() const {
  return getL2Bytes() / (getL2LineBytes() * getL2AssociativityWays());
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

LogicalResult TargetAttr::verify(
    EmitErrorFn emitError, StringRef name, APFloat clockHz,
    APFloat matrixClockHz, APFloat peakFp32FlopPerS, APFloat peakBf16FlopPerS,
    std::optional<APFloat> peakFp8FlopPerS,
    std::optional<APFloat> peakFp4FlopPerS, APFloat vectorFlopPerS,
    APFloat transcendentalPerS, int64_t hbmBytes, APFloat hbmBandwidthBytesPerS,
    APFloat sustainedHbmBandwidthBytesPerS, APFloat linkBandwidthBytesPerS,
    TpuTargetAttr tpu, GpuTargetAttr gpu) {
  // A variant's name (a file's name with overrides, docs/targets.md) also
  // has ':', ',', '=' and '+' (in "1.5e+09").
  if (name.empty() || !llvm::all_of(name, [](char c) {
        return llvm::isLower(c) || llvm::isDigit(c) ||
               StringRef("-_.:,=+").contains(c);
      }))
    return emitError() << "field 'name' must be non-empty and use only "
                          "[a-z0-9._-:,=+], got '"
                       << name << "'";
  double fp32 = peakFp32FlopPerS.convertToDouble();
  double bf16 = peakBf16FlopPerS.convertToDouble();
  double vector = vectorFlopPerS.convertToDouble();
  if (failed(checkPositive(emitError, "clock_hz", clockHz.convertToDouble())) ||
      failed(checkPositive(emitError, "peak_fp32_flop_per_s", fp32)) ||
      failed(checkPositive(emitError, "peak_bf16_flop_per_s", bf16)) ||
      (peakFp8FlopPerS &&
       failed(checkPositive(emitError, "peak_fp8_flop_per_s",
                            peakFp8FlopPerS->convertToDouble()))) ||
      (peakFp4FlopPerS &&
       failed(checkPositive(emitError, "peak_fp4_flop_per_s",
                            peakFp4FlopPerS->convertToDouble()))) ||
      failed(checkPositive(emitError, "vector_flop_per_s", vector)) ||
      failed(checkPositive(emitError, "transcendental_per_s",
                           transcendentalPerS.convertToDouble())) ||
      failed(checkPositive(emitError, "hbm_bytes", hbmBytes)) ||
      failed(checkPositive(emitError, "hbm_bandwidth_bytes_per_s",
                           hbmBandwidthBytesPerS.convertToDouble())) ||
      failed(checkNonNegative(emitError, "link_bandwidth_bytes_per_s",
                              linkBandwidthBytesPerS.convertToDouble(),
                              kMaxRate)) ||
      failed(checkPositive(emitError, "matrix_clock_hz",
                           matrixClockHz.convertToDouble())) ||
      failed(checkPositive(emitError, "sustained_hbm_bandwidth_bytes_per_s",
                           sustainedHbmBandwidthBytesPerS.convertToDouble())))
    return failure();
  // A sustained figure above the quoted one would exceed the peak.
  for (auto [field, value, quoted, of] :
       {std::make_tuple("matrix_clock_hz", matrixClockHz.convertToDouble(),
                        clockHz.convertToDouble(), "clock_hz"),
        std::make_tuple("sustained_hbm_bandwidth_bytes_per_s",
                        sustainedHbmBandwidthBytesPerS.convertToDouble(),
                        hbmBandwidthBytesPerS.convertToDouble(),
                        "hbm_bandwidth_bytes_per_s")})
    if (value > quoted)
      return emitError() << "field '" << field << "' ("
                         << formatShortestReal(value) << ") must not exceed '"
                         << of << "' (" << formatShortestReal(quoted) << ")";

  // The rates do not decrease with precision: each present one is not
  // below the previous present one (fp32 <= bf16 <= fp8 <= fp4; a chip with
  // fp4 but no fp8 is checked against bf16).
  std::pair<StringRef, std::optional<APFloat>> rates[] = {
      {"peak_fp32_flop_per_s", peakFp32FlopPerS},
      {"peak_bf16_flop_per_s", peakBf16FlopPerS},
      {"peak_fp8_flop_per_s", peakFp8FlopPerS},
      {"peak_fp4_flop_per_s", peakFp4FlopPerS}};
  const std::pair<StringRef, std::optional<APFloat>> *below = &rates[0];
  for (const auto &rate : ArrayRef(rates).drop_front()) {
    if (!rate.second)
      continue;
    double value = rate.second->convertToDouble(),
           floor = below->second->convertToDouble();
    if (value < floor)
      return emitError() << "field '" << rate.first << "' ("
                         << formatShortestReal(value) << ") must not be below '"
                         << below->first << "' (" << formatShortestReal(floor)
                         << ")";
    below = &rate;
  }
  if (vector > fp32)
    return emitError() << "field 'vector_flop_per_s' ("
                       << formatShortestReal(vector)
                       << ") must not exceed 'peak_fp32_flop_per_s' ("
                       << formatShortestReal(fp32) << ")";

  if (bool(tpu) == bool(gpu))
    return emitError() << "a target needs exactly one of 'tpu' and 'gpu', got "
                       << (tpu ? "both" : "neither");
  int64_t sram = tpu ? tpu.getVmemBytes() : gpu.getOnChipSramBytes();
  if (sram >= hbmBytes)
    return emitError() << "on-chip SRAM (" << sram
                       << " bytes) must be smaller than 'hbm_bytes' ("
                       << hbmBytes << ")";
  return success();
}

TargetKind TargetAttr::getKind() const {
  return getTpu() ? TargetKind::Tpu : TargetKind::Gpu;
}

std::optional<double> TargetAttr::getPeakFlopPerS(TargetDtype dtype) const {
  switch (dtype) {
  case TargetDtype::FP32:
    return getPeakFp32FlopPerS().convertToDouble();
  case TargetDtype::BF16:
    return getPeakBf16FlopPerS().convertToDouble();
  case TargetDtype::FP8:
    if (std::optional<APFloat> fp8 = getPeakFp8FlopPerS())
      return fp8->convertToDouble();
    return std::nullopt;
  case TargetDtype::FP4:
    if (std::optional<APFloat> fp4 = getPeakFp4FlopPerS())
      return fp4->convertToDouble();
    return std::nullopt;
  }
  llvm_unreachable("unknown TargetDtype");
}

std::optional<TargetDtype> TargetAttr::getDtypeOf(Type elementType) {
  if (elementType.isF32())
    return TargetDtype::FP32;
  if (elementType.isBF16() || elementType.isF16())
    return TargetDtype::BF16;
  if (auto f = dyn_cast<FloatType>(elementType); f && f.getWidth() == 8)
    return TargetDtype::FP8;
  if (isa<Float4E2M1FNType>(elementType))
    return TargetDtype::FP4;
  return std::nullopt;
}

std::optional<double> TargetAttr::getPeakFlopPerS(Type elementType) const {
  if (std::optional<TargetDtype> dtype = getDtypeOf(elementType))
    return getPeakFlopPerS(*dtype);
  return std::nullopt;
}

std::optional<double>
TargetAttr::getRidgePointFlopPerByte(TargetDtype dtype) const {
  if (std::optional<double> peak = getPeakFlopPerS(dtype))
    return *peak / getHbmBandwidthBytesPerS().convertToDouble();
  return std::nullopt;
}

int64_t TargetAttr::getOnChipSramBytes() const {
  return getTpu() ? getTpu().getVmemBytes() : getGpu().getOnChipSramBytes();
}

int64_t TargetAttr::getComputeUnitCount() const {
  return getTpu() ? getTpu().getTensorCoreCount() : getGpu().getSmCount();
}

std::optional<double>
TargetAttr::getPeakFlopPerSPerUnit(TargetDtype dtype) const {
  if (std::optional<double> peak = getPeakFlopPerS(dtype))
    return *peak / static_cast<double>(getComputeUnitCount());
  return std::nullopt;
}
