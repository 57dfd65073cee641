//===- GpuCostModelTest.cpp - the GPU-like cost model ---------------------===//

#include "npu/Analysis/GpuCostModel.h"
#include "WorkTestUtils.h"
#include "npu/Target/Target.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::testing;

namespace {
class GpuCostModelTest : public WorkTest {
protected:
  GpuParams params(StringRef name) {
    TargetAttr t = target(name);
    FailureOr<GpuParams> p =
        t ? GpuParams::get(t) : FailureOr<GpuParams>(failure());
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
  KernelDesc attention(int64_t heads, int64_t kvHeads, int64_t s, int64_t d) {
    KernelDesc k;
    k.kind = KernelKind::Attention;
    k.loops = {kvHeads, s, s, d, s, s};
    k.group = heads / kvHeads;
    k.vDim = d;
    k.causal = true;
    k.matrixType = BFloat16Type::get(&context);
    k.lhsBytes = k.rhsBytes = k.outBytes = 2;
    return k;
  }
};
} // namespace

TEST_F(GpuCostModelTest, OccupancyOfAGemmBlock) {
  // mock-gpu: 16384 registers and 48 KiB shared memory per SM. A 64x64
  // block with 32-wide k steps: 3 stages of (64*32 + 32*64) bf16 = 24 KiB,
  // 128 threads x (4096/128 + 32) registers = 8192: two blocks per SM.
  GpuParams p = params("mock-gpu");
  std::optional<GpuBlockPlan> plan =
      planGpuBlock(gemm(128, 128, 128), {1, 64, 64, 32}, p);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->sharedMemBytes, 24576);
  EXPECT_EQ(plan->threads, 128);
  EXPECT_EQ(plan->registersPerThread, 64);
  EXPECT_EQ(plan->blocksPerSM, 2);
  EXPECT_EQ(plan->blocks, 4);
  // 128x128 blocks need 256 threads x 96 registers: more than the SM has.
  EXPECT_FALSE(planGpuBlock(gemm(256, 256, 128), {1, 128, 128, 32}, p));
}

TEST_F(GpuCostModelTest, WavesAndTail) {
  // 8 slots on mock-gpu; a 640x128 GEMM in 64x64 blocks is 20 blocks:
  // 2 full waves and a tail of 4.
  GpuParams p = params("mock-gpu");
  std::optional<GpuCost> c =
      getGpuPhaseCost(gemm(640, 128, 128), {1, 64, 64, 32}, p, false);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->waves, 20.0 / 8.0);
  // Full waves: 2 blocks per SM share its matrix unit: 2 * 1024 ns each;
  // the tail: 1 per SM, 1024 ns. Memory (352 KiB at minimum) takes 1408
  // ns per full wave, under its 2048 ns of compute.
  EXPECT_NEAR(c->timeNs, 1000.0 + 2 * 2048.0 + 1024.0, 1e-6);
  // The grid the trace draws: the same waves, one by one.
  ASSERT_EQ(c->grids.size(), 1u);
  const GpuGrid &g = c->grids[0];
  EXPECT_EQ(g.plan.blocks, 20);
  EXPECT_EQ(g.plan.blocksPerSM, 2);
  EXPECT_EQ(g.fullWaves, 2);
  EXPECT_EQ(g.tailBlocks, 4);
  EXPECT_NEAR(g.waveNs, 2048.0, 1e-6);
  EXPECT_NEAR(g.tailNs, 1024.0, 1e-6);
  EXPECT_NEAR(p.launchNs + g.bodyNs(), c->timeNs, 1e-6);
}

