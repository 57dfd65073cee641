//===- Occupancy.cpp - thread blocks resident per SM ----------------------===//

#include "npu/GpuModel/Occupancy.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <limits>

using namespace mlir::npu::gpumodel;

static constexpr uint64_t kUnlimited = std::numeric_limits<uint64_t>::max();

static uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
static uint64_t roundUp(uint64_t a, uint64_t b) { return ceilDiv(a, b) * b; }

llvm::StringRef
mlir::npu::gpumodel::stringifyOccupancyLimit(OccupancyLimit limit) {
  switch (limit) {
  case OccupancyLimit::Blocks:
    return "blocks per SM";
  case OccupancyLimit::Warps:
    return "threads per SM";
  case OccupancyLimit::Registers:
    return "registers per SM";
  case OccupancyLimit::SharedMemory:
    return "shared memory per SM";
  case OccupancyLimit::BlockThreads:
    return "threads per block";
  case OccupancyLimit::ThreadRegisters:
    return "registers per thread";
  case OccupancyLimit::BlockRegisters:
    return "registers per block";
  case OccupancyLimit::BlockSharedMemory:
    return "shared memory per block";
  case OccupancyLimit::EmptyBlock:
    return "empty block";
  }
  return "unknown";
}

llvm::Error SMResources::verify() const {
  auto fail = [](const llvm::Twine &what) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "occupancy: " + what);
  };
  if (!warpSize || !maxThreadsPerSM || !maxThreadsPerBlock || !maxBlocksPerSM ||
      !registersPerSM || !sharedMemPerSM)
    return fail("warp size, threads, blocks, registers and shared memory per "
                "SM must be positive");
  if (!registerAllocUnit || !registerSubPartitions || !sharedMemAllocUnit)
    return fail("allocation units and sub-partitions must be positive");
  if (registersPerSM % registerSubPartitions != 0)
    return fail(llvm::Twine(registerSubPartitions) +
                " sub-partitions do not divide " + llvm::Twine(registersPerSM) +
                " registers");
  if (maxThreadsPerSM < warpSize)
    return fail("fewer threads per SM than a warp");
  return llvm::Error::success();
}

llvm::Expected<Occupancy>
mlir::npu::gpumodel::computeOccupancy(const SMResources &sm,
                                      const BlockResources &block) {
  if (llvm::Error err = sm.verify())
    return std::move(err);

  Occupancy o;
  auto cannotRun = [&](OccupancyLimit why) {
    o.limit = why;
    return o;
  };
  if (block.threads == 0)
    return cannotRun(OccupancyLimit::EmptyBlock);
  o.warpsPerBlock = ceilDiv(block.threads, sm.warpSize);
  if (block.threads > sm.maxThreadsPerBlock)
    return cannotRun(OccupancyLimit::BlockThreads);

  // Registers go to warps in units of registerAllocUnit, from each of the
  // register file's sub-partitions; the launch check charges the warps
  // rounded up to the sub-partition count (as cudaOccMaxBlocksPerSMRegsLimit).
  uint64_t regsPerWarp =
      roundUp(block.registersPerThread * sm.warpSize, sm.registerAllocUnit);
  o.registersPerBlock = regsPerWarp * o.warpsPerBlock;
  uint64_t regsChecked =
      regsPerWarp * roundUp(o.warpsPerBlock, sm.registerSubPartitions);
  uint64_t maxRegsPerBlock =
      sm.maxRegistersPerBlock ? sm.maxRegistersPerBlock : sm.registersPerSM;
  if (sm.maxRegistersPerThread &&
      block.registersPerThread > sm.maxRegistersPerThread)
    return cannotRun(OccupancyLimit::ThreadRegisters);
  if (std::max(o.registersPerBlock, regsChecked) > maxRegsPerBlock)
    return cannotRun(OccupancyLimit::BlockRegisters);

  uint64_t maxSmemPerBlock =
      sm.sharedMemPerBlock ? sm.sharedMemPerBlock : sm.sharedMemPerSM;
  o.sharedMemPerBlock =
      roundUp(block.sharedMemBytes + sm.reservedSharedMemPerBlock,
              sm.sharedMemAllocUnit);
  if (block.sharedMemBytes > maxSmemPerBlock ||
      o.sharedMemPerBlock > sm.sharedMemPerSM)
    return cannotRun(OccupancyLimit::BlockSharedMemory);

  uint64_t maxWarpsPerSM = sm.maxThreadsPerSM / sm.warpSize;
  o.byBlocks = sm.maxBlocksPerSM;
  o.byWarps = maxWarpsPerSM / o.warpsPerBlock;
  if (regsPerWarp == 0) {
    o.byRegisters = kUnlimited;
  } else {
    uint64_t perPartition = sm.registersPerSM / sm.registerSubPartitions;
    uint64_t warps = perPartition / regsPerWarp * sm.registerSubPartitions;
    o.byRegisters = warps / o.warpsPerBlock;
  }
  o.bySharedMemory = o.sharedMemPerBlock
                         ? sm.sharedMemPerSM / o.sharedMemPerBlock
                         : kUnlimited;

  o.blocksPerSM = o.byBlocks;
  o.limit = OccupancyLimit::Blocks;
  for (auto [n, why] :
       {std::pair(o.byWarps, OccupancyLimit::Warps),
        std::pair(o.byRegisters, OccupancyLimit::Registers),
        std::pair(o.bySharedMemory, OccupancyLimit::SharedMemory)}) {
    if (n < o.blocksPerSM) {
      o.blocksPerSM = n;
      o.limit = why;
    }
  }
  o.warpOccupancy =
      double(o.blocksPerSM * o.warpsPerBlock) / double(maxWarpsPerSM);
  return o;
}
