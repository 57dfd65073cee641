//===- FormatsTest.cpp - stored weight formats in the kernel description --===//
//
// What a weight stored in a scaled format (npu.dequantize) makes of a
// matmul's description (bytes per element, product type) and how each chip
// runs it (getMatrixPath: native in the matrix unit, or converted on the
// vector unit), by hand (docs/formats.md).
//
//===----------------------------------------------------------------------===//

#include "WorkTestUtils.h"
#include "npu/Analysis/KernelModel.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::testing;

namespace {
class FormatsTest : public WorkTest {
protected:
  /// The description of `y = x[64 x 2880] * W^T` with W [5760 x 2880]
  /// stored as `values` with `scales` over `block` (and an NVFP4 global).
  KernelDesc describe(StringRef values, StringRef scales, StringRef block,
                      bool global = false) {
    std::string g = global ? " global(%g)" : "";
    std::string gt = global ? ", tensor<f32>" : "";
    std::string src =
        ("func.func @f(%x: tensor<64x2880xbf16>, %v: tensor<5760x2880x" +
         values + ">, %s: tensor<" + scales + ">, %g: tensor<f32>) -> " +
         "tensor<64x5760xbf16> {\n  %w = npu.dequantize %v, %s" + g +
         " block " + block + " : tensor<5760x2880x" + values + ">, tensor<" +
         scales + ">" + gt +
         " -> tensor<5760x2880xbf16>\n"
         "  %y = npu.matmul %x, %w transpose_rhs : tensor<64x2880xbf16>, "
         "tensor<5760x2880xbf16> -> tensor<64x5760xbf16>\n"
         "  return %y : tensor<64x5760xbf16>\n}")
            .str();
    module = parse(src);
    EXPECT_TRUE(module) << src;
    KernelDesc k;
    if (!module)
      return k;
    module->walk([&](MatmulOp mm) {
      describeRhs(k, mm.getLhs().getType().getElementType(), mm.getRhs());
    });
    return k;
  }
  MatrixPath path(const KernelDesc &k, StringRef target) {
    return getMatrixPath(k, MatrixRates::get(this->target(target), 1));
  }
  OwningOpRef<ModuleOp> module;
};
} // namespace

TEST_F(FormatsTest, Mxfp4RunsW4A8WhereTheChipHasFp4) {
  // 4 bits per value plus one 8-bit scale per 32: 0.5 + 1/32 bytes.
  KernelDesc k = describe("f4E2M1FN", "5760x90xf8E8M0FNU", "[1, 32]");
  EXPECT_TRUE(k.storedRhs);
  EXPECT_EQ(k.rhsBytes, 0.53125);
  EXPECT_TRUE(isa<Float4E2M1FNType>(k.storedRhs.nativeType));
  // Blackwell's block-scaled MMA takes e2m1 against e4m3 activations
  // (MXFP8): the fp8 rate, nothing converted.
  MatrixPath gb300 = path(k, "gb300");
  EXPECT_TRUE(isa<Float8E4M3FNType>(gb300.type));
  EXPECT_EQ(gb300.dequantFlops, 0);
  // Hopper and TPU v7 have no fp4: each value decoded and scaled (2 vector
  // FLOPs) into bf16, multiplied at the bf16 rate.
  for (StringRef t : {"h200", "tpu-v7"}) {
    MatrixPath p = path(k, t);
    EXPECT_TRUE(p.type.isBF16()) << t.str();
    EXPECT_EQ(p.dequantFlops, 2) << t.str();
  }
}

TEST_F(FormatsTest, Nvfp4RunsW4A4AtTheFp4Rate) {
  // 0.5 + 1/16 bytes per value, plus the 4-byte global scale over all
  // 5760 x 2880 values.
  KernelDesc k = describe("f4E2M1FN", "5760x180xf8E4M3FN", "[1, 16]", true);
  EXPECT_DOUBLE_EQ(k.rhsBytes, 0.5625 + 4.0 / (5760.0 * 2880.0));
  EXPECT_TRUE(isa<Float4E2M1FNType>(path(k, "gb300").type));
  EXPECT_EQ(path(k, "b200").dequantFlops, 0);
  EXPECT_TRUE(path(k, "h100").type.isBF16());
}

