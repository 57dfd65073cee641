//===- Cache.h - set-associative LRU cache simulator ------------*- C++ -*-===//
//
// A set-associative, LRU, write-allocate, write-back cache, simulated line by
// line on an address stream. Plain C++ on integers: no IR, no target
// attribute. The GPU-like backend runs it as the L2 on the order in which
// concurrently running thread blocks touch their tiles.
//
// Address mapping (documented because real GPUs do not do this):
//   line = addr / lineBytes,  set = line mod numSets,
//   numSets = sizeBytes / (lineBytes * ways).
// Real NVIDIA L2s are split into slices (and, on A100/H100, two partitions)
// selected by an undocumented hash of the physical address; the modulo map is
// the textbook one and is exact for the hand-made streams of the unit tests.
//
// Bounded cost: with sampleOneIn = K > 1 only about 1 in K sets is simulated
// (chosen by a fixed hash of the set index, so strided streams do not alias
// with the choice) and the counts are scaled by numSets / sampledSets. Lines
// of unsampled sets are skipped without being visited, so access(addr, bytes)
// costs O(sampled lines in the range + wraps of the range over the sets +
// lines / 64), and memory is 4 bytes and a bit per set plus 16 bytes per
// sampled way. K = 1 is the exact simulation. The error of K > 1 is
// statistical; see docs/gpu-model.md.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_GPUMODEL_CACHE_H
#define NPU_GPUMODEL_CACHE_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace mlir::npu::gpumodel {

/// Geometry and write policy of one cache level.
struct CacheConfig {
  uint64_t sizeBytes = 0;
  uint64_t lineBytes = 0;
  uint64_t ways = 0;
  /// A write miss reads the line from below before writing it (classic
  /// write-allocate). NVIDIA's L2 keeps per-sector byte masks and does not
  /// read a line that a write covers; set this to false to model that.
  bool fetchOnWriteMiss = true;
  /// The simulator keeps a 4-byte index per set: at most 2^26 sets (an 8 GiB
  /// cache of 128-byte lines).
  static constexpr uint64_t kMaxSets = uint64_t(1) << 26;
  /// A look-up scans its set linearly (most recent first): O(ways).
  static constexpr uint64_t kMaxWays = 1024;

  uint64_t numSets() const { return sizeBytes / (lineBytes * ways); }
  /// Fails unless every size is positive, lineBytes is a power of two and
  /// sizeBytes is a multiple of lineBytes * ways.
  llvm::Error verify() const;
};

enum class AccessKind { Read, Write };

/// Raw counts over the simulated (sampled) sets. Every count is in lines.
struct CacheCounts {
  uint64_t readHits = 0, readMisses = 0;
  uint64_t writeHits = 0, writeMisses = 0;
  /// Valid lines pushed out by a miss; dirtyEvictions of them were written
  /// back.
  uint64_t evictions = 0, dirtyEvictions = 0;
  /// Dirty lines written back by flush().
  uint64_t flushWritebacks = 0;

  uint64_t hits() const { return readHits + writeHits; }
  uint64_t misses() const { return readMisses + writeMisses; }
  uint64_t accesses() const { return hits() + misses(); }
};

/// Counts scaled to the whole cache, and the traffic to the level below.
struct CacheTraffic {
  double accesses = 0, hits = 0, misses = 0, evictions = 0;
  /// Bytes read from the level below: line fills.
  double bytesFromBelow = 0;
  /// Bytes written to the level below: dirty evictions and flush().
  double bytesToBelow = 0;
  /// The standard error of bytesFromBelow as an estimate from the sampled
  /// sets (their spread of fills); 0 when every set is simulated.
  double bytesFromBelowStdErr = 0;
  /// hits / accesses (0 with no access); the same sampled or scaled.
  double hitRate = 0;
};

class Cache {
public:
  /// A cache simulating about 1 in `sampleOneIn` sets (all of them for 1).
  /// `seed` changes which sets are sampled.
  static llvm::Expected<Cache> create(const CacheConfig &config,
                                      uint64_t sampleOneIn = 1,
                                      uint64_t seed = 0);

  /// Touches every line overlapping [addr, addr + bytes), in address order.
  void access(uint64_t addr, uint64_t bytes, AccessKind kind) {
    if (bytes == 0)
      return;
    uint64_t first = addr >> lineShift;
    uint64_t last = (addr + (bytes - 1)) >> lineShift;
    // One line (a tile row of a few bytes per K step, the common case):
    // its set's slot, here, without a call.
    if (first == last) {
      if (uint64_t set = first % sets; isSampledSet(set))
        accessLine(first, slotOfSet[set], kind);
      return;
    }
    accessLines(first, last, kind);
  }
  void read(uint64_t addr, uint64_t bytes) {
    access(addr, bytes, AccessKind::Read);
  }
  void write(uint64_t addr, uint64_t bytes) {
    access(addr, bytes, AccessKind::Write);
  }
  /// Writes back every dirty line (end of the program); lines stay valid.
  void flush();
  /// Empties the cache and zeroes the counts.
  void reset();

  /// Whether the line holding `addr` is cached; false for unsampled sets.
  bool contains(uint64_t addr) const;
  /// Whether the set holding `addr` is simulated.
  bool isSampled(uint64_t addr) const;

  const CacheConfig &config() const { return cfg; }
  const CacheCounts &counts() const { return cnt; }
  uint64_t numSets() const { return sets; }
  uint64_t numSampledSets() const { return sampledSets.size(); }
  /// numSets / numSampledSets: the factor applied to the counts.
  double scale() const;
  /// The counts scaled to the whole cache.
  CacheTraffic traffic() const;
  /// Line look-ups simulated so far: the cost of the simulation.
  uint64_t simulatedLineAccesses() const { return cnt.accesses(); }

private:
  struct Way {
    uint64_t line;
    bool dirty;
  };
  explicit Cache(const CacheConfig &config) : cfg(config) {}
  void accessLine(uint64_t line, uint32_t slot, AccessKind kind);
  void accessLines(uint64_t first, uint64_t last, AccessKind kind);

  CacheConfig cfg;
  CacheCounts cnt;
  /// Simulated set indices, ascending.
  std::vector<uint64_t> sampledSets;
  /// Set index -> position in sampledSets, or kUnsampled.
  std::vector<uint32_t> slotOfSet;
  static constexpr uint32_t kUnsampled = ~uint32_t(0);
  /// One bit per set, set for the sampled ones: a range finds its sampled
  /// lines in a table that stays in the first-level cache (a set's slot is
  /// looked up only for those).
  std::vector<uint64_t> sampledBits;
  bool isSampledSet(uint64_t set) const {
    return (sampledBits[set / 64] >> (set % 64)) & 1;
  }
  /// Ways of sampled set i at [i * ways, (i + 1) * ways), most recent first;
  /// the first used[i] of them are valid.
  std::vector<Way> lines;
  std::vector<uint32_t> used;
  /// Line fills (misses that read from below) per sampled set.
  std::vector<uint64_t> fillsPerSet;
  /// log2(lineBytes).
  unsigned lineShift = 0;
  /// cfg.numSets().
  uint64_t sets = 1;
};

} // namespace mlir::npu::gpumodel

#endif // NPU_GPUMODEL_CACHE_H
