//===- GpuParams.cpp - the GPU-like model's numbers from a target ---------===//
//
// What the GPU-like cost model reads from #npu.target and from how the
// module's kernels run (GpuRunMode); docs/cost-model-gpu.md, "Parameters".
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/GpuCostModel.h"

#include "llvm/ADT/bit.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::gpumodel;

FailureOr<GpuParams> GpuParams::get(TargetAttr target, GpuRunMode mode) {
  GpuTargetAttr g = target.getGpu();
  if (!g)
    return failure();
  GpuParams p;
  p.target = target;
  p.sms = g.getSmCount();
  SMResources &sm = p.sm;
  sm.warpSize = g.getWarpSizeThreads();
  sm.maxThreadsPerSM = g.getMaxThreadsPerSm();
  sm.maxThreadsPerBlock = g.getMaxThreadsPerBlock();
  sm.maxBlocksPerSM = g.getMaxBlocksPerSm();
  sm.registersPerSM = g.getRegisterBytesPerSm() / 4;
  sm.maxRegistersPerBlock = sm.registersPerSM;
  sm.maxRegistersPerThread = g.getMaxRegistersPerThread();
  sm.sharedMemPerSM = g.getSharedMemoryBytesPerSm();
  sm.sharedMemPerBlock = g.getSharedMemoryBytesPerBlock();
  // The allocation rules (cuda_occupancy.h for NVIDIA chips; the target
  // file's sources).
  sm.registerAllocUnit = g.getRegisterAllocationUnit();
  sm.registerSubPartitions = g.getRegisterSubPartitions();
  sm.sharedMemAllocUnit = g.getSharedMemoryAllocationUnitBytes();
  sm.reservedSharedMemPerBlock = g.getSharedMemoryReservedPerBlockBytes();
  if (llvm::Error err = sm.verify()) {
    llvm::consumeError(std::move(err));
    return failure();
  }
  p.l2Bytes = g.getL2Bytes();
  p.l2LineBytes = g.getL2LineBytes();
  p.l2Ways = g.getL2AssociativityWays();
  p.maxClusterBlocks = g.getMaxClusterBlocks();
  p.dramLatencyNs = g.getDramLatencyNs().convertToDouble();
  p.l2BytesPerNs = g.getL2BandwidthBytesPerS().convertToDouble() * 1e-9;
  p.hbmBytesPerNs =
      target.getSustainedHbmBandwidthBytesPerS().convertToDouble() * 1e-9;
  p.launchNs = (mode.graphLaunches ? g.getGraphLaunchOverheadNs()
                                   : g.getLaunchOverheadNs())
                   .convertToDouble();
  p.serialEpilogue = mode.serialEpilogue;
  // One clock for the whole SM: its CUDA cores and special-function units
  // run at the sustained clock the tensor cores were calibrated at.
  double sms = double(p.sms);
  double clockShare = getSustainedClockShare(target);
  p.vectorPerNsPerSM =
      target.getVectorFlopPerS().convertToDouble() * clockShare / sms * 1e-9;
  p.transcPerNsPerSM = target.getTranscendentalPerS().convertToDouble() *
                       clockShare / sms * 1e-9;
  p.matrixRates = MatrixRates::get(target, p.sms);
  p.sharedBytesPerNsPerSM = double(g.getSharedMemoryBytesPerClock()) *
                            target.getMatrixClockHz().convertToDouble() * 1e-9;
  return p;
}

void GpuParams::appendKey(SmallVectorImpl<uint64_t> &key) const {
  // A field added to GpuParams or SMResources must be added here too.
  static_assert(sizeof(void *) != 8 || sizeof(GpuParams) == 248,
                "GpuParams changed: update appendKey");
  key.append(
      {uint64_t(sms), sm.warpSize, sm.maxThreadsPerSM, sm.maxThreadsPerBlock,
       sm.maxBlocksPerSM, sm.registersPerSM, sm.maxRegistersPerBlock,
       sm.maxRegistersPerThread, sm.sharedMemPerSM, sm.sharedMemPerBlock,
       sm.registerAllocUnit, sm.registerSubPartitions, sm.sharedMemAllocUnit,
       sm.reservedSharedMemPerBlock, uint64_t(l2Bytes), uint64_t(l2LineBytes),
       uint64_t(l2Ways), uint64_t(maxClusterBlocks), uint64_t(serialEpilogue)});
  for (double v : {l2BytesPerNs, hbmBytesPerNs, launchNs, dramLatencyNs,
                   vectorPerNsPerSM, transcPerNsPerSM, sharedBytesPerNsPerSM})
    key.push_back(llvm::bit_cast<uint64_t>(v));
  // The matrix rates are the target's (MatrixRates::get).
  key.push_back(uint64_t(uintptr_t(target.getAsOpaquePointer())));
}
