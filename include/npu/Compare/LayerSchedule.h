//===- LayerSchedule.h - a split's collectives scheduled per kernel -*- C++
//-*-===//
//
// npu-compare --systems places each collective of a split beside the kernel
// it belongs to and schedules one layer at a time, so the exposed time of
// every collective, and of the step, comes out of a schedule rather than a
// per-step subtraction (docs/parallelism.md, "Per kernel"):
//
//   - a layer is the kernels of one function @model calls, in program order,
//     with the modelled times its backend priced;
//   - a collective sits after a kernel (its producer) and before the next
//     (its consumer): a tensor-parallel all-reduce after the attention's
//     output projection and after the FFN; an expert dispatch before the
//     MoE kernel and the combine after it;
//   - resources: the chip's compute (one stream of kernels) and one link per
//     collective group; a blocking collective runs on the compute stream
//     (the GPU-like side's tensor-parallel all-reduces, between kernels);
//   - with two micro-batches (the step splits in two), each runs the
//     kernels as given (the caller's, compiled for half the step: a
//     weight-bound kernel takes about as long as for the whole) and they
//     alternate by segment, one's collective beside the other's compute;
//   - with one micro-batch and `decompose` (the TPU-like side: XLA's
//     collective matmul, a fused expert-parallel MoE kernel), a collective
//     runs beside the kernel it is decomposed with (`anchor`), and only what
//     exceeds that kernel is exposed; without it the consumer waits for the
//     whole collective.
//
// The layer is scheduled several times in a row and the last run is kept:
// the steady state, where one layer's trailing collective overlaps the next
// layer's first kernels.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_COMPARE_LAYERSCHEDULE_H
#define NPU_COMPARE_LAYERSCHEDULE_H

#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mlir::npu {

/// One kernel of a layer: its kind and modelled time.
struct LayerKernel {
  KernelKind kind = KernelKind::Stream;
  double ns = 0;
};

/// One function @model calls: its kernels (those of the functions it calls
/// inlined, in order) and how many times a step runs it.
struct LayerProfile {
  std::string function;
  int64_t runs = 0;
  std::vector<LayerKernel> kernels;
};

/// The compiled model's layers: every function @model calls, once each, and
/// the order of @model's calls (indices into `layers`).
struct ModelLayers {
  std::vector<LayerProfile> layers;
  std::vector<int> calls;
};

/// Reads the layers of a compiled module (costs on its kernels); emits an
/// error prefixed by `tool` and fails without an @model.
FailureOr<ModelLayers> readModelLayers(ModuleOp module, StringRef tool);

/// One collective of one layer run.
struct LayerCollective {
  std::string what;  ///< "TP all-reduce", "EP dispatch", ...
  std::string track; ///< its link's trace track, e.g. "EP group (x,y)"
  double ns = 0;     ///< one occurrence, one micro-batch's
  /// Runs after kernel `after` and before kernel `after` + 1.
  int after = 0;
  /// The kernel it is decomposed with (collective matmul, fused MoE).
  int anchor = 0;
  bool blocking = false; ///< runs on the compute stream
  /// Runs beside its anchor kernel on both sides, whatever the micro-batches
  /// (ring attention passes the next K/V block while the kernel works on
  /// this one): the kernel waits only for what exceeds it.
  bool beside = false;
};

/// One slice of the schedule's timeline.
struct ScheduleEvent {
  std::string track, name;
  double startNs = 0, durNs = 0;
};

struct LayerSchedule {
  double layerNs = 0;   ///< one layer in the steady state
  double computeNs = 0; ///< its kernels' time, every micro-batch
  /// Per collective (as given): the part on the critical path, and the
  /// part beside compute.
  std::vector<double> exposedNs, overlappedNs;
  /// The last scheduled run, from 0.
  std::vector<ScheduleEvent> events;
};

/// The part of a collective's `sent` time that ran beside compute, given
/// its `exposed` part: 0 where the difference is a rounding's residue.
inline double hiddenPart(double sent, double exposed) {
  double hidden = sent - exposed;
  return hidden > 1e-9 * sent ? hidden : 0.0;
}

/// Schedules `kernels` with `collectives` for `microBatches` (1 or 2)
/// micro-batches; `decompose` as above (one micro-batch only).
LayerSchedule scheduleLayer(const std::vector<LayerKernel> &kernels,
                            const std::vector<LayerCollective> &collectives,
                            int microBatches, bool decompose);

} // namespace mlir::npu

#endif // NPU_COMPARE_LAYERSCHEDULE_H
