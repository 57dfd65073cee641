//===- GpuOccupancyTest.cpp - blocks per SM, limit by limit ---------------===//
//
// The SM is H100's (npu-target/h100.json): 2048 threads (64 warps), 32
// blocks, 65536 registers, 228 KiB of shared memory per SM, 1024 threads,
// 255 registers per thread and 227 KiB of shared memory per block.
//
//===----------------------------------------------------------------------===//

#include "npu/GpuModel/Occupancy.h"

#include "gtest/gtest.h"

using namespace mlir::npu::gpumodel;

namespace {

SMResources plainH100() {
  SMResources sm;
  sm.warpSize = 32;
  sm.maxThreadsPerSM = 2048;
  sm.maxThreadsPerBlock = 1024;
  sm.maxBlocksPerSM = 32;
  sm.registersPerSM = 65536;
  sm.maxRegistersPerBlock = 65536;
  sm.maxRegistersPerThread = 255;
  sm.sharedMemPerSM = 228 * 1024;
  sm.sharedMemPerBlock = 227 * 1024;
  return sm;
}

/// The same SM with CUDA's allocation rules for compute capability 9.0.
SMResources cudaH100() {
  SMResources sm = plainH100();
  sm.registerAllocUnit = 256;
  sm.registerSubPartitions = 4;
  sm.sharedMemAllocUnit = 128;
  sm.reservedSharedMemPerBlock = 1024;
  return sm;
}

Occupancy occupancy(const SMResources &sm, uint64_t threads, uint64_t regs,
                    uint64_t smem) {
  return llvm::cantFail(computeOccupancy(sm, {threads, regs, smem}));
}

TEST(GpuOccupancy, BlockCountBinds) {
  // 32 threads, 16 registers: warps allow 64 / 1, registers
  // 65536 / (16 * 32) = 128; the 32-block cap binds.
  Occupancy o = occupancy(plainH100(), 32, 16, 0);
  EXPECT_EQ(o.blocksPerSM, 32u);
  EXPECT_EQ(o.limit, OccupancyLimit::Blocks);
  EXPECT_EQ(o.byWarps, 64u);
  EXPECT_EQ(o.byRegisters, 128u);
  EXPECT_EQ(o.bySharedMemory, UINT64_MAX);
  EXPECT_DOUBLE_EQ(o.warpOccupancy, 0.5);
}

TEST(GpuOccupancy, ThreadsBind) {
  // 256 threads (8 warps), 16 registers: 2048 / 256 = 8 blocks by threads,
  // 65536 / (16 * 256) = 16 by registers.
  Occupancy o = occupancy(plainH100(), 256, 16, 0);
  EXPECT_EQ(o.blocksPerSM, 8u);
  EXPECT_EQ(o.limit, OccupancyLimit::Warps);
  EXPECT_EQ(o.byRegisters, 16u);
  EXPECT_DOUBLE_EQ(o.warpOccupancy, 1.0);
  // 33 threads take 2 warps: 64 / 2 = 32 blocks by warps, tied with the cap,
  // which is reported first.
  o = occupancy(plainH100(), 33, 16, 0);
  EXPECT_EQ(o.warpsPerBlock, 2u);
  EXPECT_EQ(o.byWarps, 32u);
  EXPECT_EQ(o.limit, OccupancyLimit::Blocks);
}

TEST(GpuOccupancy, RegistersBind) {
  // 256 threads, 128 registers: 65536 / (128 * 256) = 2 blocks.
  Occupancy o = occupancy(plainH100(), 256, 128, 0);
  EXPECT_EQ(o.blocksPerSM, 2u);
  EXPECT_EQ(o.limit, OccupancyLimit::Registers);
  EXPECT_EQ(o.registersPerBlock, 128u * 256u);
  EXPECT_DOUBLE_EQ(o.warpOccupancy, 16.0 / 64.0);
}

TEST(GpuOccupancy, SharedMemoryBinds) {
  // 128 threads, 32 registers, 100 KiB: floor(228 / 100) = 2 blocks.
  Occupancy o = occupancy(plainH100(), 128, 32, 100 * 1024);
  EXPECT_EQ(o.blocksPerSM, 2u);
  EXPECT_EQ(o.limit, OccupancyLimit::SharedMemory);
  EXPECT_EQ(o.byWarps, 16u);
  EXPECT_EQ(o.byRegisters, 16u);
}

TEST(GpuOccupancy, RegisterAllocationGranularity) {
  // 256 threads of 33 registers. Plain: floor(65536 / (33 * 256)) = 7.
  // CUDA: a warp takes 33 * 32 = 1056 registers, rounded to 1280; each of 4
  // sub-partitions (16384 registers) holds floor(16384 / 1280) = 12 warps,
  // 48 in all: floor(48 / 8) = 6 blocks.
  EXPECT_EQ(occupancy(plainH100(), 256, 33, 0).blocksPerSM, 7u);
  Occupancy o = occupancy(cudaH100(), 256, 33, 0);
  EXPECT_EQ(o.blocksPerSM, 6u);
  EXPECT_EQ(o.limit, OccupancyLimit::Registers);
  EXPECT_EQ(o.registersPerBlock, 1280u * 8u);
}

TEST(GpuOccupancy, SharedMemoryReservationAndGranularity) {
  // Two blocks of 114 KiB fill 228 KiB exactly under the plain rule, but
  // CUDA adds 1 KiB per block: 115 KiB each, only one fits.
  EXPECT_EQ(occupancy(plainH100(), 128, 32, 114 * 1024).blocksPerSM, 2u);
  Occupancy o = occupancy(cudaH100(), 128, 32, 114 * 1024);
  EXPECT_EQ(o.blocksPerSM, 1u);
  EXPECT_EQ(o.sharedMemPerBlock, 115u * 1024u);
  // 1000 bytes + 1024 reserved = 2024, rounded to 128: 2048 bytes;
  // 233472 / 2048 = 114 blocks by shared memory, so the cap of 32 binds.
  o = occupancy(cudaH100(), 64, 32, 1000);
  EXPECT_EQ(o.sharedMemPerBlock, 2048u);
  EXPECT_EQ(o.bySharedMemory, 114u);
  EXPECT_EQ(o.limit, OccupancyLimit::Blocks);
  // The largest block H100 allows, 227 KiB, plus 1 KiB reserved: one fits.
  EXPECT_EQ(occupancy(cudaH100(), 128, 32, 227 * 1024).blocksPerSM, 1u);
}

TEST(GpuOccupancy, BlocksThatCannotRun) {
  struct Case {
    uint64_t threads, regs, smem;
    OccupancyLimit limit;
  } cases[] = {
      {128, 32, 227 * 1024 + 1, OccupancyLimit::BlockSharedMemory},
      {2048, 16, 0, OccupancyLimit::BlockThreads},
      {128, 256, 0, OccupancyLimit::ThreadRegisters},
      {1024, 128, 0, OccupancyLimit::BlockRegisters}, // 131072 > 65536
      {0, 32, 0, OccupancyLimit::EmptyBlock},
  };
  for (const Case &c : cases) {
    Occupancy o = occupancy(cudaH100(), c.threads, c.regs, c.smem);
    EXPECT_FALSE(o.fits());
    EXPECT_EQ(o.blocksPerSM, 0u);
    EXPECT_EQ(stringifyOccupancyLimit(o.limit),
              stringifyOccupancyLimit(c.limit));
  }
  // 1024 threads of 64 registers use the whole register file: one block.
  EXPECT_EQ(occupancy(cudaH100(), 1024, 64, 0).blocksPerSM, 1u);
}

TEST(GpuOccupancy, InvalidSm) {
  SMResources sm = plainH100();
  sm.registersPerSM = 0;
  llvm::Expected<Occupancy> o = computeOccupancy(sm, {128, 32, 0});
  ASSERT_FALSE(bool(o));
  EXPECT_EQ(llvm::toString(o.takeError()),
            "occupancy: warp size, threads, blocks, registers and shared "
            "memory per SM must be positive");
  sm = cudaH100();
  sm.registerSubPartitions = 3;
  o = computeOccupancy(sm, {128, 32, 0});
  ASSERT_FALSE(bool(o));
  EXPECT_EQ(llvm::toString(o.takeError()),
            "occupancy: 3 sub-partitions do not divide 65536 registers");
}

} // namespace