TEST_F(GpuCostModelTest, GridsOfAGroupedGatedMlp) {
  // A gated MLP runs as two GEMM launches; 4 experts of it in one grouped
  // launch make each grid 4 times one expert's blocks, in waves across the
  // experts. The kernel's time is its launches (counted once) plus its
  // grids' waves.
  GpuParams p = params("mock-gpu");
  KernelDesc mlp;
  mlp.kind = KernelKind::MoeFfn;
  mlp.loops = {128, 256, 128};
  mlp.repeat = 4;
  mlp.matrixType = BFloat16Type::get(&context);
  mlp.lhsBytes = mlp.rhsBytes = mlp.outBytes = 2;
  mlp.work.matrixFlops = Count(6) * Count(128) * Count(256) * Count(128);
  KernelModel model;
  model.kind = KernelKind::MoeFfn;
  model.phases.push_back(mlp);
  model.work = mlp.work;
  std::optional<GpuCost> c = getGpuKernelCost(model, {64, 64, 128}, p);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->grids.size(), 2u);
  KernelModel one = model;
  one.phases[0].repeat = 1;
  std::optional<GpuCost> single = getGpuKernelCost(one, {64, 64, 128}, p);
  ASSERT_TRUE(single);
  double body = 0;
  for (auto [g, s] : llvm::zip(c->grids, single->grids)) {
    EXPECT_EQ(g.plan.blocks, 4 * s.plan.blocks);
    body += g.bodyNs();
  }
  EXPECT_EQ(c->hbmReadBytes.value(), 4 * single->hbmReadBytes.value());
  EXPECT_NEAR(2 * p.launchNs + body, c->timeNs, 1e-6 * c->timeNs);
}

TEST_F(GpuCostModelTest, CacheDecidesTraffic) {
  // Everything fits in mock-gpu's 256 KiB L2: HBM sees each byte once.
  GpuParams p = params("mock-gpu");
  std::optional<GpuCost> small =
      getGpuPhaseCost(gemm(128, 128, 128), {1, 64, 64, 32}, p, true);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->hbmReadBytes.value(), 65536u);
  EXPECT_EQ(small->hbmWriteBytes.value(), 32768u);
  EXPECT_NEAR(small->l2HitRate, 0.6, 1e-12);
  // 1 MiB operands on a 256 KiB L2: blocks of later waves miss what
  // earlier ones loaded, so HBM reads exceed the minimum.
  std::optional<GpuCost> big =
      getGpuPhaseCost(gemm(512, 512, 1024), {1, 64, 64, 32}, p, true);
  ASSERT_TRUE(big);
  EXPECT_GT(big->hbmReadBytes.value(), 2u * 512 * 1024 * 2);
  EXPECT_LT(big->l2HitRate, small->l2HitRate);
}

TEST_F(GpuCostModelTest, SimulationCostIsBounded) {
  // The simulated lines do not grow with the sequence length.
  GpuParams p = params("h100");
  std::optional<GpuCost> s4k = getGpuPhaseCost(
      attention(32, 8, 4096, 128), {1, 32, 128, 128, 32, 128}, p, true);
  std::optional<GpuCost> s128k = getGpuPhaseCost(
      attention(32, 8, 131072, 128), {1, 32, 128, 128, 32, 128}, p, true);
  ASSERT_TRUE(s4k && s128k);
  EXPECT_LT(double(s128k->simulatedLines),
            4.0 * double(std::max<uint64_t>(s4k->simulatedLines, 1 << 20)));
  // GQA: the four query heads of a KV head share its K/V loads.
  EXPECT_GT(s4k->l2HitRate, 0.5);
}

TEST_F(GpuCostModelTest, LaunchOrder) {
  auto order = [](int64_t rows, int64_t cols, GpuLaunch l, int64_t n) {
    std::vector<std::pair<int64_t, int64_t>> out;
    for (int64_t b = 0; b < n; ++b) {
      GemmTileIndex t = getGemmTileAt(b, rows, cols, l);
      out.push_back({t.row, t.col});
    }
    return out;
  };
  using V = std::vector<std::pair<int64_t, int64_t>>;
  // CUDA's default: row-major.
  EXPECT_EQ(order(2, 3, GpuLaunch(), 6),
            (V{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}));
  // Groups of 2 rows walked column by column; the last group has 1 row.
  EXPECT_EQ(order(3, 2, {1, 1, 2}, 6),
            (V{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, 0}, {2, 1}}));
  // 2x1 clusters: a cluster's two blocks are consecutive; clusters
  // row-major over the 2 x 2 cluster grid.
  EXPECT_EQ(
      order(4, 2, {2, 1, 1}, 8),
      (V{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, 0}, {3, 0}, {2, 1}, {3, 1}}));
  // Batches are outermost.
  GemmTileIndex t = getGemmTileAt(7, 2, 3, GpuLaunch());
  EXPECT_EQ(t.batch, 1);
  EXPECT_EQ(t.row, 0);
  EXPECT_EQ(t.col, 1);
}

