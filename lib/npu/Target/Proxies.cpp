//===- Proxies.cpp - energy and area proxies of a chip --------------------===//

#include "npu/Target/Proxies.h"
#include "JsonFileReader.h"
#include "npu/Support/InputFiles.h"
#include "npu/Target/Target.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::target;

namespace {
class ProxiesReader : JsonFileReader {
public:
  explicit ProxiesReader(StringRef path) : JsonFileReader(path) {}

  llvm::Expected<Proxies> run(StringRef text) {
    llvm::Expected<llvm::json::Value> json = parseJsonInput(text);
    if (!json)
      return fail("not JSON: " + llvm::toString(json.takeError()));
    const llvm::json::Object *root = json->getAsObject();
    if (!root)
      return fail("must be a JSON object");
    Proxies p;
    const std::pair<const char *, double *> fields[] = {
        {"matrix_pj_per_flop_bf16", &p.matrixPjPerFlopBf16},
        {"matrix_pj_per_flop_fp8", &p.matrixPjPerFlopFp8},
        {"matrix_pj_per_flop_fp32", &p.matrixPjPerFlopFp32},
        {"sram_pj_per_byte", &p.sramPjPerByte},
        {"hbm_pj_per_byte", &p.hbmPjPerByte},
        {"static_w_per_mm2", &p.staticWPerMm2},
        {"mac_um2_bf16", &p.macUm2Bf16},
        {"sram_mm2_per_mib", &p.sramMm2PerMiB},
        {"sm_mm2", &p.smMm2},
        {"hbm_phy_mm2", &p.hbmPhyMm2},
        {"hbm_stack_bytes_per_s", &p.hbmStackBytesPerS}};
    auto known = [&](StringRef key) {
      return llvm::any_of(fields, [&](auto &f) { return key == f.first; });
    };
    for (const auto &kv : *root)
      if (!known(kv.first) &&
          !llvm::is_contained({"name", "description", "sources"},
                              kv.first.str()))
        return fail("unknown field '" + kv.first.str() + "'");
    const llvm::json::Object *sources = root->getObject("sources");
    if (!sources)
      return fail("field 'sources' is missing (an object: field -> source)");
    for (const auto &kv : *sources)
      if (!known(kv.first))
        return fail("sources: '" + kv.first.str() + "' is not a field");
    for (auto [key, out] : fields) {
      const llvm::json::Value *v = root->get(key);
      if (!v)
        return fail("field '" + Twine(key) + "' is missing");
      std::optional<double> d = v->getAsNumber();
      if (!d || !std::isfinite(*d) || *d <= 0)
        return fail("field '" + Twine(key) +
                    "' must be a positive number, got " + render(*v));
      std::optional<StringRef> src = sources->getString(key);
      if (!src || src->empty())
        return fail("field '" + Twine(key) + "' has no source");
      *out = *d;
    }
    return p;
  }
};
} // namespace

llvm::Expected<Proxies> target::loadProxies(StringRef path) {
  SmallString<256> file(path);
  if (file.empty()) {
    file = getDefaultTargetDir();
    llvm::sys::path::append(file, "proxies", "energy-area.json");
  }
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buf =
      readInputFile(file, kMaxJsonBytes);
  if (!buf)
    return buf.takeError();
  return ProxiesReader(file).run((*buf)->getBuffer());
}

double target::getAreaMm2(const Proxies &p, TargetAttr target) {
  double mib = double(1 << 20);
  double stacks =
      std::ceil(target.getHbmBandwidthBytesPerS().convertToDouble() /
                p.hbmStackBytesPerS);
  double area = stacks * p.hbmPhyMm2;
  if (TpuTargetAttr tpu = target.getTpu()) {
    double width = double(tpu.getMatrixUnitDimElements());
    area +=
        double(tpu.getMatrixUnitCount()) * width * width * p.macUm2Bf16 * 1e-6 +
        double(tpu.getVmemBytes()) / mib * p.sramMm2PerMiB;
  } else if (GpuTargetAttr gpu = target.getGpu()) {
    area += double(gpu.getSmCount()) * p.smMm2 +
            double(gpu.getOnChipSramBytes()) / mib * p.sramMm2PerMiB;
  }
  return area;
}

double target::getStepEnergyJ(const Proxies &p, double areaMm2, double timeNs,
                              double paddedFlops, double hbmBytes,
                              StringRef matrixDtype) {
  double perFlop = matrixDtype == "fp8"   ? p.matrixPjPerFlopFp8
                   : matrixDtype == "f32" ? p.matrixPjPerFlopFp32
                                          : p.matrixPjPerFlopBf16;
  double pj = paddedFlops * perFlop + hbmBytes * p.hbmPjPerByte +
              2 * hbmBytes * p.sramPjPerByte;
  return pj * 1e-12 + p.staticWPerMm2 * areaMm2 * timeNs * 1e-9;
}
