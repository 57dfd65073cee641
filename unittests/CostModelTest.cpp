//===- CostModelTest.cpp - the one interface over both cost models --------===//
//
// CostModel (npu/Analysis/CostModel.h) must answer exactly what the model
// of the target's kind answers: the same tile, the same working set and
// time, and on a GPU-like target the launch cost of the chosen launch mode.

#include "npu/Analysis/CostModel.h"
#include "WorkTestUtils.h"
#include "npu/Analysis/GpuCostModel.h"
#include "npu/Analysis/TpuCostModel.h"
#include "npu/Target/Target.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::testing;

namespace {
class CostModelTest : public WorkTest {
protected:
  std::unique_ptr<CostModel> model(StringRef name, bool graph = false) {
    FailureOr<std::unique_ptr<CostModel>> m = CostModel::get(
        target(name), UnknownLoc::get(&context), "test", GpuRunMode{graph});
    EXPECT_TRUE(succeeded(m));
    return std::move(*m);
  }
  /// A 512 x 384 x 256 bf16 GEMM as a one-phase kernel.
  KernelModel gemm() {
    KernelDesc d;
    d.kind = KernelKind::Gemm;
    d.loops = GemmNest<>{1, 512, 384, 256}.list();
    d.matrixType = BFloat16Type::get(&context);
    d.lhsBytes = d.rhsBytes = d.outBytes = 2;
    d.work.matrixFlops = Count(2) * Count(512) * Count(384) * Count(256);
    KernelModel m;
    m.kind = KernelKind::Gemm;
    m.phases.push_back(d);
    m.work = d.work;
    return m;
  }
};

TEST_F(CostModelTest, TpuLikeIsTheTpuModel) {
  KernelModel k = gemm();
  std::unique_ptr<CostModel> cm = model("mock-tpu");
  FailureOr<TpuParams> p = TpuParams::get(target("mock-tpu"));
  ASSERT_TRUE(succeeded(p));
  std::optional<TpuTileChoice> direct = chooseTpuTile(k.phases[0], *p);
  std::optional<TileDecision> d = cm->chooseTile(k);
  ASSERT_TRUE(direct && d);
  EXPECT_EQ(ArrayRef<int64_t>(d->tile), ArrayRef<int64_t>(direct->tile));
  EXPECT_EQ(d->buffers, direct->buffers);
  EXPECT_EQ(d->chunks, direct->chunks);
  EXPECT_EQ(d->sramBytes, direct->cost.sramBytes);
  EXPECT_EQ(cm->getWorkingSet(k, d->tile, d->buffers), d->sramBytes);
  EXPECT_EQ(cm->getSramCapacity(), 524288);
  std::optional<double> ns = cm->estimateNs(k);
  ASSERT_TRUE(ns);
  EXPECT_DOUBLE_EQ(*ns, direct->cost.timeNs);
  // A TPU-like target has no launches to arrange.
  EXPECT_NE(cm->checkLaunches(k, {}, {}).find("is not GPU-like"),
            std::string::npos);
}

TEST_F(CostModelTest, GpuLikeLaunchModes) {
  KernelModel k = gemm();
  std::unique_ptr<CostModel> stream = model("mock-gpu");
  std::unique_ptr<CostModel> graph = model("mock-gpu", /*graph=*/true);
  std::optional<TileDecision> d = stream->chooseTile(k);
  ASSERT_TRUE(d);
  EXPECT_EQ(stream->getSramCapacity(), 49152);
  std::optional<double> s = stream->estimateNs(k), g = graph->estimateNs(k);
  ASSERT_TRUE(s && g);
  // One launch: 1000 ns on a stream, 500 ns from a graph (mock-gpu).
  EXPECT_DOUBLE_EQ(*s - *g, 500.0);
  // The price of the decided plan is the model's, in #npu.cost.
  TilingAttr tiling = TilingAttr::get(&context, k.phases[0].loops, d->tile,
                                      d->buffers, d->sramBytes, d->chunks, {},
                                      /*tablePerTile=*/0);
  std::optional<KernelPrice> price = stream->price(k, tiling, d->launches);
  ASSERT_TRUE(price);
  FailureOr<GpuParams> p = GpuParams::get(target("mock-gpu"));
  ASSERT_TRUE(succeeded(p));
  std::optional<GpuCost> direct =
      getGpuKernelCost(k, d->tile, *p, getGpuLaunches(d->launches));
  ASSERT_TRUE(direct);
  EXPECT_DOUBLE_EQ(price->cost.getTimeNs().convertToDouble(), direct->timeNs);
  ASSERT_TRUE(price->grids);
  EXPECT_EQ(price->grids.size(), 1u);
}
} // namespace