TEST_F(GpuCostModelTest, ClusterMulticastSharesTileLoads) {
  // 2 x 2 blocks of 64 x 64, k = 128 (bf16). Without a cluster each block
  // reads 128 x (64 + 64) x 2 bytes of A and B and writes 64 x 64 x 2 of
  // C through L2: 4 x (32768 + 8192). A 1 x 2 cluster reads each A tile
  // once for its two blocks: 4 x (128 x (64 + 128) + 8192).
  GpuParams p = params("mock-gpu");
  p.maxClusterBlocks = 2;
  KernelDesc g = gemm(128, 128, 128);
  std::optional<GpuCost> plain = getGpuPhaseCost(g, {1, 64, 64, 32}, p, false);
  std::optional<GpuCost> row =
      getGpuPhaseCost(g, {1, 64, 64, 32}, p, false, {GpuLaunch{1, 2, 1}});
  std::optional<GpuCost> col =
      getGpuPhaseCost(g, {1, 64, 64, 32}, p, false, {GpuLaunch{2, 1, 1}});
  ASSERT_TRUE(plain && row && col);
  EXPECT_EQ(plain->l2Bytes.toInt64().value_or(-1), 163840);
  EXPECT_EQ(row->l2Bytes.toInt64().value_or(-1), 131072);
  EXPECT_EQ(col->l2Bytes.toInt64().value_or(-1), 131072);
  // With the L2 simulated, the multicast copies are not L2 requests.
  std::optional<GpuCost> simRow =
      getGpuPhaseCost(g, {1, 64, 64, 32}, p, true, {GpuLaunch{1, 2, 1}});
  ASSERT_TRUE(simRow);
  EXPECT_EQ(simRow->hbmReadBytes.value(), 65536u);
}

TEST_F(GpuCostModelTest, LaunchesTheChipCannotRun) {
  GpuParams p = params("mock-gpu");
  p.maxClusterBlocks = 2;
  EXPECT_EQ(
      checkGpuLaunch(gemm(128, 128, 128), {1, 64, 64, 32}, 0, {2, 2, 1}, p),
      "a cluster of 2 x 2 blocks exceeds the target's "
      "gpu.max_cluster_blocks (2)");
  // 2 x 3 output tiles: a cluster 2 wide does not tile 3 columns, so the
  // grid is padded to 2 x 4 blocks, two of them empty.
  std::optional<GpuCost> padded = getGpuPhaseCost(
      gemm(128, 192, 128), {1, 64, 64, 32}, p, false, {GpuLaunch{1, 2, 1}});
  ASSERT_TRUE(padded);
  EXPECT_EQ(padded->grids[0].plan.blocks, 8);
  // A read once per cluster (2 x 2 reads), B once per block (6), C 6.
  EXPECT_EQ(padded->l2Bytes.toInt64().value_or(-1),
            4 * 16384 + 6 * 16384 + 6 * 8192);
  // One block per SM: 4 slots cannot hold a cluster of 8.
  p.maxClusterBlocks = 8;
  p.sm.maxBlocksPerSM = 1;
  EXPECT_EQ(
      checkGpuLaunch(gemm(256, 512, 128), {1, 64, 64, 32}, 0, {1, 8, 1}, p),
      "a cluster of 8 blocks does not fit the 4 block slots of the "
      "chip");
  // A GEMM has one launch to arrange.
  EXPECT_EQ(
      checkGpuLaunch(gemm(128, 128, 128), {1, 64, 64, 32}, 1, {2, 1, 1}, p),
      "a gemm phase has no launch 2 to arrange (it has 1)");
}

