//===- TpuCostModelTest.cpp - closed forms of the TPU-like cost model -----===//

#include "npu/Analysis/TpuCostModel.h"
#include "WorkTestUtils.h"
#include "npu/Target/Target.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::testing;

namespace {
class TpuCostModelTest : public WorkTest {
protected:
  TpuParams params(StringRef name) {
    TargetAttr t = target(name);
    FailureOr<TpuParams> p =
        t ? TpuParams::get(t) : FailureOr<TpuParams>(failure());
    EXPECT_TRUE(succeeded(p));
    return *p;
  }
  KernelDesc gemm(int64_t m, int64_t n, int64_t k) {
    KernelDesc d;
    d.kind = KernelKind::Gemm;
    d.loops = {1, m, n, k};
    d.matrixType = BFloat16Type::get(&context);
    d.lhsBytes = d.rhsBytes = d.outBytes = 2;
    d.work.matrixFlops = Count(2) * Count(m) * Count(n) * Count(k);
    return d;
  }
  /// Causal bf16 self-attention (Sq = Skv = s, head dim d) over `heads`
  /// KV heads of `group` query heads each.
  KernelDesc attention(int64_t heads, int64_t group, int64_t s, int64_t d) {
    KernelDesc k;
    k.kind = KernelKind::Attention;
    k.loops = {heads, s, s, d, s, s};
    k.group = group;
    k.vDim = d;
    k.causal = true;
    k.matrixType = BFloat16Type::get(&context);
    k.lhsBytes = k.rhsBytes = k.outBytes = 2;
    return k;
  }
  /// A bf16 gated MLP (loops M, F, D).
  KernelDesc gatedMlp(int64_t m, int64_t f, int64_t dm) {
    KernelDesc d;
    d.kind = KernelKind::GatedMlp;
    d.loops = {m, f, dm};
    d.matrixType = BFloat16Type::get(&context);
    d.lhsBytes = d.rhsBytes = d.outBytes = 2;
    return d;
  }
};

/// Visited (query tile, KV tile) pairs by enumeration.
int64_t bruteVisited(int64_t sq, int64_t skv, int64_t tq, int64_t tkv,
                     bool causal, int64_t window, int64_t firstTile = 0,
                     int64_t chunk = 0) {
  int64_t off = skv - sq, count = 0;
  for (int64_t qt = 0; qt * tq < sq; ++qt)
    for (int64_t kt = firstTile; kt * tkv < skv; ++kt) {
      bool any = false;
      for (int64_t i = qt * tq; i < std::min(sq, (qt + 1) * tq) && !any; ++i)
        for (int64_t j = kt * tkv; j < std::min(skv, (kt + 1) * tkv); ++j) {
          // Chunks: the query's position and the key in one chunk.
          bool visible =
              !causal ||
              (j <= off + i && (window == 0 || j > off + i - window) &&
               (chunk == 0 || j / chunk == (off + i) / chunk));
          if (visible) {
            any = true;
            break;
          }
        }
      count += any;
    }
  return count;
}
} // namespace

TEST(FloorSumTest, MatchesTheSum) {
  for (int64_t n = 1; n <= 12; ++n)
    for (int64_t m = 1; m <= 9; ++m)
      for (int64_t a = 0; a <= 11; ++a)
        for (int64_t b = 0; b <= 13; ++b) {
          int64_t expect = 0;
          for (int64_t i = 0; i < n; ++i)
            expect += (a * i + b) / m;
          ASSERT_EQ(static_cast<int64_t>(floorSum(n, m, a, b)), expect)
              << n << " " << m << " " << a << " " << b;
        }
}

TEST(VisitedTilesTest, MatchesEnumeration) {
  // Every pair (with a window), and the pairs from a K/V tile on (without).
  for (int64_t sq : {1, 5, 16, 37})
    for (int64_t extra : {0, 3, 20})
      for (int64_t tq : {1, 4, 8, 16})
        for (int64_t tkv : {1, 4, 8, 16})
          for (bool causal : {false, true}) {
            int64_t skv = sq + extra;
            for (int64_t window : {0, 1, 6, 64}) {
              if (!causal && window)
                continue;
              ASSERT_EQ(countVisitedTiles(sq, skv, tq, tkv, causal, window, 0),
                        bruteVisited(sq, skv, tq, tkv, causal, window))
                  << sq << " " << skv << " " << tq << " " << tkv << " "
                  << causal << " " << window;
            }
            // Chunks narrower and wider than the tiles, and than the keys
            // (both ways of summing: per chunk and per tile).
            for (int64_t chunk : {1, 3, 5, 8, 16, 64}) {
              if (!causal)
                continue;
              ASSERT_EQ(countVisitedTiles(sq, skv, tq, tkv, true, 0, chunk),
                        bruteVisited(sq, skv, tq, tkv, true, 0, 0, chunk))
                  << sq << " " << skv << " " << tq << " " << tkv << " chunk "
                  << chunk;
            }
            for (int64_t first : {0, 1, 2, 3, 7, 60})
              ASSERT_EQ(countVisitedTilesFrom(sq, skv, tq, tkv, causal, first),
                        bruteVisited(sq, skv, tq, tkv, causal, 0, first))
                  << sq << " " << skv << " " << tq << " " << tkv << " "
                  << causal << " from " << first;
          }
}

TEST(VisitedTilesTest, MillionTokensInClosedForm) {
  // 2^20 causal tokens, 512 x 512 tiles: 2048 query tiles, tile i visits
  // i + 1 KV tiles: 2048 * 2049 / 2.
  EXPECT_EQ(countVisitedTiles(1 << 20, 1 << 20, 512, 512, true, 0, 0),
            2048 * 2049 / 2);
  // Chunks of 8192 keys (16 tiles): each of the 128 chunks is its own
  // causal triangle of 16 * 17 / 2 tile pairs.
  EXPECT_EQ(countVisitedTiles(1 << 20, 1 << 20, 512, 512, true, 0, 8192),
            128 * (16 * 17 / 2));
  // From tile 1024 on: query tiles 1024..2047 visit i - 1023 of them.
  EXPECT_EQ(countVisitedTilesFrom(1 << 20, 1 << 20, 512, 512, true, 1024),
            1024 * 1025 / 2);
}

TEST(PaddedExtentTest, PadsEachTile) {
  EXPECT_EQ(paddedExtent(300, 128, 128), 384); // 128 + 128 + pad(44)
  EXPECT_EQ(paddedExtent(300, 100, 128), 384); // three tiles of 100 -> 128
  EXPECT_EQ(paddedExtent(1, 8, 8), 8);
  EXPECT_EQ(paddedExtent(256, 256, 128), 256);
}

