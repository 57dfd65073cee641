//===- GpuCacheTest.cpp - the L2 simulator on hand-made access streams ----===//
//
// A 512-byte cache of 64-byte lines and 2 ways has 512 / (64 * 2) = 4 sets;
// line L lives in set L mod 4, so lines 0, 4, 8, ... compete for set 0. Every
// expected count below follows from that by hand.
//
//===----------------------------------------------------------------------===//

#include "npu/GpuModel/Cache.h"

#include "gtest/gtest.h"

using namespace mlir::npu::gpumodel;

namespace {

constexpr uint64_t kLine = 64;

Cache makeCache(uint64_t size, uint64_t ways, bool fetchOnWriteMiss = true) {
  CacheConfig cfg{size, kLine, ways, fetchOnWriteMiss};
  return llvm::cantFail(Cache::create(cfg));
}

/// Reads the whole of line `l`.
void readLine(Cache &c, uint64_t l) { c.read(l * kLine, kLine); }
void writeLine(Cache &c, uint64_t l) { c.write(l * kLine, kLine); }

std::string errorOf(const CacheConfig &cfg, uint64_t sampleOneIn = 1) {
  llvm::Expected<Cache> c = Cache::create(cfg, sampleOneIn);
  if (c)
    return "<no error>";
  return llvm::toString(c.takeError());
}

TEST(GpuCache, ColdMissThenHit) {
  Cache c = makeCache(512, 2);
  EXPECT_EQ(c.numSets(), 4u);
  readLine(c, 0);
  readLine(c, 0);
  c.read(10, 4); // inside line 0
  EXPECT_EQ(c.counts().readMisses, 1u);
  EXPECT_EQ(c.counts().readHits, 2u);
  EXPECT_EQ(c.counts().evictions, 0u);
  CacheTraffic t = c.traffic();
  EXPECT_DOUBLE_EQ(t.bytesFromBelow, 64);
  EXPECT_DOUBLE_EQ(t.hitRate, 2.0 / 3.0);
}

TEST(GpuCache, RangeTouchesEveryOverlappedLine) {
  Cache c = makeCache(512, 2);
  c.read(60, 8); // bytes 60..67: lines 0 and 1
  EXPECT_EQ(c.counts().accesses(), 2u);
  c.read(64, 64 * 3); // lines 1, 2, 3
  EXPECT_EQ(c.counts().readHits, 1u);
  EXPECT_EQ(c.counts().readMisses, 4u);
  c.read(1000, 0); // nothing
  EXPECT_EQ(c.counts().accesses(), 5u);
  EXPECT_TRUE(c.contains(3 * 64 + 63));
  EXPECT_FALSE(c.contains(4 * 64));
}

TEST(GpuCache, LruEvictsLeastRecentlyUsedWay) {
  Cache c = makeCache(512, 2);
  readLine(c, 0); // set 0: [0]
  readLine(c, 4); // set 0: [4, 0]
  readLine(c, 0); // hit: [0, 4]
  readLine(c, 8); // miss, evicts 4: [8, 0]
  EXPECT_TRUE(c.contains(0));
  EXPECT_FALSE(c.contains(4 * kLine));
  readLine(c, 0); // hit: [0, 8]
  readLine(c, 4); // miss, evicts 8: [4, 0]
  EXPECT_FALSE(c.contains(8 * kLine));
  EXPECT_EQ(c.counts().readHits, 2u);
  EXPECT_EQ(c.counts().readMisses, 4u);
  EXPECT_EQ(c.counts().evictions, 2u);
  EXPECT_EQ(c.counts().dirtyEvictions, 0u);
}

TEST(GpuCache, SetsDoNotInterfere) {
  // One way per set: lines 0..3 each fill their own set.
  Cache c = makeCache(256, 1);
  for (int round = 0; round < 3; ++round)
    for (uint64_t l = 0; l < 4; ++l)
      readLine(c, l);
  EXPECT_EQ(c.counts().readMisses, 4u);
  EXPECT_EQ(c.counts().readHits, 8u);
}

TEST(GpuCache, AssociativityRemovesConflictMisses) {
  // Lines 0 and 4 ping-pong in set 0 of a 4-set cache.
  Cache direct = makeCache(256, 1); // 4 sets of 1 way
  Cache twoWay = makeCache(512, 2); // 4 sets of 2 ways
  for (int i = 0; i < 10; ++i) {
    readLine(direct, 4 * (i % 2));
    readLine(twoWay, 4 * (i % 2));
  }
  EXPECT_EQ(direct.counts().readMisses, 10u);
  EXPECT_EQ(direct.counts().evictions, 9u);
  EXPECT_EQ(twoWay.counts().readMisses, 2u);
  EXPECT_EQ(twoWay.counts().readHits, 8u);
}

TEST(GpuCache, CyclicStreamOneLineTooLongAlwaysMissesUnderLru) {
  // Fully associative (1 set of 8 ways), cycling over 9 lines: LRU always
  // evicts the line needed next. Over 8 lines, only the first pass misses.
  Cache over = makeCache(512, 8);
  Cache fits = makeCache(512, 8);
  EXPECT_EQ(over.numSets(), 1u);
  for (int pass = 0; pass < 4; ++pass) {
    for (uint64_t l = 0; l < 9; ++l)
      readLine(over, l);
    for (uint64_t l = 0; l < 8; ++l)
      readLine(fits, l);
  }
  EXPECT_EQ(over.counts().readHits, 0u);
  EXPECT_EQ(over.counts().readMisses, 36u);
  EXPECT_EQ(fits.counts().readMisses, 8u);
  EXPECT_EQ(fits.counts().readHits, 24u);
}

TEST(GpuCache, WriteBackCountsDirtyEvictionsAndFlush) {
  Cache c = makeCache(512, 2);
  writeLine(c, 0); // write miss, allocated dirty: set 0 [0*]
  readLine(c, 4);  // [4, 0*]
  readLine(c, 8);  // evicts dirty 0: [8, 4]
  readLine(c, 12); // evicts clean 4: [12, 8]
  readLine(c, 1);  // set 1 [1]
  writeLine(c, 1); // write hit makes 1 dirty
  writeLine(c, 2); // set 2 [2*]
  EXPECT_EQ(c.counts().writeMisses, 2u);
  EXPECT_EQ(c.counts().writeHits, 1u);
  EXPECT_EQ(c.counts().evictions, 2u);
  EXPECT_EQ(c.counts().dirtyEvictions, 1u);
  EXPECT_DOUBLE_EQ(c.traffic().bytesToBelow, 64);
  // Fills: 4 read misses and 2 write misses (write-allocate fetches).
  EXPECT_DOUBLE_EQ(c.traffic().bytesFromBelow, 6 * 64);
  c.flush(); // lines 1 and 2 are dirty
  EXPECT_EQ(c.counts().flushWritebacks, 2u);
  EXPECT_DOUBLE_EQ(c.traffic().bytesToBelow, 3 * 64);
  c.flush(); // nothing left dirty
  EXPECT_EQ(c.counts().flushWritebacks, 2u);
  EXPECT_TRUE(c.contains(1 * kLine));
}

TEST(GpuCache, WriteMissWithoutFetchReadsNothing) {
  Cache c = makeCache(512, 2, /*fetchOnWriteMiss=*/false);
  c.write(0, 4 * kLine); // lines 0..3, one per set
  c.read(0, 4 * kLine);
  EXPECT_EQ(c.counts().writeMisses, 4u);
  EXPECT_EQ(c.counts().readHits, 4u);
  EXPECT_DOUBLE_EQ(c.traffic().bytesFromBelow, 0);
  c.flush();
  EXPECT_DOUBLE_EQ(c.traffic().bytesToBelow, 4 * 64);
}

TEST(GpuCache, ResetEmptiesTheCache) {
  Cache c = makeCache(512, 2);
  readLine(c, 0);
  c.reset();
  EXPECT_EQ(c.counts().accesses(), 0u);
  EXPECT_FALSE(c.contains(0));
  readLine(c, 0);
  EXPECT_EQ(c.counts().readMisses, 1u);
}

TEST(GpuCache, InvalidConfigurations) {
  EXPECT_EQ(errorOf({0, 64, 2}),
            "cache: size, line and ways must be positive, got size 0, line "
            "64, ways 2");
  EXPECT_EQ(errorOf({512, 48, 2}),
            "cache: line bytes must be a power of two, got 48");
  EXPECT_EQ(errorOf({500, 64, 2}),
            "cache: size 500 is not a multiple of line * ways = 128");
  EXPECT_EQ(errorOf({512, 64, 2}, 0), "cache: sampleOneIn must be positive");
  EXPECT_EQ(errorOf({64 * 2048, 64, 2048}),
            "cache: at most 1024 ways, got 2048");
  // H100's L2: 50 MiB of 128-byte lines, 16 ways: 25600 sets, not a power
  // of two, which the modulo map allows.
  llvm::Expected<Cache> h100 =
      Cache::create({50ull << 20, 128, 16}, /*sampleOneIn=*/1);
  ASSERT_TRUE(bool(h100));
  EXPECT_EQ(h100->numSets(), 25600u);
}

} // namespace
