//===- Cache.cpp - set-associative LRU cache simulator --------------------===//

#include "npu/GpuModel/Cache.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir::npu::gpumodel;

llvm::Error CacheConfig::verify() const {
  auto fail = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cache: " + msg);
  };
  if (sizeBytes == 0 || lineBytes == 0 || ways == 0)
    return fail("size, line and ways must be positive, got size " +
                llvm::Twine(sizeBytes) + ", line " + llvm::Twine(lineBytes) +
                ", ways " + llvm::Twine(ways));
  if (!llvm::isPowerOf2_64(lineBytes))
    return fail("line bytes must be a power of two, got " +
                llvm::Twine(lineBytes));
  if (sizeBytes % (lineBytes * ways) != 0)
    return fail(
        "size " + llvm::Twine(sizeBytes) +
        " is not a multiple of line * ways = " + llvm::Twine(lineBytes * ways));
  if (ways > kMaxWays)
    return fail("at most " + llvm::Twine(kMaxWays) + " ways, got " +
                llvm::Twine(ways));
  if (numSets() > kMaxSets)
    return fail("too many sets: " + llvm::Twine(numSets()));
  return llvm::Error::success();
}

/// splitmix64's finalizer: a fixed, well-mixed hash of the set index, so that
/// the sampled sets are spread with no stride in common with the stream.
static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