TEST_F(TpuCostModelTest, HandPricedGemmOnMockTpu) {
  // The worked example of docs/cost-model-tpu.md (and of
  // test/Backend/tpu-estimate-cost.mlir).
  TpuParams p = params("mock-tpu");
  KernelDesc d = gemm(64, 64, 128);
  std::optional<TpuCost> c = getTpuPhaseCost(d, {1, 32, 64, 128}, 2, p);
  ASSERT_TRUE(c);
  // B is one block whole: loaded once with the first A tile and held.
  EXPECT_NEAR(c->timeNs, 828.0, 1e-9);
  EXPECT_NEAR(c->computeNs, 256.0, 1e-9);
  EXPECT_NEAR(c->memoryNs, 400.0, 1e-9);
  EXPECT_EQ(c->hbmReadBytes.value(), 32768u);
  EXPECT_EQ(c->hbmWriteBytes.value(), 8192u);
  EXPECT_EQ(c->sramBytes, 65536);
  EXPECT_EQ(c->getBound(), CostBound::Overhead);
  // One buffer: no overlap, P = compute stage + in + out (the second step
  // loads its A tile only: 130 ns); the fill (the first A tile and B) and
  // the drain (the last C tile) as before.
  std::optional<TpuCost> single = getTpuPhaseCost(d, {1, 32, 64, 128}, 1, p);
  ASSERT_TRUE(single);
  EXPECT_NEAR(single->timeNs, 340.0 + 178.0 + 90.0 + (178.0 + 130.0 + 90.0),
              1e-9);
}

TEST_F(TpuCostModelTest, ChunkedLoadsShortenTheFill) {
  // GEMM 64 x 64 x 128 in bf16 as one step on mock-tpu: compute 2 * 64 * 64
  // * 128 / 4096 = 256 ns (s = 306); A and B 32768 B, C 8192 B. Unchunked,
  // the step waits for all of A and B: fill 32768 / 102.4 + 100 * 2 / 2 =
  // 420, drain 8192 / 102.4 + 100 / 2 = 130.
  TpuParams p = params("mock-tpu");
  KernelDesc d = gemm(64, 64, 128);
  std::optional<TpuCost> whole = getTpuPhaseCost(d, {1, 64, 64, 128}, 2, p);
  ASSERT_TRUE(whole);
  EXPECT_NEAR(whole->timeNs, 420.0 + 306.0 + 130.0, 1e-9);
  // 4 K chunks of 32: compute starts after the first chunk (8192 B: 80 ns);
  // each later chunk takes 80 ns to arrive but its predecessor computes for
  // only 256 / 4 = 64, so each delays compute by 16. The DMA setup per
  // chunk pair is the unchunked step's: 100 * 8 / 2 / 4 = 100. With one K
  // step the last chunk computes in 4 row bands of 16 rows, each stored
  // when done: a band's 2048 B take 20 ns against 16 of compute, so the
  // last band's store ends 20 + 3 * 4 after the compute, plus its setup
  // 100 * 4 / 2 / 4 = 50.
  std::optional<TpuCost> chunked =
      getTpuPhaseCost(d, {1, 64, 64, 128}, 2, p, 4);
  ASSERT_TRUE(chunked);
  EXPECT_NEAR(chunked->timeNs,
              (80.0 + 3 * 16.0 + 100.0) + 306.0 + (20.0 + 3 * 4.0 + 50.0),
              1e-9);
  // Two K steps of 64 in 2 chunks each: the output tile is complete only
  // after the K loop and is stored whole. Per step c = 128 (s = 178), i =
  // 16384 / 102.4 + 100 * 4 / 2 = 360, o = 4096 / 102.4 + 100 / 2 / 2 = 65,
  // p = 425; fill = 8192 / 102.4 + (80 - 64) + 100 = 196; drain = 8192 /
  // 102.4 + 25 = 105.
  std::optional<TpuCost> twoSteps =
      getTpuPhaseCost(d, {1, 64, 64, 64}, 2, p, 2);
  ASSERT_TRUE(twoSteps);
  EXPECT_NEAR(twoSteps->timeNs, 196.0 + 178.0 + 105.0 + 425.0, 1e-9);
  EXPECT_EQ(chunked->hbmReadBytes.value(), whole->hbmReadBytes.value());
  // Chunks must split a static K tile: not 3 of 128, nor K tiles of 96 that
  // leave a short last one.
  EXPECT_FALSE(getTpuPhaseCost(d, {1, 64, 64, 128}, 2, p, 3));
  EXPECT_FALSE(getTpuPhaseCost(gemm(64, 64, 128), {1, 64, 64, 96}, 2, p, 2));
}

TEST_F(TpuCostModelTest, OddKStepsRefillEachOutputTile) {
  // GEMM 64 x 64, K = 96 in 3 steps of 32, on mock-tpu (one core): two
  // output tiles of 32 x 64, 6 steps. The lowering loads a tile's first K
  // step during the previous tile only when the K loop's last step reads
  // the other buffer slot (an even number of K steps): with 3, the second
  // tile waits for its first A and B tiles (docs/cost-model-tpu.md).
  TpuParams p = params("mock-tpu");
  std::optional<TpuCost> c =
      getTpuPhaseCost(gemm(64, 64, 96), {1, 32, 64, 32}, 2, p);
  ASSERT_TRUE(c);
  // c = 786432 / 6 / 4096 = 32, s = 82; i = 36864 / 6 / 102.4 + 100 * 12 /
  // 6 / 2 = 160, o = 8192 / 6 / 102.4 + 100 * 2 / 6 / 2 = 30, p = 190;
  // fill = 6144 / 102.4 + 100 = 160, drain = 4096 / 102.4 + 100 / 6 =
  // 56.667; refill = the first A and B tiles, 6144 / 102.4 + 100 * 2 / 2.
  // The step before the refill prefetches nothing: it takes max(s, o) = 82,
  // not p = 190.
  double pipelined = 160.0 + 82.0 + (40.0 + 100.0 / 6.0) + 5 * 190.0;
  EXPECT_NEAR(c->timeNs, pipelined + (60.0 + 100.0) - (190.0 - 82.0), 1e-6);
  // One buffer: every load is waited in place anyway; no refill term.
  std::optional<TpuCost> single =
      getTpuPhaseCost(gemm(64, 64, 96), {1, 32, 64, 32}, 1, p);
  ASSERT_TRUE(single);
  EXPECT_NEAR(single->timeNs,
              160.0 + 82.0 + (40.0 + 100.0 / 6.0) + 5 * (82.0 + 190.0), 1e-6);
}

