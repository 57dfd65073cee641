//===- BillTest.cpp - the bill's roofline and capacity arithmetic --------===//

#include "npu/Analysis/Bill.h"
#include "WorkTestUtils.h"
#include "npu/Analysis/KernelModel.h"
#include "npu/Target/Target.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::testing;

namespace {
class BillTest : public WorkTest {
protected:
  TargetAttr mock() { return target("mock-gpu"); }
};
} // namespace

TEST_F(BillTest, RooflineOfAMatmulOnMockGpu) {
  // mock-gpu: bf16 4.096e12 FLOP/s, fp8 8.192e12, vector 2.56e11, exp
  // 6.4e10, HBM 1.024e11 B/s (ridge 40 FLOP/B).
  TargetAttr t = mock();
  ASSERT_TRUE(t);
  Work w;
  w.matrixFlops = Count(4096000000ull);       // 1 ms at the bf16 peak
  w.vectorFlops = Count(256000000ull);        // 1 ms at the vector rate
  w.transcendentalFlops = Count(64000000ull); // 1 ms
  w.bytesRead = Count(51200000ull);           // 0.5 ms
  w.bytesWritten = Count(51200000ull);        // 0.5 ms
  Roofline r = getRoofline(w, BFloat16Type::get(&context), t);
  EXPECT_NEAR(r.computeSeconds, 3e-3, 1e-12);
  EXPECT_NEAR(r.memorySeconds, 1e-3, 1e-12);
  EXPECT_NEAR(r.seconds(), 3e-3, 1e-12);
  EXPECT_TRUE(r.computeBound());
  // The same matrix FLOPs in fp8 take half the time.
  Roofline r8 = getRoofline(w, Float8E4M3FNType::get(&context), t);
  EXPECT_NEAR(r8.computeSeconds, 2.5e-3, 1e-12);
}

TEST_F(BillTest, LayersCallsAndCapacity) {
  // Two calls of one layer kind: every per-layer number doubles in the total;
  // parameters are counted once per npu.weight.
  OwningOpRef<ModuleOp> m = parse(R"mlir(
    func.func private @layer(%x: tensor<4x64xbf16>, %w: tensor<64x64xbf16> {npu.param}) -> tensor<4x64xbf16> {
      %y = npu.matmul %x, %w : tensor<4x64xbf16>, tensor<64x64xbf16> -> tensor<4x64xbf16>
      return %y : tensor<4x64xbf16>
    }
    func.func @model(%x: tensor<4x64xbf16>) -> tensor<4x64xbf16> {
      %w0 = npu.weight "w0" : tensor<64x64xbf16>
      %a = func.call @layer(%x, %w0) : (tensor<4x64xbf16>, tensor<64x64xbf16>) -> tensor<4x64xbf16>
      %w1 = npu.weight "w1" : tensor<64x64xbf16>
      %b = func.call @layer(%a, %w1) : (tensor<4x64xbf16>, tensor<64x64xbf16>) -> tensor<4x64xbf16>
      return %b : tensor<4x64xbf16>
    })mlir");
  ASSERT_TRUE(m);
  TargetAttr t = mock();
  ASSERT_TRUE(t);
  FailureOr<ModelBill> bill = computeBill(*m, t);
  ASSERT_TRUE(succeeded(bill));
  // One matmul: 2*4*64*64 = 32768 FLOP; reads 512 + 8192 B, writes 512 B.
  ASSERT_EQ(bill->layers.size(), 2u);
  EXPECT_EQ(bill->layers[0].work.matrixFlops.value(), 32768u);
  EXPECT_EQ(bill->total.work.matrixFlops.value(), 65536u);
  EXPECT_EQ(bill->total.work.bytesRead.value(), 2u * (512 + 8192));
  EXPECT_EQ(bill->parameterCount.value(), 2u * 64 * 64);
  EXPECT_EQ(bill->parameterBytes.value(), 2u * 64 * 64 * 2);
  // Roofline of one matmul: memory (8704 + 512) / 1.024e11 = 90 ns beats
  // compute 32768 / 4.096e12 = 8 ns; two layers: 180 ns.
  EXPECT_NEAR(bill->total.roofline.seconds(), 2 * 9216 / 1.024e11, 1e-15);
  EXPECT_FALSE(bill->total.roofline.computeBound());
  // Live: at the second call, its input (512 B) and the layer's own peak,
  // its result y (512 B); the first call's input is a function argument.
  EXPECT_EQ(bill->peakLiveActivationBytes.value(), 1024u);
  EXPECT_EQ(bill->minChips(), 1);
}

TEST_F(BillTest, AnFp8OperandMakesAnFp8Product) {
  // W8A8: an fp8 weight times a bf16 activation runs at the fp8 rate (the
  // activation quantized as it loads); otherwise the wider type decides.
  Type bf16 = BFloat16Type::get(&context), f32 = Float32Type::get(&context);
  Type fp8 = Float8E4M3FNType::get(&context);
  EXPECT_EQ(getProductType(bf16, fp8), fp8);
  EXPECT_EQ(getProductType(fp8, bf16), fp8);
  EXPECT_EQ(getProductType(bf16, f32), f32);
  EXPECT_EQ(getProductType(bf16, bf16), bf16);
  EXPECT_EQ(getProductType(Type(), bf16), bf16);
}
