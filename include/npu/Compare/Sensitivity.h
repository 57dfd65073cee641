//===- Sensitivity.h - which assumptions the verdict depends on -*- C++ -*-===//
//
// npu-compare --sensitivity: every number of the two target files whose
// source is an assumption ("[A] ..." in `sources`: not published, not
// measured) is halved and doubled, one at a time, and the workload compiled
// again for both targets; the TPU-like / GPU-like time ratio of each variant
// shows how far the verdict rests on that assumption, and whether it flips
// (the other target becomes the faster one). docs/compare.md.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_COMPARE_SENSITIVITY_H
#define NPU_COMPARE_SENSITIVITY_H

#include "npu/Compare/Compare.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

namespace mlir::npu {

/// Time per run of the roots on each side, in total and per kernel kind
/// (kind -> {TPU-like ns, GPU-like ns}).
struct SensitivityTimes {
  double ns[2] = {0, 0};
  std::vector<std::pair<std::string, std::pair<double, double>>> perKind;
  /// TPU-like time / GPU-like time (> 1: the GPU-like target is faster).
  double ratio() const { return ns[1] > 0 ? ns[0] / ns[1] : 0; }
};

/// One assumed field scaled by `factor` (a sustained figure: its shortfall
/// below the quoted one).
struct SensitivityVariant {
  double factor = 1;
  double value = 0; ///< the field's value in the variant
  /// Why the variant is not a valid target (the loader's message); empty if
  /// it is, and then `times` holds its result.
  std::string invalid;
  SensitivityTimes times;
};

/// One assumed field of one target, halved and doubled.
struct SensitivityRow {
  CompareSide side;
  std::string target; ///< the target's name
  std::string field;  ///< its path in the file ("tpu.dma_setup_latency_ns")
  std::string source; ///< the file's "[A] ..." reasoning
  double value = 0;   ///< the value in the file
  SensitivityVariant low, high; ///< x0.5 and x2
  /// |ratio(x2) - ratio(x0.5)| over the valid variants (0 with fewer than
  /// two; one valid variant: its distance from `base`).
  double swing(double base) const;
  /// Whether a valid variant puts the ratio on the other side of 1 than
  /// `base`.
  bool flips(double base) const;
};

struct Sensitivity {
  std::string target[2];
  SensitivityTimes base;
  /// Largest swing first.
  std::vector<SensitivityRow> rows;
};

/// Varies each assumed field of the two targets (names or paths, as given
/// to compareModule, with its `fusion` and `gpuLaunch`) and compiles
/// `module` again for each variant; `base` is compareModule's result for
/// the unchanged targets. Errors (a file that
/// cannot be written, a pipeline failure on a valid variant) are emitted at
/// `loc`.
FailureOr<Sensitivity> runSensitivity(ModuleOp module, const Comparison &base,
                                      StringRef tpuTarget, StringRef gpuTarget,
                                      StringRef fusion, StringRef gpuLaunch,
                                      Location loc);

/// The times of a comparison, per run of its roots.
SensitivityTimes getSensitivityTimes(const Comparison &cmp);

void printSensitivityText(const Sensitivity &s, llvm::raw_ostream &os);
llvm::json::Value sensitivityToJSON(const Sensitivity &s);
/// A tornado chart: per field, the bar from its x0.5 ratio to its x2 ratio
/// around the base ratio, log scale, verdict line at 1.
std::string renderSensitivitySvg(const Sensitivity &s);

} // namespace mlir::npu

#endif // NPU_COMPARE_SENSITIVITY_H
