//===- CompareOutput.cpp - npu-compare's files: pictures and traces -------===//

#include "npu/Analysis/CostReport.h"
#include "npu/Compare/CompareSvg.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::npu;

static LogicalResult makeDir(StringRef dir, Location loc) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return emitError(loc) << "cannot create directory '" << dir
                          << "': " << ec.message();
  return success();
}

static std::string join(StringRef dir, StringRef file) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, file);
  return path.str().str();
}

LogicalResult mlir::npu::writeComparisonSvgs(const Comparison &cmp,
                                             StringRef dir, Location loc) {
  if (failed(makeDir(dir, loc)))
    return failure();
  std::pair<const char *, std::string> files[] = {
      {"roofline-tpu.svg", renderRooflineSvg(cmp, CompareSide::Tpu)},
      {"roofline-gpu.svg", renderRooflineSvg(cmp, CompareSide::Gpu)},
      {"timeline.svg", renderTimelineSvg(cmp)},
      {"delta.svg", renderDeltaSvg(cmp)}};
  for (auto &file : files) {
    const std::string &text = file.second;
    std::string path = join(dir, file.first);
    if (llvm::Error err = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
          os << text;
          return llvm::Error::success();
        }))
      return emitError(loc) << "cannot write '" << path
                            << "': " << llvm::toString(std::move(err));
  }
  return success();
}

LogicalResult mlir::npu::writeComparisonTraces(const Comparison &cmp,
                                               StringRef dir, Location loc) {
  if (failed(makeDir(dir, loc)))
    return failure();
  if (failed(writeCostTrace(*cmp.module[0], join(dir, "tpu-trace.json"))) ||
      failed(writeCostTrace(*cmp.module[1], join(dir, "gpu-trace.json"))))
    return failure();
  return success();
}
