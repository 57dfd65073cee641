//===- CompareOutput.cpp - npu-compare's files: pictures and traces -------===//

#include "npu/Analysis/CostReport.h"
#include "npu/Compare/CompareSvg.h"
#include "npu/Support/OutputFiles.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::npu;

static std::string join(StringRef dir, StringRef file) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, file);
  return path.str().str();
}

LogicalResult mlir::npu::writeComparisonSvgs(const Comparison &cmp,
                                             StringRef dir, Location loc) {
  if (failed(createOutputDirectory(dir, loc)))
    return failure();
  std::pair<const char *, std::string> files[] = {
      {"roofline-tpu.svg", renderRooflineSvg(cmp, CompareSide::Tpu)},
      {"roofline-gpu.svg", renderRooflineSvg(cmp, CompareSide::Gpu)},
      {"timeline.svg", renderTimelineSvg(cmp)},
      {"delta.svg", renderDeltaSvg(cmp)}};
  for (auto &file : files) {
    const std::string &text = file.second;
    std::string path = join(dir, file.first);
    if (failed(writeOutputFile(
            path, [&](llvm::raw_ostream &os) { os << text; }, loc)))
      return failure();
  }
  return success();
}

LogicalResult mlir::npu::writeComparisonTraces(const Comparison &cmp,
                                               StringRef dir, Location loc) {
  if (failed(createOutputDirectory(dir, loc)))
    return failure();
  if (failed(writeCostTrace(*cmp.module[0], join(dir, "tpu-trace.json"))) ||
      failed(writeCostTrace(*cmp.module[1], join(dir, "gpu-trace.json"))))
    return failure();
  return success();
}