TEST_F(GpuCostModelTest, DramLatencyFill) {
  // WavesAndTail's grid with a 500 ns DRAM latency. Two blocks per SM:
  // later blocks start while others compute, so the launch pays the
  // latency once.
  GpuParams p = params("mock-gpu");
  p.dramLatencyNs = 500;
  std::optional<GpuCost> c =
      getGpuPhaseCost(gemm(640, 128, 128), {1, 64, 64, 32}, p, false);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->grids[0].fillNs, 500.0, 1e-9);
  EXPECT_NEAR(c->timeNs, 1000.0 + 500.0 + 2 * 2048.0 + 1024.0, 1e-6);
  // One block per SM: each of the 5 waves of 4 blocks starts on idle SMs
  // and waits for its first tiles.
  p.sm.maxBlocksPerSM = 1;
  c = getGpuPhaseCost(gemm(640, 128, 128), {1, 64, 64, 32}, p, false);
  ASSERT_TRUE(c);
  const GpuGrid &g = c->grids[0];
  EXPECT_EQ(g.fullWaves, 5);
  EXPECT_EQ(g.tailBlocks, 0);
  EXPECT_NEAR(g.fillNs, 0.0, 1e-9);
  EXPECT_NEAR(g.waveNs, 1024.0 + 500.0, 1e-6);
  EXPECT_NEAR(c->timeNs, 1000.0 + 5 * 1524.0, 1e-6);
}

TEST_F(GpuCostModelTest, CompilerArrangesLargeGemms) {
  // An 8192^3 bf16 GEMM on h100: blocks sharing tile loads in a cluster
  // cut L2 traffic, and a grouped raster order lowers the HBM traffic the
  // cache simulation sees below row-major's.
  GpuParams p = params("h100");
  KernelDesc g = gemm(8192, 8192, 8192);
  std::optional<SmallVector<int64_t, 4>> tile = chooseGpuTile(g, p);
  ASSERT_TRUE(tile);
  SmallVector<GpuLaunch, 2> launches = chooseGpuLaunches(g, *tile, p);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_GT(launches[0].clusterBlocks(), 1);
  EXPECT_GT(launches[0].rasterGroup, 1);
  EXPECT_TRUE(checkGpuLaunch(g, *tile, 0, launches[0], p).empty());
  std::optional<GpuCost> chosen = getGpuPhaseCost(g, *tile, p, true, launches);
  GpuLaunch rowMajor = launches[0];
  rowMajor.rasterGroup = 1;
  std::optional<GpuCost> plain = getGpuPhaseCost(g, *tile, p, true, {rowMajor});
  ASSERT_TRUE(chosen && plain);
  EXPECT_LT(chosen->hbmReadBytes.value(), plain->hbmReadBytes.value());
  EXPECT_LE(chosen->timeNs, plain->timeNs);
  // Attention has no cluster to choose; a 4K prefill has blocks enough to
  // need no KV split.
  SmallVector<GpuLaunch, 2> attn = chooseGpuLaunches(
      attention(32, 8, 4096, 128), {1, 32, 128, 128, 32, 128}, p);
  ASSERT_EQ(attn.size(), 1u);
  EXPECT_TRUE(attn[0].isDefault());
}