TEST_F(TpuCostModelTest, OddFTilesRefillEachRowTile) {
  // Gated MLP M = 64, F = 96, D = 32 in tiles [32, 32, 32] on mock-tpu: 2 M
  // tiles, each an F loop of 3 steps; the second M tile waits for its first
  // three weight tiles (6144 B in 3 DMAs).
  TpuParams p = params("mock-tpu");
  KernelDesc d = gatedMlp(64, 96, 32);
  std::optional<TpuCost> c = getTpuPhaseCost(d, {32, 32, 32}, 2, p);
  ASSERT_TRUE(c);
  // Mp = 2 * 393216 + 393216: c = 48, s = 98; R = 4096 + 36864 in 20 DMAs,
  // W = 4096 in 2: i = 233.333, o = 23.333, p = 256.667; fill = 8192 /
  // 102.4 + 166.667, drain = 2048 / 102.4 + 16.667; refill = 6144 / 102.4 +
  // 100 * 3 / 2; the step before it takes max(s, o) = 98, not p.
  double pipelined =
      (80.0 + 500.0 / 3.0) + 98.0 + (20.0 + 50.0 / 3.0) + 5 * (770.0 / 3.0);
  EXPECT_NEAR(c->timeNs, pipelined + (60.0 + 150.0) - (770.0 / 3.0 - 98.0),
              1e-6);
}

TEST_F(TpuCostModelTest, CoresTakeWholeMTilesWhenTheyDivide) {
  // tpu-v7's two cores. A gated MLP of 512 rows in M tiles of 256: each
  // core takes one whole M tile (Pallas's megacore shards the parallel
  // dimension), so no partial sums cross between them. With 768 rows (3 M
  // tiles) the F tiles are split instead, and one core's f32 partial sum
  // of y (768 x 256 x 4 B) is written and read back by the other.
  TpuParams p = params("tpu-v7");
  ASSERT_EQ(p.cores, 2);
  std::optional<TpuCost> even =
      getTpuPhaseCost(gatedMlp(512, 1024, 256), {256, 256, 256}, 2, p);
  std::optional<TpuCost> odd =
      getTpuPhaseCost(gatedMlp(768, 1024, 256), {256, 256, 256}, 2, p);
  ASSERT_TRUE(even && odd);
  EXPECT_EQ(even->crossCoreBytes.value(), 0u);
  EXPECT_EQ(odd->crossCoreBytes.value(), uint64_t(768 * 256 * 4));
}

TEST_F(TpuCostModelTest, GatedMlpNormTileIsOnChip) {
  // The same gated MLP with a norm of x in each M tile (what
  // npu-tile-kernels fuses into the M loop): its bf16 output tile (32 x
  // 32), the rows' f32 sum and scale (32 x 8 B) and the weight vector (32
  // bf16, per buffer) are held besides the rest.
  KernelDesc d = gatedMlp(64, 96, 32);
  int64_t plain = getTpuWorkingSet(d, {32, 32, 32}, 2);
  d.normBytes = 2;
  EXPECT_EQ(getTpuWorkingSet(d, {32, 32, 32}, 2) - plain,
            32 * 32 * 2 + 32 * 8 + 2 * 32 * 2);
}

TEST_F(TpuCostModelTest, GemmNormTileIsOnChip) {
  // A GEMM whose A is normalized in each M tile (npu-tile-kernels fuses the
  // norm into the tile loops; K is whole, so tk = K): the same three terms
  // as the gated MLP's, the normalized bf16 tile (64 x 128), the rows' f32
  // sum and scale (64 x 8 B) and the weight vector (128 bf16, per buffer).
  KernelDesc d = gemm(256, 256, 128);
  int64_t plain = getTpuWorkingSet(d, {1, 64, 32, 128}, 2);
  d.normBytes = 2;
  EXPECT_EQ(getTpuWorkingSet(d, {1, 64, 32, 128}, 2) - plain,
            64 * 128 * 2 + 64 * 8 + 2 * 128 * 2);
}

TEST_F(TpuCostModelTest, MoeRoutedRowsAreGathered) {
  // A routed expert of 40 rows in M tiles of 32 (2 tiles, the last padded),
  // F = 64 in tiles of 32, D = 128, as TileMoe.cpp lowers it: 64 gathered
  // rows of x (one DMA each), the weights once per M tile, and the tiles'
  // 64 bf16 output rows stored one copy each at their assignments' rows
  // (the padded ones repeat the last real row).
  TpuParams p = params("tpu-v7");
  KernelDesc d = gatedMlp(40, 64, 128);
  d.kind = KernelKind::MoeFfn;
  d.gatheredRows = true;
  std::optional<TpuCost> c = getTpuPhaseCost(d, {32, 32, 128}, 2, p);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->hbmReadBytes.value(), 64ull * 128 * 2 + 2ull * 3 * 64 * 128 * 2);
  EXPECT_EQ(c->hbmWriteBytes.value(), 64ull * 128 * 2);
  // Three such experts are one loop nest: three times the bytes and the
  // steps, in one pipeline (one fill, one drain). These tiles' weights load
  // in less time than a tile's row chains take (its gather before its first
  // step, its stores after its last, each 32 rows at 500 ns per 32 in
  // flight), and the core waits for those chains, so a tile costs what a
  // pipeline of its own would: no more.
  KernelDesc three = d;
  three.repeat = 3;
  std::optional<TpuCost> c3 = getTpuPhaseCost(three, {32, 32, 128}, 2, p);
  ASSERT_TRUE(c3);
  EXPECT_EQ(c3->hbmReadBytes.value(), 3 * c->hbmReadBytes.value());
  EXPECT_EQ(c3->hbmWriteBytes.value(), 3 * c->hbmWriteBytes.value());
  EXPECT_EQ(c3->steps, 3 * c->steps);
  EXPECT_LE(c3->timeNs, 3 * c->timeNs);
  // One DMA per row costs its setup: 64 gathered rows take longer than two
  // tiles of 32 rows would.
  d.gatheredRows = false;
  d.loops[0] = 64;
  std::optional<TpuCost> tiles = getTpuPhaseCost(d, {32, 32, 128}, 2, p);
  ASSERT_TRUE(tiles);
  EXPECT_GT(c->timeNs, tiles->timeNs);
}

