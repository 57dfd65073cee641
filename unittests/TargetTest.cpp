//===- TargetTest.cpp - loading targets, derived quantities, round trip ---===//

#include "npu/Target/Target.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::target;

namespace {

class TargetTest : public ::testing::Test {
protected:
  TargetTest() { context.loadDialect<NpuDialect>(); }

  TargetAttr load(StringRef name) {
    llvm::Expected<TargetFile> file = loadTarget(&context, name);
    if (!file) {
      ADD_FAILURE() << llvm::toString(file.takeError());
      return {};
    }
    return file->attr;
  }

  /// The message of a failed parse of `json` named `path`.
  std::string errorOf(StringRef json, StringRef path) {
    llvm::Expected<TargetFile> file = parseTarget(&context, json, path);
    if (file)
      return "<no error>";
    return llvm::toString(file.takeError());
  }

  MLIRContext context;
};

TEST_F(TargetTest, LoadsH100ByName) {
  TargetAttr h100 = load("h100");
  ASSERT_TRUE(h100);
  EXPECT_EQ(h100.getName(), "h100");
  EXPECT_EQ(h100.getKind(), TargetKind::Gpu);
  EXPECT_EQ(h100.getGpu().getSmCount(), 132);
  EXPECT_EQ(h100.getHbmBytes(), 80000000000);
  EXPECT_DOUBLE_EQ(*h100.getPeakFlopPerS(TargetDtype::BF16), 989.4e12);
  EXPECT_DOUBLE_EQ(*h100.getPeakFlopPerS(TargetDtype::FP8), 1979e12);
  EXPECT_DOUBLE_EQ(*h100.getPeakFlopPerS(TargetDtype::FP32), 67e12);
}

TEST_F(TargetTest, DerivedQuantitiesByHand) {
  TargetAttr h100 = load("h100");
  ASSERT_TRUE(h100);
  // Ridge point = peak / HBM bandwidth: 989.4e12 FLOP/s / 3.35e12 B/s
  // = 295.34 FLOP/byte (HARDWARE.md: "H100 295").
  EXPECT_DOUBLE_EQ(*h100.getRidgePointFlopPerByte(TargetDtype::BF16),
                   989.4e12 / 3.35e12);
  EXPECT_NEAR(*h100.getRidgePointFlopPerByte(TargetDtype::BF16), 295.343, 1e-3);
  // On-chip SRAM = 132 SMs x 256 KiB L1/shared + 50 MiB L2.
  EXPECT_EQ(h100.getOnChipSramBytes(), 132 * 262144 + 52428800);
  // Per SM: 989.4e12 / 132.
  EXPECT_DOUBLE_EQ(*h100.getPeakFlopPerSPerUnit(TargetDtype::BF16),
                   989.4e12 / 132);
  // L2 sets: 50 MiB / (128 B x 16 ways).
  EXPECT_EQ(h100.getGpu().getL2SetCount(), 52428800 / (128 * 16));

  TargetAttr v5p = load("tpu-v5p");
  ASSERT_TRUE(v5p);
  EXPECT_EQ(v5p.getKind(), TargetKind::Tpu);
  // 459e12 / 2.765e12 = 166.0 FLOP/byte (HARDWARE.md: "v5p 166").
  EXPECT_DOUBLE_EQ(*v5p.getRidgePointFlopPerByte(TargetDtype::BF16),
                   459e12 / 2.765e12);
  // VMEM = 2 TensorCores x 64 MiB.
  EXPECT_EQ(v5p.getOnChipSramBytes(), 2 * 64 * 1024 * 1024);
  EXPECT_EQ(v5p.getTpu().getMatrixUnitCount(), 2 * 4);
  EXPECT_DOUBLE_EQ(*v5p.getPeakFlopPerSPerUnit(TargetDtype::BF16), 459e12 / 2);
}

TEST_F(TargetTest, AbsentDtypeIsAbsentNotZero) {
  TargetAttr a100 = load("a100");
  ASSERT_TRUE(a100);
  EXPECT_FALSE(a100.getPeakFlopPerS(TargetDtype::FP8).has_value());
  EXPECT_FALSE(a100.getRidgePointFlopPerByte(TargetDtype::FP8).has_value());
  Builder b(&context);
  EXPECT_FALSE(a100.getPeakFlopPerS(b.getType<Float8E4M3FNType>()));
  EXPECT_DOUBLE_EQ(*a100.getPeakFlopPerS(b.getF16Type()), 312e12);
  EXPECT_DOUBLE_EQ(*a100.getPeakFlopPerS(b.getBF16Type()), 312e12);
  EXPECT_DOUBLE_EQ(*a100.getPeakFlopPerS(b.getF32Type()), 19.5e12);
  EXPECT_FALSE(a100.getPeakFlopPerS(b.getI32Type()));
}

TEST_F(TargetTest, MocksHaveRidge40) {
  for (StringRef name : {"mock-tpu", "mock-gpu"}) {
    TargetAttr mock = load(name);
    ASSERT_TRUE(mock);
    // 4.096e12 FLOP/s / 1.024e11 B/s = 40 FLOP/byte exactly.
    EXPECT_EQ(*mock.getRidgePointFlopPerByte(TargetDtype::BF16), 40.0);
    // 512 KiB on chip: 1 x 512 KiB VMEM, or 4 x 64 KiB + 256 KiB L2.
    EXPECT_EQ(mock.getOnChipSramBytes(), 512 * 1024);
  }
}

TEST_F(TargetTest, SameSiliconPairDiffersOnlyInWhoDecides) {
  TargetAttr tpu = load("same-silicon-tpu");
  TargetAttr gpu = load("same-silicon-gpu");
  ASSERT_TRUE(tpu && gpu);
  EXPECT_EQ(tpu.getKind(), TargetKind::Tpu);
  EXPECT_EQ(gpu.getKind(), TargetKind::Gpu);
  for (TargetDtype d : {TargetDtype::FP32, TargetDtype::BF16, TargetDtype::FP8})
    EXPECT_EQ(tpu.getPeakFlopPerS(d), gpu.getPeakFlopPerS(d));
  EXPECT_TRUE(tpu.getClockHz().bitwiseIsEqual(gpu.getClockHz()));
  EXPECT_TRUE(tpu.getHbmBandwidthBytesPerS().bitwiseIsEqual(
      gpu.getHbmBandwidthBytesPerS()));
  EXPECT_EQ(tpu.getHbmBytes(), gpu.getHbmBytes());
  EXPECT_EQ(tpu.getOnChipSramBytes(), gpu.getOnChipSramBytes());
  EXPECT_TRUE(tpu.getVectorFlopPerS().bitwiseIsEqual(gpu.getVectorFlopPerS()));
  EXPECT_TRUE(
      tpu.getTranscendentalPerS().bitwiseIsEqual(gpu.getTranscendentalPerS()));
  // The MXUs do per clock what the GPU's SMs do: 66 x 64^2 x 2 FLOP =
  // 132 SMs x 4096 FLOP. (x 1.83e9 Hz = 989.43e12, which the vendor rounds to
  // the 989.4e12 both files hold.)
  TpuTargetAttr t = tpu.getTpu();
  EXPECT_EQ(t.getMatrixUnitCount() * t.getMatrixUnitDimElements() *
                t.getMatrixUnitDimElements() * 2,
            gpu.getGpu().getSmCount() * 4096);
  EXPECT_NEAR(double(t.getMatrixUnitCount()) * 64 * 64 * 2 * 1.83e9 /
                  *tpu.getPeakFlopPerS(TargetDtype::BF16),
              1.0, 1e-4);
}

TEST_F(TargetTest, EveryTargetRoundTripsThroughTheAsmPrinter) {
  llvm::Expected<std::vector<std::string>> names = listTargets();
  ASSERT_TRUE(bool(names)) << llvm::toString(names.takeError());
  EXPECT_EQ(names->size(), 14u);
  for (const std::string &name : *names) {
    TargetAttr attr = load(name);
    ASSERT_TRUE(attr) << name;
    std::string text;
    llvm::raw_string_ostream os(text);
    os << Attribute(attr);
    Attribute parsed = parseAttribute(text, &context);
    EXPECT_EQ(parsed, Attribute(attr)) << name << ": " << text;
  }
}

// getFieldValue maps each field's name to the attribute's getter by hand: a
// field added to the table and the attribute but not there reads as garbage
// in a release build (it did: gpu.shared_memory_bytes_per_clock).
TEST_F(TargetTest, EveryFieldReadsBackAsTheFileHasIt) {
  llvm::Expected<std::vector<std::string>> names = listTargets();
  ASSERT_TRUE(bool(names)) << llvm::toString(names.takeError());
  for (const std::string &name : *names) {
    llvm::Expected<TargetFile> file = loadTarget(&context, name);
    ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
    llvm::Expected<llvm::json::Value> json = llvm::json::parse(file->text);
    ASSERT_TRUE(bool(json)) << llvm::toString(json.takeError());
    for (const TargetField &field : getTargetFields()) {
      llvm::json::Value *inFile =
          lookupField(*json->getAsObject(), field.path());
      std::optional<llvm::json::Value> read = getFieldValue(file->attr, field);
      ASSERT_EQ(bool(inFile), bool(read)) << name << ": " << field.path();
      if (inFile)
        EXPECT_EQ(inFile->getAsNumber(), read->getAsNumber())
            << name << ": " << field.path();
    }
  }
}

TEST_F(TargetTest, DirectoryOverrides) {
  std::string source = getDefaultTargetDir();
  // An explicit directory.
  llvm::Expected<TargetFile> file = loadTarget(&context, "h200", source);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  EXPECT_EQ(file->attr.getName(), "h200");
  // NPU_TARGET_DIR replaces the default.
  ::setenv("NPU_TARGET_DIR", "/nonexistent-npu-targets", 1);
  EXPECT_EQ(getDefaultTargetDir(), "/nonexistent-npu-targets");
  llvm::Expected<TargetFile> missing = loadTarget(&context, "h200");
  ::unsetenv("NPU_TARGET_DIR");
  ASSERT_FALSE(bool(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "unknown target 'h200': no file "
            "/nonexistent-npu-targets/h200.json (known targets: )");
  EXPECT_EQ(getDefaultTargetDir(), source);
}

TEST_F(TargetTest, ErrorsNameTheFileAndTheField) {
  EXPECT_EQ(errorOf("{", "x.json"),
            "x.json: invalid JSON: [1:1, byte=1]: Expected object key");
  EXPECT_EQ(errorOf(R"({"name": "x", "kind": "gpu", "colour": 1})", "x.json"),
            "x.json: unknown field 'colour'");
  EXPECT_EQ(errorOf(R"({"name": "x", "kind": "gpu"})", "dir/x.json"),
            "dir/x.json: field 'description' is missing");
  EXPECT_EQ(errorOf(R"({"name": "x", "kind": "tpu", "description": "",
                        "tpu": {}})",
                    "x.json"),
            "x.json: field 'clock_hz' is missing");
}

} // namespace

// An override value is a decimal with an optional unit suffix and nothing
// else: a byte that is not part of a number is refused, not carried into the
// variant's sources (found by npu-fuzz-target: a non-UTF-8 byte after a long
// exponent parsed, then broke the sources' JSON).
TEST(TargetOverrideValue, OnlyNumbersAndSuffixes) {
  using mlir::npu::target::parseOverrideValue;
  EXPECT_EQ(parseOverrideValue("4T"), 4e12);
  EXPECT_EQ(parseOverrideValue("32MiB"), 32.0 * (1 << 20));
  EXPECT_EQ(parseOverrideValue("1.5e-3"), 1.5e-3);
  EXPECT_FALSE(parseOverrideValue("1\xb2"));
  EXPECT_FALSE(parseOverrideValue("1\xb2T"));
  EXPECT_FALSE(parseOverrideValue("324.9e-3242222222222\xb2T"));
  EXPECT_FALSE(parseOverrideValue(" 1"));
  EXPECT_FALSE(parseOverrideValue("0x10"));
  EXPECT_FALSE(parseOverrideValue("inf"));
}