llvm::Expected<Cache> Cache::create(const CacheConfig &config,
                                    uint64_t sampleOneIn, uint64_t seed) {
  if (llvm::Error err = config.verify())
    return std::move(err);
  if (sampleOneIn == 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cache: sampleOneIn must be positive");
  Cache cache(config);
  uint64_t sets = config.numSets();
  cache.sets = sets;
  cache.slotOfSet.assign(sets, kUnsampled);
  for (uint64_t s = 0; s < sets; ++s) {
    if (sampleOneIn == 1 || mix(s ^ seed) % sampleOneIn == 0) {
      cache.slotOfSet[s] = cache.sampledSets.size();
      cache.sampledSets.push_back(s);
    }
  }
  // A tiny cache sampled coarsely may draw no set; keep one so that the
  // estimate is defined.
  if (cache.sampledSets.empty()) {
    cache.slotOfSet[0] = 0;
    cache.sampledSets.push_back(0);
  }
  cache.lineShift = llvm::Log2_64(config.lineBytes);
  cache.sampledBits.assign(llvm::divideCeil(sets, 64), 0);
  for (uint64_t s : cache.sampledSets)
    cache.sampledBits[s / 64] |= uint64_t(1) << (s % 64);
  cache.lines.assign(cache.sampledSets.size() * config.ways, Way{0, false});
  cache.used.assign(cache.sampledSets.size(), 0);
  cache.fillsPerSet.assign(cache.sampledSets.size(), 0);
  return cache;
}

void Cache::accessLine(uint64_t line, uint32_t slot, AccessKind kind) {
  bool isWrite = kind == AccessKind::Write;
  Way *set = &lines[uint64_t(slot) * cfg.ways];
  uint32_t &n = used[slot];
  for (uint32_t i = 0; i < n; ++i) {
    if (set[i].line != line)
      continue;
    // Hit: move to the most-recently-used position.
    Way hit = set[i];
    std::move_backward(set, set + i, set + i + 1);
    set[0] = Way{line, hit.dirty || isWrite};
    ++(isWrite ? cnt.writeHits : cnt.readHits);
    return;
  }
  ++(isWrite ? cnt.writeMisses : cnt.readMisses);
  if (!isWrite || cfg.fetchOnWriteMiss)
    ++fillsPerSet[slot];
  if (n == cfg.ways) {
    // Evict the least recently used way, the last one.
    ++cnt.evictions;
    if (set[n - 1].dirty)
      ++cnt.dirtyEvictions;
    --n;
  }
  std::move_backward(set, set + n, set + n + 1);
  set[0] = Way{line, isWrite};
  ++n;
}

void Cache::accessLines(uint64_t first, uint64_t last, AccessKind kind) {
  // Lines first..last map to consecutive sets, wrapping at numSets. Walk the
  // range one wrap at a time and visit only the sampled sets inside it, in
  // address order: O(sampled lines + wraps + range / 64).
  uint64_t line = first;
  while (true) {
    uint64_t set = line % sets;
    uint64_t wrapEnd = std::min(last, line + (sets - 1 - set));
    uint64_t setEnd = set + (wrapEnd - line);
    // The sampled sets of [set, setEnd], a word of the bit table at a time.
    for (uint64_t w = set / 64; w <= setEnd / 64; ++w) {
      uint64_t bits = sampledBits[w];
      if (w == set / 64)
        bits &= ~uint64_t(0) << (set % 64);
      if (w == setEnd / 64 && setEnd % 64 != 63)
        bits &= (uint64_t(1) << (setEnd % 64 + 1)) - 1;
      for (; bits; bits &= bits - 1) {
        uint64_t s = w * 64 + llvm::countr_zero(bits);
        accessLine(line + (s - set), slotOfSet[s], kind);
      }
    }
    if (wrapEnd == last)
      return;
    line = wrapEnd + 1;
  }
}

void Cache::flush() {
  for (uint64_t slot = 0; slot < used.size(); ++slot) {
    Way *set = &lines[slot * cfg.ways];
    for (uint32_t i = 0; i < used[slot]; ++i) {
      if (!set[i].dirty)
        continue;
      set[i].dirty = false;
      ++cnt.flushWritebacks;
    }
  }
}

void Cache::reset() {
  cnt = CacheCounts();
  std::fill(used.begin(), used.end(), 0);
  std::fill(fillsPerSet.begin(), fillsPerSet.end(), 0);
}

bool Cache::isSampled(uint64_t addr) const {
  return slotOfSet[(addr / cfg.lineBytes) % numSets()] != kUnsampled;
}

bool Cache::contains(uint64_t addr) const {
  uint64_t line = addr / cfg.lineBytes;
  uint32_t slot = slotOfSet[line % numSets()];
  if (slot == kUnsampled)
    return false;
  const Way *set = &lines[uint64_t(slot) * cfg.ways];
  return llvm::any_of(llvm::ArrayRef<Way>(set, used[slot]),
                      [&](const Way &w) { return w.line == line; });
}

double Cache::scale() const {
  return double(numSets()) / double(sampledSets.size());
}

CacheTraffic Cache::traffic() const {
  double k = scale();
  double line = double(cfg.lineBytes);
  CacheTraffic t;
  t.accesses = k * double(cnt.accesses());
  t.hits = k * double(cnt.hits());
  t.misses = k * double(cnt.misses());
  t.evictions = k * double(cnt.evictions);
  uint64_t fills =
      cnt.readMisses + (cfg.fetchOnWriteMiss ? cnt.writeMisses : 0);
  t.bytesFromBelow = k * double(fills) * line;
  t.bytesToBelow = k * double(cnt.dirtyEvictions + cnt.flushWritebacks) * line;
  t.hitRate = cnt.accesses() ? double(cnt.hits()) / double(cnt.accesses()) : 0;

  // Standard error of the estimate numSets * mean(fills of a sampled set)
  // under simple random sampling of n of the S sets without replacement:
  // S * sqrt(var / n * (1 - n / S)), var the sample variance of the fills.
  double n = double(fillsPerSet.size()), sets = double(numSets());
  if (n > 1 && n < sets) {
    double mean = 0, var = 0;
    for (uint64_t f : fillsPerSet)
      mean += double(f);
    mean /= n;
    for (uint64_t f : fillsPerSet)
      var += (double(f) - mean) * (double(f) - mean);
    var /= n - 1;
    t.bytesFromBelowStdErr = sets * std::sqrt(var / n * (1 - n / sets)) * line;
  }
  return t;
}