TEST_F(TpuCostModelTest, MoeVisitsPrefetchAsLowered) {
  // Four experts of 64 gathered rows in M tiles of 32: 8 visits, 4 per
  // core of tpu-v7. With two buffers npu-tpu-double-buffer issues the next
  // visit's first weights and rows during this visit's last step when the
  // visit's first pipelined loop is its own: one F tile with D in chunks
  // (the gate and up loop), or an even number of F tiles of D whole. Then no
  // visit refills; it pays only what its rows' chain and the last step
  // take beyond those loads, less than a refill. With three buffers (no
  // such handoff), or where the F loop is that loop (two F tiles with D in
  // chunks, three of D whole), every visit refills, whatever the buffers.
  TpuParams p = params("tpu-v7");
  KernelDesc d = gatedMlp(64, 512, 1024);
  d.kind = KernelKind::MoeFfn;
  d.gatheredRows = true;
  d.repeat = 4;
  auto time = [&](SmallVector<int64_t> tile, int64_t buffers, int64_t f) {
    KernelDesc k = d;
    k.loops[1] = f;
    std::optional<TpuCost> c = getTpuPhaseCost(k, tile, buffers, p);
    return c ? c->timeNs : -1.0;
  };
  // One F tile, D in 2 chunks; two F tiles of D whole.
  for (auto [tile, f] : {std::pair{SmallVector<int64_t>{32, 512, 512}, 512},
                         std::pair{SmallVector<int64_t>{32, 256, 1024}, 512}}) {
    double two = time(tile, 2, f), three = time(tile, 3, f);
    ASSERT_GT(two, 0.0);
    ASSERT_GT(three, 0.0);
    EXPECT_LT(two, three);
  }
  // Two F tiles with D in chunks; three F tiles of D whole.
  for (auto [tile, f] : {std::pair{SmallVector<int64_t>{32, 256, 512}, 512},
                         std::pair{SmallVector<int64_t>{32, 256, 1024}, 768}}) {
    double two = time(tile, 2, f), three = time(tile, 3, f);
    ASSERT_GT(two, 0.0);
    EXPECT_DOUBLE_EQ(two, three);
  }
}

/// A MoE layer of 64 tokens, top 2 of 4 experts, i32 indices and f32
/// routing weights.
static constexpr const char *kMoeLayer = R"mlir(
  func.func @m(%x: tensor<64x32xbf16>, %i: tensor<64x2xi32>, %w: tensor<64x2xf32>, %g: tensor<4x64x32xbf16>, %u: tensor<4x64x32xbf16>, %d: tensor<4x32x64xbf16>) -> tensor<64x32xbf16> {
    %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<uniform>) : tensor<64x32xbf16>, tensor<64x2xi32>, tensor<64x2xf32>, tensor<4x64x32xbf16>, tensor<4x64x32xbf16>, tensor<4x32x64xbf16> -> tensor<64x32xbf16>
    return %y : tensor<64x32xbf16>
  })mlir";

TEST_F(TpuCostModelTest, MoeRowStoresRunBesideTheNextStepsLoads) {
  // DeepSeek-V3's expert shape in bf16 on tpu-v7 (2 cores), experts of 64
  // gathered rows, F = 2048 in 4 tiles of 512, D = 7168 whole. A visit's 64
  // output rows are stored (one copy each, 32 in flight at 500 ns: a 1000
  // ns chain) by the next visit's first F step, after it issued its second
  // step's loads (TileMoe.cpp), and the next visit's first weights and rows
  // load during this visit's last step. The steps are memory-bound: each
  // moves 3 x 512 x 7168 x 2 B of weights and, on average, a quarter of a
  // visit's 64 gathered and 64 stored rows of 7168 x 2 B, at half of the
  // calibrated 6.62861 TB/s per core, plus 3 DMA setups over 4 engines:
  // (22020096 + 2 x 229376) / 3314.305 + 375 = 7157.3 ns. The chains and
  // a step's compute (a 256-row pass of the matrix unit, ~5.6 us) fit in
  // that period, so one more visit per core costs exactly its 4 steps.
  // (Stored before the next visit's first loads, as until 2026-12-07, the
  // last step ran both chains and its compute beside the next weights: a
  // few hundred ns more per visit.)
  TpuParams p = params("tpu-v7");
  KernelDesc d = gatedMlp(64, 2048, 7168);
  d.kind = KernelKind::MoeFfn;
  d.gatheredRows = true;
  auto time = [&](int64_t experts) {
    KernelDesc k = d;
    k.repeat = experts;
    std::optional<TpuCost> c = getTpuPhaseCost(k, {64, 512, 7168}, 2, p);
    return c ? c->timeNs : -1.0;
  };
  double two = time(2), four = time(4);
  ASSERT_GT(two, 0.0);
  double period = (22020096.0 + 2 * 229376.0) / 3314.305 + 375.0;
  EXPECT_NEAR(four - two, 4 * period, 1.0);
}

