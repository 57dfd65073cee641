//===- WorkTest.cpp - the work interface on hand-computed cases -----------===//

#include "WorkTestUtils.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::testing;

TEST(CountTest, OverflowIsSticky) {
  Count big(uint64_t(1) << 63);
  EXPECT_FALSE((big + Count((uint64_t(1) << 63) - 1)).isOverflow());
  EXPECT_TRUE((big + big).isOverflow());
  EXPECT_TRUE((big * Count(2)).isOverflow());
  EXPECT_TRUE(((big * Count(2)) / Count(4)).isOverflow());
  EXPECT_TRUE((Count(1) - Count(2)).isOverflow());
  EXPECT_TRUE(Count::fromSigned(-1).isOverflow());
  EXPECT_EQ((Count(6) / Count(4)).value(), 1u);
}

TEST_F(WorkTest, MatmulLinearLayer) {
  // x[4, 4096] bf16 times the nn.Linear weight [14336, 4096] bf16.
  Work w = workOf(R"mlir(
    func.func @f(%x: tensor<4x4096xbf16>) -> tensor<4x14336xbf16> {
      %w = npu.weight "w" : tensor<14336x4096xbf16>
      %y = npu.matmul %x, %w transpose_rhs : tensor<4x4096xbf16>, tensor<14336x4096xbf16> -> tensor<4x14336xbf16>
      return %y : tensor<4x14336xbf16>
    })mlir");
  EXPECT_EQ(w.matrixFlops.value(), 2ull * 4 * 14336 * 4096);
  EXPECT_EQ(w.vectorFlops.value(), 0u);
  EXPECT_EQ(w.paramBytes.value(), 14336ull * 4096 * 2);
  EXPECT_EQ(w.bytesRead.value(), 14336ull * 4096 * 2 + 4 * 4096 * 2);
  EXPECT_EQ(w.bytesWritten.value(), 4ull * 14336 * 2);
}

TEST_F(WorkTest, ParamArgumentCountsAsParameter) {
  Work w = workOf(R"mlir(
    func.func @f(%x: tensor<2x8xf32>, %w: tensor<8x8xf32> {npu.param}) -> tensor<2x8xf32> {
      %y = npu.matmul %x, %w : tensor<2x8xf32>, tensor<8x8xf32> -> tensor<2x8xf32>
      return %y : tensor<2x8xf32>
    })mlir");
  EXPECT_EQ(w.paramBytes.value(), 8u * 8 * 4);
}

TEST_F(WorkTest, MatmulFlopsOverflowIsAnError) {
  // 2 * 2^30 * 2^14 * 2^20 = 2^65 FLOPs: every tensor fits, the count does not.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%a: tensor<1073741824x1048576xf8E4M3FN>, %b: tensor<1048576x16384xf8E4M3FN>) -> tensor<1073741824x16384xbf16> {
      %y = npu.matmul %a, %b : tensor<1073741824x1048576xf8E4M3FN>, tensor<1048576x16384xf8E4M3FN> -> tensor<1073741824x16384xbf16>
      return %y : tensor<1073741824x16384xbf16>
    })mlir");
  ASSERT_TRUE(module);
  std::string diag;
  FailureOr<Work> w = sumWork(*module, &diag);
  EXPECT_TRUE(failed(w));
  EXPECT_NE(diag.find("does not fit in 64 bits"), std::string::npos) << diag;
}