TEST_F(FormatsTest, Fp8BlockIsNativeWhereTheChipHasFp8) {
  // DeepSeek-V3's 128 x 128 blocks: one f32 per 16384 values.
  KernelDesc k = describe("f8E4M3FN", "45x23xf32", "[128, 128]");
  EXPECT_DOUBLE_EQ(k.rhsBytes, 1.0 + 45.0 * 23 * 4 / (5760.0 * 2880.0));
  for (StringRef t : {"h100", "gb300", "tpu-v7"}) {
    MatrixPath p = path(k, t);
    EXPECT_TRUE(isa<Float8E4M3FNType>(p.type)) << t.str();
    EXPECT_EQ(p.dequantFlops, 0) << t.str();
  }
  // No fp8 on an A100 or a TPU v5e: converted, bf16 rate.
  for (StringRef t : {"a100", "tpu-v5e"}) {
    MatrixPath p = path(k, t);
    EXPECT_TRUE(p.type.isBF16()) << t.str();
    EXPECT_EQ(p.dequantFlops, 2) << t.str();
  }
}

TEST_F(FormatsTest, IntegerFormatsAreWeightOnlyEverywhere) {
  // int4 in groups of 128 with bf16 scales: 0.5 + 2/128 bytes; W4A16 on
  // every chip (the activations stay bf16), converted as tiles load.
  KernelDesc k = describe("i4", "5760x23xbf16", "[1, 128]");
  EXPECT_DOUBLE_EQ(k.rhsBytes,
                   (5760.0 * 2880 / 2 + 5760.0 * 23 * 2) / (5760.0 * 2880.0));
  EXPECT_FALSE(k.storedRhs.nativeType);
  for (StringRef t : {"gb300", "h100", "tpu-v7"}) {
    MatrixPath p = path(k, t);
    EXPECT_TRUE(p.type.isBF16()) << t.str();
    EXPECT_EQ(p.dequantFlops, 2) << t.str();
  }
}

TEST_F(FormatsTest, PlainWeightsKeepTheirPath) {
  module = parse(R"mlir(
    func.func @f(%x: tensor<64x2880xbf16>, %w: tensor<5760x2880xf8E4M3FN>) -> tensor<64x5760xbf16> {
      %y = npu.matmul %x, %w transpose_rhs : tensor<64x2880xbf16>, tensor<5760x2880xf8E4M3FN> -> tensor<64x5760xbf16>
      return %y : tensor<64x5760xbf16>
    })mlir");
  ASSERT_TRUE(module);
  KernelDesc k;
  module->walk([&](MatmulOp mm) {
    describeRhs(k, mm.getLhs().getType().getElementType(), mm.getRhs());
  });
  EXPECT_FALSE(k.storedRhs);
  EXPECT_EQ(k.rhsBytes, 1.0);
  // An fp8 weight on an A100 runs at the bf16 rate with nothing converted
  // (the existing W8A8 rule: getProductType, MatrixRates::of).
  EXPECT_EQ(path(k, "a100").dequantFlops, 0);
}

TEST(BytesOf, ExactForWholeBytesAndRoundsFractionsUp) {
  EXPECT_EQ(bytesOf(Count(3), 2.0).value(), 6u);
  EXPECT_EQ(bytesOf(Count(UINT64_MAX / 2), 2.0).value(), UINT64_MAX - 1);
  EXPECT_TRUE(bytesOf(Count(UINT64_MAX / 2 + 1), 2.0).isOverflow());
  EXPECT_EQ(bytesOf(Count(3), 0.53125).value(), 2u); // 1.59375 -> 2
  EXPECT_EQ(bytesOf(Count(32), 0.53125).value(), 17u);
  EXPECT_TRUE(bytesOf(Count::overflowed(), 0.5).isOverflow());
  EXPECT_TRUE(bytesOf(Count(uint64_t(1) << 62), 3.5).isOverflow());
}