TEST_F(TpuCostModelTest, MoeDispatchRanksDenselyThenSorts) {
  // A MoE layer of 64 tokens, top 2 of 4 experts: 128 assignments. Its
  // dispatch counts them on the vector unit: counts 2 x 128 x 4 = 1024,
  // offsets 2 x 4 x 4 = 32. Then the order: mock-tpu's 512 KiB hold 128
  // keys at 64 bytes each (8192), so a bitonic sort, on the vector unit
  // too: the keys 7 x 128, 7 x 8 / 2 = 28 passes of 8 x 128, the order 128:
  // 29696 operations, all at mock-tpu's 256 per ns, before the expert
  // loops. Where the keys do not fit, each assignment's position in
  // expert order first (`where`, one block of 256: its counts
  // 3 x 256 x 4 = 3072, the blocks before 1 x 4 = 4, ranks in the block
  // 3 x 256 x 256 = 196608, where 2 x 256 = 512, the clamps 2 x 128 = 256:
  // 200452, from the indices read again, 128 x 4 B), then the scalar
  // scatter (4 x 128 operations) and the order through HBM (128 x 8 B).
  OwningOpRef<ModuleOp> module = parse(kMoeLayer);
  ASSERT_TRUE(module);
  Operation *moe = &module->getBody()->front().getRegion(0).front().front();
  FailureOr<KernelModel> m = describeKernel(KernelKind::MoeFfn, {moe});
  ASSERT_TRUE(succeeded(m));
  EXPECT_EQ(m->serialVectorFlops, 1056);
  EXPECT_EQ(m->serialScalarOps, 0);
  ASSERT_TRUE(m->dispatchOrder);
  EXPECT_EQ(m->dispatchOrder->sortVectorFlops, 29696);
  EXPECT_EQ(m->dispatchOrder->whereVectorFlops, 200452);
  EXPECT_EQ(m->dispatchOrder->scatterScalarOps, 128 * 4);
  EXPECT_TRUE(moeDispatchSorts(128, 8192));
  EXPECT_FALSE(moeDispatchSorts(128, 8191));
  EXPECT_FALSE(moeDispatchSorts(129, 8192)); // 256 keys
  TpuParams p = params("mock-tpu");
  // The sorted order (128 i64) stays on chip beside the routed tiles only.
  KernelModel tpu = withTpuDispatch(*m, p);
  EXPECT_EQ(tpu.phases[tpu.mainPhase].heldBytes -
                m->phases[m->mainPhase].heldBytes,
            128 * 8);
  ASSERT_EQ(tpu.phases.size(), 2u);
  EXPECT_EQ(tpu.phases[1].heldBytes, m->phases[1].heldBytes);
  std::optional<TpuTileChoice> tile =
      chooseTpuTile(tpu.phases[tpu.mainPhase], p);
  ASSERT_TRUE(tile);
  std::optional<TpuCost> with =
      getTpuKernelCost(tpu, tile->tile, tile->buffers, p);
  tpu.serialVectorFlops = 0;
  tpu.dispatchOrder.reset();
  std::optional<TpuCost> without =
      getTpuKernelCost(tpu, tile->tile, tile->buffers, p);
  ASSERT_TRUE(with && without);
  EXPECT_DOUBLE_EQ(with->timeNs - without->timeNs, (1056.0 + 29696.0) / 256.0);
  EXPECT_DOUBLE_EQ(with->overheadNs - without->overheadNs, 0.0);
  EXPECT_DOUBLE_EQ(with->computeNs - without->computeNs,
                   (1056.0 + 29696.0) / 256.0);
  // A core whose SRAM does not hold the keys scatters.
  p.sramBytes = 8191;
  KernelModel scattered = withTpuDispatch(*m, p);
  EXPECT_EQ(scattered.serialVectorFlops, 1056 + 200452);
  EXPECT_EQ(scattered.serialScalarOps, 128 * 4);
  EXPECT_EQ(scattered.serialReadBytes - m->serialReadBytes, 128 * 4);
  EXPECT_EQ(scattered.serialWriteBytes - m->serialWriteBytes, 128 * 8);
  EXPECT_EQ(scattered.phases[scattered.mainPhase].heldBytes,
            m->phases[m->mainPhase].heldBytes);
}

TEST_F(TpuCostModelTest, MoeVisitTableIsPricedWithTheTile) {
  // The same layer's visit table (TileMoeDispatch.cpp, buildVisits): 128
  // assignments over 4 experts (the plan: 4 x 32 rows). With M tiles of 24
  // rows it has room for min(128, (128 + 4 x 23) / 24) = 9 visits (the
  // plan makes 4 x 2 = 8); its vector operations are the tiles 2 x 4, their
  // prefix sum 2 x 4 x 4, their sum 4 and per (visit, expert) 3 x 9 x 4:
  // 152. With M tiles of 32, room for (128 + 4 x 31) / 32 = 7: 128.
  OwningOpRef<ModuleOp> module = parse(kMoeLayer);
  ASSERT_TRUE(module);
  Operation *moe = &module->getBody()->front().getRegion(0).front().front();
  FailureOr<KernelModel> m = describeKernel(KernelKind::MoeFfn, {moe});
  ASSERT_TRUE(succeeded(m) && m->dispatchOrder);
  EXPECT_EQ(m->dispatchOrder->plannedRows, 128);
  EXPECT_EQ(moeVisitTableSize(128, 128, 4, 24), 9);
  EXPECT_EQ(moeVisitTableSize(128, 128, 4, 32), 7);
  TpuParams p = params("mock-tpu");
  KernelModel resolved = withTpuDispatch(*m, p);
  for (auto [tileM, ops] : {std::pair{24, 152.0}, std::pair{32, 128.0}}) {
    SmallVector<int64_t> tile = {tileM, 64, 32};
    std::optional<TpuCost> with = getTpuKernelCost(*m, tile, 2, p);
    std::optional<TpuCost> without = getTpuKernelCost(resolved, tile, 2, p);
    ASSERT_TRUE(with && without);
    EXPECT_DOUBLE_EQ(with->timeNs - without->timeNs, ops / p.vectorPerNs);
    EXPECT_DOUBLE_EQ(with->computeNs - without->computeNs, ops / p.vectorPerNs);
  }
}

TEST_F(TpuCostModelTest, MoeDispatchArraysAreCountedAsLowered) {
  // The same layer's dispatch arrays as the lowering moves them in bulk:
  // the i32 indices loaded on chip for the count pass (128 x 4; the padded
  // blocks of a scattered order's `where` read them again: above) and the
  // f32 routing weights by the combine (128 x 4).
  // The sorted `order` stays on chip; a GPU-like dispatch kernel writes it
  // (128 x 8) for the grouped GEMMs after it.
  OwningOpRef<ModuleOp> module = parse(kMoeLayer);
  ASSERT_TRUE(module);
  Operation *moe = &module->getBody()->front().getRegion(0).front().front();
  FailureOr<KernelModel> m = describeKernel(KernelKind::MoeFfn, {moe});
  ASSERT_TRUE(succeeded(m));
  EXPECT_EQ(m->serialReadBytes, 128 * 4 + 128 * 4);
  EXPECT_EQ(m->serialWriteBytes, 0);
  EXPECT_EQ(m->dispatchOrder->orderBytes, 128 * 8);
  // Counted in the traffic, and their time at one core's bandwidth before
  // the loops.
  TpuParams p = params("mock-tpu");
  KernelModel tpu = withTpuDispatch(*m, p);
  std::optional<TpuTileChoice> tile =
      chooseTpuTile(tpu.phases[tpu.mainPhase], p);
  ASSERT_TRUE(tile);
  std::optional<TpuCost> with =
      getTpuKernelCost(tpu, tile->tile, tile->buffers, p);
  tpu.serialReadBytes = 0;
  std::optional<TpuCost> without =
      getTpuKernelCost(tpu, tile->tile, tile->buffers, p);
  ASSERT_TRUE(with && without);
  EXPECT_EQ(with->hbmReadBytes.value() - without->hbmReadBytes.value(), 1024u);
  EXPECT_EQ(with->hbmWriteBytes.value(), without->hbmWriteBytes.value());
  EXPECT_DOUBLE_EQ(with->timeNs - without->timeNs, 1024.0 / p.hbmBytesPerNs);
  EXPECT_DOUBLE_EQ(with->memoryNs - without->memoryNs,
                   1024.0 / p.hbmBytesPerNs);
}

