//===- npu-fuzz-sweep.cpp - fuzz the sweep spec reader --------------------===//
//
// Input: the JSON text of an npu-sweep spec (docs/sweep.md). Every input
// must parse or fail with an llvm::Error naming the key; a spec that
// parses must list as many points as its lists multiply to, each a target
// spec that parses back with its varied fields as overrides. Points are not
// priced (the backends have fuzzers of their own).
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "npu/Sweep/Sweep.h"
#include "npu/Target/Target.h"

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef json(reinterpret_cast<const char *>(data), size);
  llvm::Expected<npu::sweep::SweepSpec> spec =
      npu::sweep::parseSweepSpec(json, "fuzz.json");
  if (!spec) {
    std::string msg = llvm::toString(spec.takeError());
    if (!StringRef(msg).starts_with("fuzz.json: "))
      npu_fuzz::fail("a spec error does not name the spec: " + msg);
    return 0;
  }
  uint64_t expected = 0;
  for (const npu::sweep::TargetGrid &t : spec->targets) {
    uint64_t grid = 1;
    for (const auto &[field, values] : t.vary)
      grid *= values.size();
    expected += grid;
  }
  expected *= spec->workloads.size();
  // Listing a million points is slow, not wrong: list the small specs.
  if (expected > 20000)
    return 0;
  std::vector<npu::sweep::SweepPoint> points = npu::sweep::expandPoints(*spec);
  if (points.size() != expected)
    npu_fuzz::fail("expandPoints listed " + llvm::Twine(points.size()) +
                   " points, the lists multiply to " + llvm::Twine(expected));
  for (const npu::sweep::SweepPoint &p : points) {
    llvm::Expected<npu::target::TargetSpec> t =
        npu::target::parseTargetSpec(p.target);
    if (!t || t->overrides.size() != p.values.size())
      npu_fuzz::fail("point " + llvm::Twine(p.index) + "'s target '" +
                     p.target + "' does not parse back");
  }
  return 0;
}
