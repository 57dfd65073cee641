//===- ProgramMeasureTest.cpp - counting a TPU memory program's DMAs ------===//
//
// measureTpuProgram on hand-written memory programs whose counts are derived
// by hand: closed-form loops, a loop whose last tile is short (enumerated),
// a size passed on by a pipelined loop, predicates, run-time trip counts.

#include "npu/Analysis/ProgramMeasure.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

#include <string>

using namespace mlir;
using namespace mlir::npu;

namespace {
class ProgramMeasureTest : public ::testing::Test {
protected:
  ProgramMeasureTest() {
    context.loadDialect<NpuDialect, func::FuncDialect, arith::ArithDialect,
                        affine::AffineDialect, memref::MemRefDialect,
                        scf::SCFDialect>();
  }

  ProgramMeasure measure(const std::string &body, int64_t budget = 10'000'000) {
    std::string source = "#hbm = #npu.memory_space<hbm>\n"
                         "#vmem = #npu.memory_space<vmem>\n"
                         "func.func @f(%a: memref<100x64xf32, #hbm>, %n: "
                         "index) attributes {npu.sram_peak = 4096 : i64} {\n" +
                         body + "\n  return\n}\n";
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << "IR does not parse or verify";
    if (!module)
      return ProgramMeasure();
    return measureTpuProgram(*module->getOps<func::FuncOp>().begin(), budget);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

// 100 rows in tiles of 16: six tiles of 16 x 64 f32 (4096 B) and a last one
// of 4 rows (1024 B): 25,600 B in 7 DMAs, the last tile's size an
// affine.min of the index.
constexpr const char *kShortLastTile = R"(
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c100 = arith.constant 100 : index
  %buf = memref.alloc() : memref<16x64xf32, #vmem>
  scf.for %i = %c0 to %c100 step %c16 {
    %rows = affine.min affine_map<(d0) -> (100 - d0, 16)>(%i)
    %src = memref.subview %a[%i, 0] [%rows, 64] [1, 1] : memref<100x64xf32, #hbm> to memref<?x64xf32, strided<[64, 1], offset: ?>, #hbm>
    %dst = memref.subview %buf[0, 0] [%rows, 64] [1, 1] : memref<16x64xf32, #vmem> to memref<?x64xf32, strided<[64, 1]>, #vmem>
    %t = npu.dma_start %src, %dst : memref<?x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<?x64xf32, strided<[64, 1]>, #vmem>
    npu.dma_wait %t
  })";

TEST_F(ProgramMeasureTest, ShortLastTileIsEnumerated) {
  ProgramMeasure m = measure(kShortLastTile);
  EXPECT_EQ(m.unmeasured, "");
  EXPECT_EQ(m.dmaReadBytes, 6 * 4096 + 1024);
  EXPECT_EQ(m.dmaWriteBytes, 0);
  EXPECT_EQ(m.dmas, 7);
  EXPECT_EQ(m.vmemPeakBytes, 4096);
}

TEST_F(ProgramMeasureTest, BudgetIsReported) {
  ProgramMeasure m = measure(kShortLastTile, /*budget=*/3);
  EXPECT_NE(m.unmeasured.find("iteration budget"), std::string::npos)
      << m.unmeasured;
}

// A nest of static tiles, stored back: 4 x 5 iterations of a 4 x 16 f32
// tile (256 B) each way, in closed form (nothing depends on the indices but
// the offsets).
TEST_F(ProgramMeasureTest, StaticNestIsClosedForm) {
  ProgramMeasure m = measure(R"(
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %buf = memref.alloc() : memref<4x16xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c5 step %c1 {
      %src = memref.subview %a[%i, %j] [4, 16] [1, 1] : memref<100x64xf32, #hbm> to memref<4x16xf32, strided<[64, 1], offset: ?>, #hbm>
      %t = npu.dma_start %src, %buf : memref<4x16xf32, strided<[64, 1], offset: ?>, #hbm>, memref<4x16xf32, #vmem>
      npu.dma_wait %t
      %u = npu.dma_start %buf, %src : memref<4x16xf32, #vmem>, memref<4x16xf32, strided<[64, 1], offset: ?>, #hbm>
      npu.dma_wait %u
    }
  })",
                             /*budget=*/1);
  EXPECT_EQ(m.unmeasured, "");
  EXPECT_EQ(m.dmaReadBytes, 20 * 256);
  EXPECT_EQ(m.dmaWriteBytes, 20 * 256);
  EXPECT_EQ(m.dmas, 40);
}

// A software-pipelined loop hands the next tile's size on as a loop-carried
// value; a predicated DMA runs only when its predicate holds (here: all but
// the last of 3 iterations).
TEST_F(ProgramMeasureTest, CarriedSizesAndPredicates) {
  ProgramMeasure m = measure(R"(
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %buf = memref.alloc() : memref<8x64xf32, #vmem>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%rows = %c8) -> (index) {
    %src = memref.subview %a[0, 0] [%rows, 64] [1, 1] : memref<100x64xf32, #hbm> to memref<?x64xf32, strided<[64, 1]>, #hbm>
    %dst = memref.subview %buf[0, 0] [%rows, 64] [1, 1] : memref<8x64xf32, #vmem> to memref<?x64xf32, strided<[64, 1]>, #vmem>
    %more = arith.cmpi slt, %i, %c2 : index
    %t = npu.dma_start %src, %dst if %more : memref<?x64xf32, strided<[64, 1]>, #hbm>, memref<?x64xf32, strided<[64, 1]>, #vmem>
    npu.dma_wait %t
    %next = arith.subi %rows, %c1 : index
    scf.yield %next : index
  }
  %last = memref.subview %a[0, 0] [%r, 64] [1, 1] : memref<100x64xf32, #hbm> to memref<?x64xf32, strided<[64, 1]>, #hbm>
  %dst2 = memref.subview %buf[0, 0] [%r, 64] [1, 1] : memref<8x64xf32, #vmem> to memref<?x64xf32, strided<[64, 1]>, #vmem>
  %t2 = npu.dma_start %last, %dst2 : memref<?x64xf32, strided<[64, 1]>, #hbm>, memref<?x64xf32, strided<[64, 1]>, #vmem>
  npu.dma_wait %t2)");
  EXPECT_EQ(m.unmeasured, "");
  // Iterations 0 and 1 load 8 and 7 rows; the third is predicated off; the
  // loop yields 5 rows for the load after it.
  EXPECT_EQ(m.dmaReadBytes, (8 + 7 + 5) * 256);
  EXPECT_EQ(m.dmas, 3);
}

TEST_F(ProgramMeasureTest, RunTimeTripCountIsNotMeasured) {
  ProgramMeasure m = measure(R"(
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = memref.alloc() : memref<1x64xf32, #vmem>
  scf.for %i = %c0 to %n step %c1 {
    %src = memref.subview %a[%i, 0] [1, 64] [1, 1] : memref<100x64xf32, #hbm> to memref<1x64xf32, strided<[64, 1], offset: ?>, #hbm>
    %t = npu.dma_start %src, %buf : memref<1x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<1x64xf32, #vmem>
    npu.dma_wait %t
  })");
  EXPECT_NE(m.unmeasured.find("trip count is known only at run time"),
            std::string::npos)
      << m.unmeasured;
}
} // namespace