TEST_F(TpuCostModelTest, PhaseHandOffIsHeldWhole) {
  // A GEMM whose output the next phase of its kernel reads on chip holds
  // all of it (2 x 64 x 96 bf16) beside its tiles; one whose input an
  // earlier phase left there holds its whole A (2 x 64 x 128 bf16).
  KernelDesc d = gemm(64, 96, 128);
  d.loops[0] = 2;
  int64_t plain = getTpuWorkingSet(d, {1, 32, 32, 128}, 2);
  d.outputOnChip = true;
  EXPECT_EQ(getTpuWorkingSet(d, {1, 32, 32, 128}, 2) - plain, 2 * 64 * 96 * 2);
  d.outputOnChip = false;
  d.inputOnChip = true;
  EXPECT_EQ(getTpuWorkingSet(d, {1, 32, 32, 128}, 2) - plain, 2 * 64 * 128 * 2);
}

TEST_F(TpuCostModelTest, RouterRowStateIsHeldOnce) {
  // A router kernel (64 tokens, 256 experts, top 8, sigmoid, no bias): its
  // lowering holds per token the f32 scores (4 B per expert) and the top-k's
  // 8 slots of (f32 value, i64 expert, f32 score) plus the triple they are
  // filled from, each a buffer of its own (aligned to 64 bytes), beside the
  // rows it moves; once, however many buffers.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @r(%l: tensor<64x256xf32>) -> (tensor<64x8xi32>, tensor<64x8xf32>) {
      %i, %w = npu.moe_router %l top_k(8) scoring(sigmoid) : tensor<64x256xf32> -> tensor<64x8xi32>, tensor<64x8xf32>
      return %i, %w : tensor<64x8xi32>, tensor<64x8xf32>
    })mlir");
  ASSERT_TRUE(module);
  Operation *router = &module->getBody()->front().getRegion(0).front().front();
  FailureOr<KernelModel> m = describeKernel(KernelKind::Stream, {router});
  ASSERT_TRUE(succeeded(m));
  KernelDesc d = m->phases.front();
  SmallVector<int64_t> state = {4 * 256};
  for (int slot = 0; slot <= 8; ++slot)
    state.append({4, 8, 4});
  EXPECT_EQ(d.rowStateBuffers, state);
  // A tile of 16 rows: the scores 16 x 1024 B, each triple 64 + 128 + 64
  // B; per buffer of rows moved, 16 x 1024 B of logits and 16 x 32 B of
  // each result (512 B).
  for (int64_t buffers : {1, 2})
    EXPECT_EQ(getTpuWorkingSet(d, {16, 8}, buffers),
              buffers * (16 * 1024 + 512 + 512) + 16 * 1024 + 9 * 256);
  // In 8 groups, with a softmax and a bias: the softmax's max and sum, the
  // biased selection scores, per group two f32 maxima, a f32 score and an
  // i64 rank, and the selection scores masked to the kept groups.
  OwningOpRef<ModuleOp> grouped = parse(R"mlir(
    func.func @r(%l: tensor<64x256xf32>, %b: tensor<256xf32>) -> (tensor<64x8xi32>, tensor<64x8xf32>) {
      %i, %w = npu.moe_router %l, %b top_k(8) scoring(softmax) groups(8, 4) : tensor<64x256xf32>, tensor<256xf32> -> tensor<64x8xi32>, tensor<64x8xf32>
      return %i, %w : tensor<64x8xi32>, tensor<64x8xf32>
    })mlir");
  ASSERT_TRUE(grouped);
  Operation *groupedRouter =
      &grouped->getBody()->front().getRegion(0).front().front();
  m = describeKernel(KernelKind::Stream, {groupedRouter});
  ASSERT_TRUE(succeeded(m));
  state = {4 * 256, 4, 4, 4 * 256, 32, 32, 32, 64, 4 * 256};
  for (int slot = 0; slot <= 8; ++slot)
    state.append({4, 8, 4});
  EXPECT_EQ(m->phases.front().rowStateBuffers, state);
}

TEST_F(TpuCostModelTest, TileThatDoesNotFitIsRejected) {
  TpuParams p = params("mock-tpu");
  EXPECT_FALSE(
      getTpuPhaseCost(gemm(1024, 1024, 1024), {1, 1024, 1024, 1024}, 2, p));
  // A tile larger than its loop is malformed.
  EXPECT_FALSE(getTpuPhaseCost(gemm(64, 64, 128), {1, 128, 64, 128}, 2, p));
}

TEST_F(TpuCostModelTest, PaddingToTheMatrixUnitCosts) {
  // K = 130 on a 128-wide matrix unit runs as K = 256.
  TpuParams p = params("tpu-v5e");
  std::optional<TpuTileChoice> c = chooseTpuTile(gemm(4096, 4096, 130), p);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->cost.paddedMatrixFlops.value(), 2ull * 4096 * 4096 * 256);
}

TEST_F(TpuCostModelTest, LargeGemmNearTheRoofline) {
  // Compute-bound GEMMs of 4096^3 and up: within 5% of the bound.
  for (StringRef t : {"tpu-v5e", "tpu-v7"}) {
    TpuParams p = params(t);
    for (int64_t n : {4096, 8192, 16384}) {
      KernelDesc d = gemm(n, n, n);
      std::optional<TpuTileChoice> c = chooseTpuTile(d, p);
      ASSERT_TRUE(c);
      double bound = double(2) * n * n * n /
                     (p.matrixPerNs(d.matrixType) * double(p.cores));
      // The aim for 4096^3 is 5%; on tpu-v7 (two cores, 60 us of work each)
      // the first A and B tiles (8 MiB), the last C tile (8 MiB) and 8 grid
      // steps cost ~13% (docs/benchmarks-tpu.md).
      EXPECT_LT(c->cost.timeNs / bound, n == 4096 ? 1.15 : 1.05)
          << t.str() << " " << n;
      EXPECT_GE(c->cost.timeNs, bound);
    }
  }
}

