//===- npu-fuzz-system.cpp - fuzz the system loader and collectives -------===//
//
// Input: the JSON text of a system file (npu-target/systems/*.json), named
// "<name>.json" after its "name" like the target harness. Its chip is looked
// up among the tree's targets. Every input must load or fail with an
// llvm::Error; a system that loads must render (toJSON), and every
// collective over all its axes and over each axis must price to a finite,
// positive time no shorter than its bandwidth term, not decreasing when the
// size doubles.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "npu/Parallel/Collectives.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::parallel;

static void check(const target::System &system, CollectiveKind kind,
                  ArrayRef<std::string> axes) {
  double last = 0;
  for (double bytes : {1.0, 4096.0, 8192.0, 1048576.0, 1073741824.0}) {
    llvm::Expected<CollectiveCost> cost =
        priceCollective(system, kind, axes, bytes);
    if (!cost) {
      (void)llvm::toString(cost.takeError());
      return;
    }
    if (!std::isfinite(cost->seconds) || cost->seconds <= 0 ||
        cost->seconds < cost->bandwidthSeconds || cost->seconds < last ||
        !std::isfinite(cost->busBytesPerS()))
      npu_fuzz::fail(llvm::formatv("{0} of {1} bytes on system '{2}' priced "
                                   "{3} s (bandwidth {4} s, previous size {5} "
                                   "s)",
                                   stringifyCollectiveKind(kind), bytes,
                                   system.name, cost->seconds,
                                   cost->bandwidthSeconds, last)
                         .str());
    last = cost->seconds;
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef json(reinterpret_cast<const char *>(data), size);
  std::string path = npu_fuzz::jsonFileName(json);
  npu_fuzz::FuzzContext context;
  llvm::Expected<target::System> system =
      target::parseSystem(context.get(), json, path);
  if (!system) {
    (void)llvm::toString(system.takeError());
    return 0;
  }
  (void)llvm::formatv("{0:2}", target::toJSON(*system)).str();
  for (CollectiveKind kind :
       {CollectiveKind::AllReduce, CollectiveKind::AllGather,
        CollectiveKind::ReduceScatter, CollectiveKind::AllToAll}) {
    check(*system, kind, {});
    for (const target::SystemAxis &axis : system->axes)
      check(*system, kind, {axis.name});
  }
  for (const target::SystemAxis &axis : system->axes)
    check(*system, CollectiveKind::SendRecv, {axis.name});
  return 0;
}