TEST_F(GpuCostModelTest, SplitKvDecode) {
  // Decode: one query per sequence, 8 KV heads of 4 query heads, 4096 KV
  // tokens, on h100: one block per KV head (8 blocks of 4 rows) for 132
  // SMs. Each block streams 4096 x 256 x 2 = 2 MiB of K and V (and 1 KiB
  // of Q in, 1 KiB of O out) with 2 x 128 x 256 x 2 = 128 KiB in flight: at
  // 374 ns per round trip, (2 MiB + 2 KiB) x 374 / 128 KiB = 5990 ns,
  // slower than HBM (16 MiB / 3.35 TB/s = 5008 ns). Its matrix work, the 4
  // rows padded to the MMA's 16, is 2 x 2 x 16 x 4096 x 128 FLOP on one
  // SM, and its MMAs read 32 tiles of Q (16 x 128 x 2 B) and of K and V
  // (128 x 256 x 2 B) from shared memory at 128 B per clock: one block
  // alone on an SM is bound by its shared memory, twice Little's law. The
  // tail is the longest of the three, plus the first tiles' round trip.
  GpuParams p = params("h100");
  KernelDesc k = attention(32, 8, 1, 128);
  k.loops = {8, 1, 4096, 128, 1, 4096};
  SmallVector<int64_t, 4> tile = {1, 1, 128, 128, 1, 128};
  std::optional<GpuCost> one = getGpuPhaseCost(k, tile, p, false);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->grids[0].plan.blocks, 8);
  EXPECT_EQ(one->grids[0].plan.inflightBytes, 131072);
  double little = (2097152.0 + 2048) * p.dramLatencyNs / 131072.0;
  double matrix = 2.0 * 2 * 16 * 4096 * 128 /
                  p.matrixPerNsPerSM(BFloat16Type::get(&context));
  double shared =
      32.0 * (16 * 128 * 2 + 128 * 256 * 2) / p.sharedBytesPerNsPerSM;
  EXPECT_GT(shared, 2 * little);
  EXPECT_NEAR(one->grids[0].tailNs,
              std::max({little, matrix, shared}) + p.dramLatencyNs,
              1e-6 * little);
  // Split 4 ways: 32 blocks of 512 KiB each; HBM now bounds the time, and
  // the combine adds a round trip and, through L2, the f32 partials (4 rows
  // x 130 x 4 B written and read per block) and the Q rows each of the 24
  // extra blocks reads again.
  GpuLaunch split;
  split.kvSplits = 4;
  std::optional<GpuCost> four = getGpuPhaseCost(k, tile, p, false, {split});
  ASSERT_TRUE(four);
  EXPECT_EQ(four->grids[0].plan.blocks, 32);
  EXPECT_LT(four->timeNs, one->timeNs);
  EXPECT_EQ(four->hbmReadBytes.value(), one->hbmReadBytes.value());
  EXPECT_EQ(four->l2Bytes.value() - one->l2Bytes.value(),
            32u * 2 * 4 * 130 * 4 + 24u * 1024);
  // The compiler splits decode attention, and never beyond the KV tiles.
  SmallVector<GpuLaunch, 2> chosen = chooseGpuLaunches(k, tile, p);
  ASSERT_EQ(chosen.size(), 1u);
  EXPECT_GT(chosen[0].kvSplits, 1);
  split.kvSplits = 64;
  EXPECT_EQ(checkGpuLaunch(k, tile, 0, split, p),
            "kv_splits 64 exceeds the 32 KV tiles of the block that visits "
            "the fewest");
  GpuLaunch cluster{2, 1, 1};
  EXPECT_EQ(checkGpuLaunch(k, tile, 0, cluster, p),
            "clusters and raster groups arrange GEMM launches, not attention");
}

TEST_F(GpuCostModelTest, SmallBlocksPadToTheMmaRows) {
  // A decode step's GEMM of 3 rows (tokens per expert) in one 3 x 64 block
  // with K 128 in steps of 32: the tensor cores compute 16 rows (the
  // block's rows padded to the MMA's), 2 x 16 x 64 x 128 FLOPs, 16/3 of
  // the useful ones; a 32-row block is not padded.
  GpuParams p = params("mock-gpu");
  std::optional<GpuCost> c =
      getGpuPhaseCost(gemm(3, 64, 128), {1, 3, 64, 32}, p, false);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->paddedMatrixFlops.value(), uint64_t(2 * 16 * 64 * 128));
  std::optional<GpuCost> d =
      getGpuPhaseCost(gemm(32, 64, 128), {1, 32, 64, 32}, p, false);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->paddedMatrixFlops.value(), uint64_t(2 * 32 * 64 * 128));
}