TEST_F(TpuCostModelTest, QueryBlocksReadKVOnceAndComputeInSubTiles) {
  // MHA causal, one head, Sq = Skv = 1024, head dim 128, bf16, tpu-v5e.
  // Blocks of 1024 queries computed in sub-tiles of 256 against KV tiles of
  // 256 read K/V once (4 steps of one K/V tile each) and compute the 10
  // (sub-tile, KV tile) pairs the one-level tiling with 256-query tiles
  // computes, which reads K/V once per pair.
  TpuParams p = params("tpu-v5e");
  KernelDesc k = attention(1, 1, 1024, 128);
  std::optional<TpuCost> block =
      getTpuPhaseCost(k, {1, 1024, 256, 128, 256, 256}, 2, p);
  std::optional<TpuCost> flat =
      getTpuPhaseCost(k, {1, 256, 256, 128, 256, 256}, 2, p);
  ASSERT_TRUE(block && flat);
  int64_t q = 1024 * 128 * 2, kv = 1024 * 256 * 2;
  EXPECT_EQ(block->hbmReadBytes.value(), uint64_t(q + kv));
  EXPECT_EQ(flat->hbmReadBytes.value(), uint64_t(q + kv * 10 / 4));
  EXPECT_EQ(block->paddedMatrixFlops.value(), flat->paddedMatrixFlops.value());
  EXPECT_EQ(block->paddedMatrixFlops.value(),
            uint64_t(2) * 10 * 256 * 256 * (128 + 128));
  // The block holds Q, the f32 output and max/sum for 1024 rows; the score
  // tile is one sub-tile's (256 x 256 f32), with three f32 rows of it (row
  // max, new max, rescale factor).
  EXPECT_EQ(block->sramBytes, 2 * 1024 * 128 * 2 + 2 * 256 * 256 * 2 +
                                  1024 * 128 * 4 + 1024 * 8 + 256 * 256 * 4 +
                                  3 * 256 * 4 + 2 * 1024 * 128 * 2);
  // Sub-tiles must be the global tiles of their size: 384 does not divide
  // 512-query blocks, and a sub-tile cannot exceed its block.
  EXPECT_FALSE(getTpuPhaseCost(k, {1, 512, 256, 128, 384, 256}, 2, p));
  EXPECT_FALSE(getTpuPhaseCost(k, {1, 256, 256, 128, 512, 256}, 2, p));
  // A block of the whole sequence may end in a short sub-tile.
  EXPECT_TRUE(getTpuPhaseCost(k, {1, 1024, 256, 128, 384, 256}, 2, p));
}

TEST_F(TpuCostModelTest, ResidentKVIsReadOncePerHead) {
  // GQA causal, 2 KV heads of 4 query heads, Sq = Skv = 2048, head dim 128,
  // bf16, tpu-v5e. Query blocks of 512 positions (2048 rows) streaming KV
  // tiles of 256 read K/V once per block: 2, 4, 6 and 8 tiles of the 8
  // (20 tile reads per head). With the head's K/V resident (tile[5] =
  // Skv), the same blocks read it once: traffic is Q, K, V, O once.
  TpuParams p = params("tpu-v5e");
  KernelDesc k = attention(2, 4, 2048, 128);
  std::optional<TpuCost> streamed =
      getTpuPhaseCost(k, {1, 512, 256, 128, 128, 256}, 2, p);
  std::optional<TpuCost> resident =
      getTpuPhaseCost(k, {1, 512, 256, 128, 128, 2048}, 2, p);
  ASSERT_TRUE(streamed && resident);
  // Per head and tensor (K, V) a KV tile is 256 x 128 bf16.
  uint64_t q = 2ull * 4 * 2048 * 128 * 2, kvTile = 256ull * 128 * 2;
  EXPECT_EQ(streamed->hbmReadBytes.value(), q + 2 * 2 * 20 * kvTile);
  EXPECT_EQ(resident->hbmReadBytes.value(), q + 2 * 2 * 8 * kvTile);
  EXPECT_EQ(resident->hbmWriteBytes.value(), q);
  // Same compute; the held K/V is the head's 2048 keys instead of a K/V
  // tile (double-buffered: the next head's is loaded during this head).
  EXPECT_EQ(resident->paddedMatrixFlops.value(),
            streamed->paddedMatrixFlops.value());
  EXPECT_EQ(resident->sramBytes - streamed->sramBytes,
            2 * (2048 - 256) * 256 * 2);
  // Single-buffered (what a K/V too long to be held twice needs): one copy
  // of the query block (2048 rows) and the K/V less, and the output staged
  // where the block's Q was (dead by then: both are 2048 x 128 bf16), and
  // every load waited in place, so slower.
  std::optional<TpuCost> single =
      getTpuPhaseCost(k, {1, 512, 256, 128, 128, 2048}, 1, p);
  ASSERT_TRUE(single);
  EXPECT_EQ(resident->sramBytes - single->sramBytes,
            2048 * 128 * 2 + 2048 * 256 * 2 + 2 * 2048 * 128 * 2);
  EXPECT_GT(single->timeNs, resident->timeNs);
  EXPECT_EQ(single->hbmReadBytes.value(), resident->hbmReadBytes.value());
  // Grid steps: streamed, every (block, KV tile) pair loads (2 x 20);
  // resident, a block is one step and its KV tiles a loop over VMEM (2 x 4).
  EXPECT_EQ(streamed->steps, 40);
  EXPECT_EQ(resident->steps, 8);
  // A held prefix of 1024 keys (4 K/V tiles): a head's K/V tiles 0-3 are
  // loaded once; blocks ending at keys 1536 and 2048 (last tiles 5 and 7)
  // stream tiles 4-5 and 4-7: 2 + 4 = 6 tile reads, 10 per head and tensor.
  // Steps: a block's loop over the held tiles is one, each streamed pair
  // one (2 x (4 + 6)). On chip: the prefix beside the streamed tile, in
  // two buffers.
  std::optional<TpuCost> prefix =
      getTpuPhaseCost(k, {1, 512, 256, 128, 128, 1024}, 2, p);
  ASSERT_TRUE(prefix);
  EXPECT_EQ(prefix->hbmReadBytes.value(), q + 2 * 2 * 10 * kvTile);
  EXPECT_EQ(prefix->steps, 20);
  EXPECT_EQ(prefix->sramBytes - streamed->sramBytes, 2 * 1024 * 256 * 2);
  // The held K/V is the K/V tile, the KV length or a multiple of the K/V
  // tile between them; a prefix with a sliding window is not priced.
  EXPECT_FALSE(getTpuPhaseCost(k, {1, 512, 256, 128, 128, 1000}, 2, p));
  KernelDesc windowed = k;
  windowed.window = 512;
  EXPECT_TRUE(getTpuPhaseCost(windowed, {1, 512, 256, 128, 128, 2048}, 2, p));
  EXPECT_FALSE(getTpuPhaseCost(windowed, {1, 512, 256, 128, 128, 1024}, 2, p));
}

