//===- Occupancy.h - thread blocks resident per SM --------------*- C++ -*-===//
//
// How many blocks of a kernel an SM holds at once: the minimum over four
// limits, as in NVIDIA's occupancy calculator (cuda_occupancy.h of the CUDA
// toolkit, the CUDA Occupancy Calculator and the CUDA C++ Programming Guide,
// "Technical Specifications per Compute Capability"):
//
//   warpsPerBlock = ceil(threads / warpSize)
//   by blocks     = maxBlocksPerSM
//   by warps      = floor(maxThreadsPerSM / warpSize / warpsPerBlock)
//   by registers  = floor(floor(registersPerSM / subPartitions / regsPerWarp)
//                         * subPartitions / warpsPerBlock),
//                   regsPerWarp = roundUp(regsPerThread * warpSize, regUnit)
//   by smem       = floor(sharedMemPerSM / smemPerBlock),
//                   smemPerBlock = roundUp(smem + reservedSmem, smemUnit)
//
// With the rounding units at 1, one sub-partition and no reserved shared
// memory, and threads a multiple of the warp size, these are the plain
// formulas floor(maxThreadsPerSM / threads), floor(registersPerSM /
// (regsPerThread * threads)) and floor(sharedMemPerSM / smem). The CUDA values
// for compute capability 8.0 to 12.x are regUnit 256, subPartitions 4,
// smemUnit 128 and reservedSmem 1024 bytes (cuda_occupancy.h,
// cudaOccRegAllocationGranularity, cudaOccSubPartitionsPerMultiprocessor,
// cudaOccSMemAllocationGranularity; the Guide's "1 KB of shared memory
// reserved for system use" per block). The defaults below are the plain
// formulas; a caller takes the rounding rules from its target.
//
// A block that cannot run at all (more threads, registers or shared memory
// than one block may have) gets 0 blocks per SM, and `limit` names why.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_GPUMODEL_OCCUPANCY_H
#define NPU_GPUMODEL_OCCUPANCY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace mlir::npu::gpumodel {

/// The per-SM resources and the allocation rules of one GPU.
struct SMResources {
  uint64_t warpSize = 32;
  uint64_t maxThreadsPerSM = 0;
  uint64_t maxThreadsPerBlock = 0;
  uint64_t maxBlocksPerSM = 0;
  /// 32-bit registers (register_bytes_per_sm / 4).
  uint64_t registersPerSM = 0;
  /// Registers one block may hold; 0 means registersPerSM.
  uint64_t maxRegistersPerBlock = 0;
  /// 0 means no per-thread limit.
  uint64_t maxRegistersPerThread = 0;
  uint64_t sharedMemPerSM = 0;
  /// Shared memory one block may ask for, not counting the reserved part
  /// (CUDA's sharedMemPerBlockOptin: 227 KiB on H100, whose SM has 228 KiB);
  /// 0 means sharedMemPerSM.
  uint64_t sharedMemPerBlock = 0;
  // Allocation rules: 1, 1, 1, 0 give the plain formulas.
  uint64_t registerAllocUnit = 1;
  uint64_t registerSubPartitions = 1;
  uint64_t sharedMemAllocUnit = 1;
  uint64_t reservedSharedMemPerBlock = 0;

  /// Fails on a zero size, count or unit, or a sub-partition count that does
  /// not divide the register file.
  llvm::Error verify() const;
};

/// What one block of the kernel asks for.
struct BlockResources {
  uint64_t threads = 0;
  uint64_t registersPerThread = 0;
  uint64_t sharedMemBytes = 0;
};

/// The limit that sets the block count. For a block that fits, the first of
/// Blocks, Warps, Registers, SharedMemory reaching the minimum (ties go to
/// the earlier). For one that does not fit: which per-block limit it breaks.
enum class OccupancyLimit {
  Blocks,
  Warps,
  Registers,
  SharedMemory,
  BlockThreads,
  ThreadRegisters,
  BlockRegisters,
  BlockSharedMemory,
  EmptyBlock,
};
llvm::StringRef stringifyOccupancyLimit(OccupancyLimit limit);

struct Occupancy {
  uint64_t blocksPerSM = 0;
  OccupancyLimit limit = OccupancyLimit::EmptyBlock;
  /// Each limit on its own, in blocks per SM (all 0 when the block does not
  /// fit). A block with no registers or no shared memory is not limited by
  /// them: UINT64_MAX.
  uint64_t byBlocks = 0, byWarps = 0, byRegisters = 0, bySharedMemory = 0;
  uint64_t warpsPerBlock = 0;
  /// What one block is charged after rounding.
  uint64_t registersPerBlock = 0, sharedMemPerBlock = 0;
  /// blocksPerSM * warpsPerBlock / (maxThreadsPerSM / warpSize).
  double warpOccupancy = 0;

  bool fits() const { return blocksPerSM > 0; }
};

/// Fails only for an invalid SMResources; a block that does not fit is a
/// result with blocksPerSM = 0.
llvm::Expected<Occupancy> computeOccupancy(const SMResources &sm,
                                           const BlockResources &block);

} // namespace mlir::npu::gpumodel

#endif // NPU_GPUMODEL_OCCUPANCY_H