TEST_F(CostModelTest, ForEachTileSkipsWhatCannotFit) {
  // A monotone fit test (the tile's product at most 64): no tile larger in
  // every loop than one that does not fit is visited, every fitting one is.
  SmallVector<SmallVector<int64_t>> lists = {{1, 2, 4, 8, 16, 32, 64},
                                             {1, 2, 4, 8, 16, 32, 64}};
  int visited = 0, fitting = 0;
  forEachTile(lists, [&](MutableArrayRef<int64_t> t) {
    ++visited;
    bool fits = t[0] * t[1] <= 64;
    fitting += fits;
    return fits;
  });
  EXPECT_EQ(fitting, 28); // 2^a * 2^b <= 2^6: a + b <= 6
  // Each row stops at its first misfit; the first row with a misfit at its
  // smallest value (none here: 64 x 1 fits) would end the search.
  EXPECT_EQ(visited, 28 + 6);
}

TEST_F(CostModelTest, KernelKeysTellEveryFieldApart) {
  KernelDesc a = gemm().phases[0];
  auto key = [](const KernelDesc &d) {
    SmallVector<uint64_t> k;
    appendKey(d, k);
    return k;
  };
  EXPECT_EQ(key(a), key(gemm().phases[0]));
  // A field of each kind: a loop, a count of the work, a type, a flag, a
  // size.
  KernelDesc b = a;
  b.loops[2] = 512;
  EXPECT_NE(key(a), key(b));
  b = a;
  b.work.bytesRead = Count(1);
  EXPECT_NE(key(a), key(b));
  b = a;
  b.matrixType = Float32Type::get(&context);
  EXPECT_NE(key(a), key(b));
  b = a;
  b.tablePerTile = true;
  EXPECT_NE(key(a), key(b));
  b = a;
  b.window = 128;
  EXPECT_NE(key(a), key(b));
  b = a;
  b.siblingN = {128, 256};
  EXPECT_NE(key(a), key(b));
}

TEST_F(CostModelTest, TileSearchIsKeptPerKernelAndTarget) {
  // The memo answers what a search answers, for the kernel and target
  // asked, and only for them.
  KernelDesc d = gemm().phases[0];
  FailureOr<TpuParams> small = TpuParams::get(target("mock-tpu"));
  FailureOr<TpuParams> big = TpuParams::get(target("tpu-v7"));
  ASSERT_TRUE(succeeded(small) && succeeded(big));
  std::optional<TpuTileChoice> first = chooseTpuTile(d, *small);
  std::optional<TpuTileChoice> again = chooseTpuTile(d, *small);
  std::optional<TpuTileChoice> other = chooseTpuTile(d, *big);
  std::optional<TpuTileChoice> single = chooseTpuTile(d, *small, 1);
  ASSERT_TRUE(first && again && other && single);
  EXPECT_EQ(ArrayRef<int64_t>(first->tile), ArrayRef<int64_t>(again->tile));
  EXPECT_DOUBLE_EQ(first->cost.timeNs, again->cost.timeNs);
  EXPECT_NE(first->cost.timeNs, other->cost.timeNs);
  EXPECT_EQ(single->buffers, 1);
  // A larger K: another kernel, another answer.
  d.loops[3] = 512;
  d.work.matrixFlops = Count(2) * Count(512) * Count(384) * Count(512);
  std::optional<TpuTileChoice> longer = chooseTpuTile(d, *small);
  ASSERT_TRUE(longer);
  EXPECT_GT(longer->cost.timeNs, first->cost.timeNs);
}