TEST_F(TpuCostModelTest, ResidentKVOfOneHeadIsCopiedPerCore) {
  // MQA (one KV head of 32 query heads), Sq = Skv = 4096, tpu-v7 (two
  // cores). Resident K/V with query blocks of 256: the head's 16 blocks are
  // split over both cores, each loading its own copy of K and V; the
  // minimum reads K/V once, so this pays one extra K/V (not 16 re-reads).
  TpuParams p = params("tpu-v7");
  KernelDesc k = attention(1, 32, 4096, 128);
  std::optional<TpuCost> resident =
      getTpuPhaseCost(k, {1, 256, 512, 128, 256, 4096}, 2, p);
  ASSERT_TRUE(resident);
  uint64_t q = 32ull * 4096 * 128 * 2, kv = 2ull * 4096 * 128 * 2;
  EXPECT_EQ(resident->hbmReadBytes.value(), q + 2 * kv);
  // 16 blocks, 8 per core.
  EXPECT_EQ(resident->steps, 8);
}

TEST_F(TpuCostModelTest, FewRowsPayTheMatrixUnitWidth) {
  // tpu-v5e's 128 x 128 array streams at least 128 rows per held block:
  // a 1-row GEMM costs the time of 128 rows, a 256-row one its own rows.
  TpuParams p = params("tpu-v5e");
  std::optional<TpuCost> one =
      getTpuPhaseCost(gemm(1, 1024, 1024), {1, 1, 1024, 1024}, 2, p);
  std::optional<TpuCost> many =
      getTpuPhaseCost(gemm(256, 1024, 1024), {1, 256, 1024, 1024}, 2, p);
  ASSERT_TRUE(one && many);
  EXPECT_EQ(one->paddedMatrixFlops.value(), uint64_t(2) * 128 * 1024 * 1024);
  EXPECT_EQ(many->paddedMatrixFlops.value(), uint64_t(2) * 256 * 1024 * 1024);
  // 40 rows: padded to 40 (sublanes), floored at 128; holding the 40-row
  // operand instead streams 1024 columns through one 128-wide block: the
  // same 2 x 128 x 1024 x 1024.
  std::optional<TpuCost> forty =
      getTpuPhaseCost(gemm(40, 1024, 1024), {1, 40, 1024, 1024}, 2, p);
  ASSERT_TRUE(forty);
  EXPECT_EQ(forty->paddedMatrixFlops.value(), uint64_t(2) * 128 * 1024 * 1024);
  // Wide rows, narrow N: holding the [M x K] operand is cheaper. M = 1024,
  // N = 8: 2 x 1024 (K) x min(128 x 1024, 1024 x 128).
  std::optional<TpuCost> narrow =
      getTpuPhaseCost(gemm(1024, 8, 1024), {1, 1024, 8, 1024}, 2, p);
  ASSERT_TRUE(narrow);
  EXPECT_EQ(narrow->paddedMatrixFlops.value(), uint64_t(2) * 1024 * 128 * 1024);
}

TEST_F(TpuCostModelTest, RowCopiesAreAChainBesideTheTileTransfers) {
  // 64 rows of 256 bf16 gathered one copy each (an embedding) and written
  // as one tile, in one step on mock-tpu (1 core, BW 102.4 B/ns, D0 100 ns,
  // 2 engines, 4 row copies in flight, O 50 ns). Tiles: in = out = 32768 /
  // 102.4 + 100 / 2 = 370 ns. Rows: 64 x 100 / 4 = 1600 ns, beside them,
  // not added: T = fill max(370, 1600) + stage 50 + drain 370 = 2020 ns.
  TpuParams p = params("mock-tpu");
  ASSERT_EQ(p.rowDmas, 4);
  KernelDesc k;
  k.kind = KernelKind::Stream;
  k.loops = {64, 256};
  k.lhsBytes = 4;
  k.work.bytesRead = Count(64 * 256 * 2);
  k.work.bytesWritten = Count(64 * 256 * 2);
  k.rowReads = 64;
  std::optional<TpuCost> chain = getTpuPhaseCost(k, {64, 256}, 2, p);
  ASSERT_TRUE(chain);
  EXPECT_DOUBLE_EQ(chain->timeNs, 2020.0);
  // 64 in flight: the chain (100 ns) hides under the tile transfers.
  p.rowDmas = 64;
  std::optional<TpuCost> hidden = getTpuPhaseCost(k, {64, 256}, 2, p);
  ASSERT_TRUE(hidden);
  EXPECT_DOUBLE_EQ(hidden->timeNs, 790.0);
}

TEST_F(TpuCostModelTest, MoeCombineBlocksRunAfterTheTile) {
  // A MoE combine without a shared expert (describeMoeKernel's stream): 8
  // tokens x 2 slots of 256 bf16 columns, one tile of 8 tokens on mock-tpu
  // (1 core, BW 102.4 B/ns, D0 100 ns, 2 engines, O 50 ns, 256 vector
  // FLOP/ns). Blocks of min(256, 8) / 2 = 4 tokens: 2 of 8 rows each (the
  // routed experts stored each row at its assignment's, so a block is o's
  // rows in order), each read one ahead of its weighted sum: a load of
  // 100 + 8 x 512 / 102.4 = 140 ns, a sum of 2 x 4 x 2 x 256 / 256 = 16 ns;
  // 140 + max(140, 16) + 16 = 296 ns. The tile reads nothing else: fill 0,
  // stage 50, drain 4096 / 102.4 + 100 / 2 = 90. T = 50 + 90 + 296 = 436.
  TpuParams p = params("mock-tpu");
  KernelDesc k;
  k.kind = KernelKind::Stream;
  k.loops = {8, 256};
  k.lhsBytes = 2;
  k.outBytes = 2;
  k.rowStateBytes = 4 * 256;
  k.work.bytesRead = Count(8 * 2 * 256 * 2); // the routed rows, once each
  k.work.bytesWritten = Count(8 * 256 * 2);
  k.combineSlots = 2;
  k.combineWeightBytes = 4;
  std::optional<TpuCost> cost = getTpuPhaseCost(k, {8, 256}, 2, p);
  ASSERT_TRUE(cost);
  EXPECT_EQ(cost->hbmReadBytes.value(), uint64_t(2 * 8 * 256 * 2));
  EXPECT_DOUBLE_EQ(cost->timeNs, 436.0);
  // Working set: 2 buffers of the result rows (512 B each) and the f32
  // accumulator (1024 B per row), then 2 buffers of a block of 8 rows
  // (4096 B) and their routing weights (32 B, a 64-byte buffer).
  EXPECT_EQ(cost->sramBytes, 8 * (2 * 512 + 1024) + 2 * (4096 + 64));
}
