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
    llvm::Expected<target::TargetFile> f = target::loadTarget(&context, name);
    EXPECT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
    FailureOr<GpuParams> p = GpuParams::get(f->attr);
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
    k.loops = {kvHeads, s, s, d};
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
  // launch repeat both grids 4 times. The kernel's time is its launches
  // (counted once) plus its grids' waves.
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
  double body = 0;
  for (const GpuGrid &g : c->grids) {
    EXPECT_EQ(g.repeat, 4);
    body += g.bodyNs();
  }
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
  std::optional<GpuCost> s4k =
      getGpuPhaseCost(attention(32, 8, 4096, 128), {1, 32, 128, 128}, p, true);
  std::optional<GpuCost> s128k = getGpuPhaseCost(attention(32, 8, 131072, 128),
                                                 {1, 32, 128, 128}, p, true);
  ASSERT_TRUE(s4k && s128k);
  EXPECT_LT(double(s128k->simulatedLines),
            4.0 * double(std::max<uint64_t>(s4k->simulatedLines, 1 << 20)));
  // GQA: the four query heads of a KV head share its K/V loads.
  EXPECT_GT(s4k->l2HitRate, 0.5);
}
