//===- PipelinedLoop.cpp - Double-buffered tile loops in closed form ------===//
//
// Derivation of the closed form (B >= 2, P = max(a, c, b) with a = dmaIn,
// c = compute, b = dmaOut): tile 0 loads in [0, a) and computes in
// [a, a + c). If compute is the bottleneck, compute(i) runs in
// [a + i c, a + (i + 1) c): its load in(i) started when compute(i - 2) ended,
// at a + (i - 1) c, and ends by a + i c since a <= c; the store out(i - 2)
// that frees its output buffer ends by a + (i - 1) c + b <= a + i c. So the
// makespan is a + N c + b. If a load is the bottleneck the loads run back to
// back (makespan N a + c + b); if a store is, the stores do (a + c + N b).
// All three are a + c + b + (N - 1) P. With B == 1 every buffer is reused by
// the next tile: when compute(i) ends at T, in(i + 1) and out(i) run in
// [T, T + a) and [T, T + b) and compute(i + 1) starts at T + max(a, b).
//
//===----------------------------------------------------------------------===//

#include "npu/Scheduling/PipelinedLoop.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir::npu::sched;

static llvm::Error validate(const TiledLoop &loop) {
  if (loop.numTiles < 0)
    return llvm::createStringError(
        llvm::formatv("tiled loop: {0} tiles", loop.numTiles).str());
  if (loop.numBuffers < 1)
    return llvm::createStringError(
        llvm::formatv("tiled loop: {0} buffers per direction; at least 1 is "
                      "required",
                      loop.numBuffers)
            .str());
  if (loop.dmaIn < 0 || loop.compute < 0 || loop.dmaOut < 0)
    return llvm::createStringError(
        llvm::formatv("tiled loop: negative stage latency (in {0}, compute "
                      "{1}, out {2})",
                      loop.dmaIn, loop.compute, loop.dmaOut)
            .str());
  return llvm::Error::success();
}

llvm::Expected<TiledLoopProblem>
mlir::npu::sched::buildTiledLoop(const TiledLoop &loop) {
  if (llvm::Error err = validate(loop))
    return err;
  TiledLoopProblem result;
  Problem &p = result.problem;
  ResourceId in = p.addResource("dma_in", 1);
  ResourceId compute = p.addResource("compute", 1);
  ResourceId out = p.addResource("dma_out", 1);
  for (int64_t i = 0; i < loop.numTiles; ++i) {
    std::string tile = std::to_string(i);
    result.dmaIn.push_back(p.addOperation("in" + tile, in, loop.dmaIn));
    result.compute.push_back(
        p.addOperation("compute" + tile, compute, loop.compute));
    result.dmaOut.push_back(p.addOperation("out" + tile, out, loop.dmaOut));
    p.addDependence(result.dmaIn[i], result.compute[i]);
    p.addDependence(result.compute[i], result.dmaOut[i]);
    if (i >= loop.numBuffers) {
      p.addDependence(result.compute[i - loop.numBuffers], result.dmaIn[i]);
      p.addDependence(result.dmaOut[i - loop.numBuffers], result.compute[i]);
    }
  }
  return result;
}

llvm::Expected<Time> mlir::npu::sched::tiledLoopPeriod(const TiledLoop &loop) {
  if (llvm::Error err = validate(loop))
    return err;
  if (loop.numBuffers >= 2)
    return std::max({loop.dmaIn, loop.compute, loop.dmaOut});
  Time period;
  if (llvm::AddOverflow(loop.compute, std::max(loop.dmaIn, loop.dmaOut),
                        period))
    return llvm::createStringError("tiled loop: period overflows");
  return period;
}

llvm::Expected<Time>
mlir::npu::sched::tiledLoopMakespan(const TiledLoop &loop) {
  llvm::Expected<Time> period = tiledLoopPeriod(loop);
  if (!period)
    return period.takeError();
  if (loop.numTiles == 0)
    return 0;
  Time oneTile, steady, total;
  if (llvm::AddOverflow(loop.dmaIn, loop.compute, oneTile) ||
      llvm::AddOverflow(oneTile, loop.dmaOut, oneTile) ||
      llvm::MulOverflow(loop.numTiles - 1, *period, steady) ||
      llvm::AddOverflow(oneTile, steady, total))
    return llvm::createStringError("tiled loop: makespan overflows");
  return total;
}
