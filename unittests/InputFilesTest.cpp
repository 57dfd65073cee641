//===- InputFilesTest.cpp - JSON limits and non-finite numbers ------------===//

#include "npu/Support/InputFiles.h"
#include "npu/Support/JsonStream.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <limits>

using namespace mlir;
using namespace mlir::npu;

namespace {

std::string errorOf(StringRef text) {
  llvm::Expected<llvm::json::Value> v = parseJsonInput(text);
  if (v)
    return "";
  return llvm::toString(v.takeError());
}

TEST(InputFiles, DuplicateKeysOnlyWithinOneObject) {
  EXPECT_EQ(errorOf(R"({"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]})"),
            "");
  EXPECT_NE(errorOf("{\"a\": 1,\n \"a\": 2}")
                .find("duplicate key \"a\" at line 2, column 2"),
            std::string::npos);
  // Keys compare decoded: "\u0061" is "a".
  EXPECT_NE(errorOf(R"({"a": 1, "\u0061": 2})").find("duplicate key"),
            std::string::npos);
  // A string value equal to a key, and a quote escaped inside a key, are
  // not keys of their own.
  EXPECT_EQ(errorOf(R"({"a": "a", "b\"a": 1})"), "");
}

TEST(InputFiles, NestingLimit) {
  auto nest = [](unsigned n) {
    return std::string(n, '[') + std::string(n, ']');
  };
  EXPECT_EQ(errorOf(nest(kMaxJsonDepth)), "");
  EXPECT_NE(errorOf(nest(kMaxJsonDepth + 1)).find("nested deeper than 64"),
            std::string::npos);
  // Brackets inside strings do not nest.
  EXPECT_EQ(errorOf("[\"" + nest(1000) + "\"]"), "");
}

TEST(InputFiles, NonFiniteNumbersAreFoundAndNotPrinted) {
  double inf = std::numeric_limits<double>::infinity();
  llvm::json::Value v(llvm::json::Object{
      {"ok", 1.5},
      {"functions", llvm::json::Array{llvm::json::Object{{"time_ns", 2.0}},
                                      llvm::json::Object{{"time_ns", inf}}}}});
  EXPECT_EQ(findNonFiniteNumber(v), "functions[1].time_ns");
  EXPECT_EQ(findNonFiniteNumber(llvm::json::Value(std::nan(""))), "");
  EXPECT_EQ(findNonFiniteNumber(llvm::json::Value(int64_t(-3))), std::nullopt);

  MLIRContext ctx;
  std::string diag, out;
  ctx.getDiagEngine().registerHandler([&](Diagnostic &d) {
    diag = d.str();
    return success();
  });
  llvm::raw_string_ostream os(out);
  EXPECT_TRUE(failed(printJson(os, v, 2, UnknownLoc::get(&ctx), "report")));
  EXPECT_EQ(out, "");
  EXPECT_NE(diag.find("report: the JSON report would hold a non-finite "
                      "number at 'functions[1].time_ns'"),
            std::string::npos);
  EXPECT_TRUE(succeeded(printJson(os, llvm::json::Value(1.5), 0,
                                  UnknownLoc::get(&ctx), "report")));
  EXPECT_EQ(out, "1.5\n");
}

// JsonStream writes what printJson prints for the same document, and
// names a non-finite number by the path findNonFiniteNumber gives.
TEST(InputFiles, JsonStreamMatchesTheTreeAndLocatesNonFiniteNumbers) {
  double inf = std::numeric_limits<double>::infinity();
  auto write = [](JsonStream &js, double last) {
    js.objectBegin();
    js.attribute("ok", 1.5);
    js.attributeBegin("functions");
    js.arrayBegin();
    js.value(llvm::json::Object{{"time_ns", 2.0}});
    js.objectBegin();
    js.attributeBegin("rows");
    js.arrayBegin();
    js.value(1);
    js.value(llvm::json::Array{3, last});
    js.arrayEnd();
    js.attributeEnd();
    js.objectEnd();
    js.arrayEnd();
    js.attributeEnd();
    js.objectEnd();
  };
  MLIRContext ctx;
  std::string diag;
  ctx.getDiagEngine().registerHandler([&](Diagnostic &d) {
    diag = d.str();
    return success();
  });
  std::string streamed, printed;
  llvm::raw_string_ostream so(streamed), po(printed);
  JsonStream js(so, 0);
  write(js, 4.0);
  EXPECT_TRUE(succeeded(js.finish(UnknownLoc::get(&ctx), "report")));
  llvm::json::Value tree(llvm::json::Object{
      {"ok", 1.5},
      {"functions",
       llvm::json::Array{
           llvm::json::Object{{"time_ns", 2.0}},
           llvm::json::Object{
               {"rows", llvm::json::Array{1, llvm::json::Array{3, 4.0}}}}}}});
  EXPECT_TRUE(succeeded(printJson(po, tree, 0, UnknownLoc::get(&ctx), "r")));
  llvm::Expected<llvm::json::Value> back = llvm::json::parse(streamed);
  ASSERT_TRUE(bool(back));
  EXPECT_EQ(*back, tree);
  EXPECT_EQ(streamed.back(), '\n');

  std::string bad;
  llvm::raw_string_ostream bo(bad);
  JsonStream js2(bo, 2);
  write(js2, inf);
  EXPECT_TRUE(failed(js2.finish(UnknownLoc::get(&ctx), "report")));
  EXPECT_NE(diag.find("non-finite number at 'functions[1].rows[1][1]'"),
            std::string::npos)
      << diag;
}

} // namespace
