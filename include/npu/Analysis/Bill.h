//===- Bill.h - the accounting of a model on a chip --------------*- C++
//-*-===//
//
// What one step of a model costs on one chip, by hand-checkable formulas
// (docs/accounting.md): per op, per layer and for the whole model, the
// parameter, activation and KV-cache bytes, the FLOPs by kind (attention
// core apart from the linear layers), the arithmetic intensity, the roofline
// lower bound on time with its bound, and whether the weights and KV cache
// fit in the chip's HBM.
//
// The bill is an analysis (a class), not a pass: `npu-report-bill` prints
// it, and npu-compare can reuse it.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_ANALYSIS_BILL_H
#define NPU_ANALYSIS_BILL_H

#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <vector>

namespace mlir::npu {

/// The roofline of a piece of work on a target.
/// For a sum of ops, each part is summed separately and `boundSeconds` is
/// the sum of the per-op maxima (ops do not overlap).
struct Roofline {
  double computeSeconds = 0; ///< matrix/peak(dtype) + vector/rate + transc/rate
  double memorySeconds = 0;  ///< (bytes read + written) / HBM bandwidth
  double boundSeconds = 0;   ///< max(compute, memory), summed over ops
  double seconds() const { return boundSeconds; }
  bool computeBound() const { return computeSeconds >= memorySeconds; }
};

/// One line of the bill: an op, a layer or a total.
struct BillLine {
  std::string name;         ///< op name, "layer 3 (@kind)", or "total"
  std::string loc;          ///< source location of an op
  Operation *op = nullptr;  ///< the op of an op line
  Work work;                ///< FLOPs by kind and bytes (see NpuWork.h)
  Count attentionCoreFlops; ///< matrix FLOPs of npu.attention (QK^T + PV)
  Count activationBytes;    ///< bytes of the results (views excluded)
  /// Sum of per-op roofline times (each op alone: no overlap between ops).
  Roofline roofline;
  /// Arithmetic intensity: total FLOPs / (bytes read + written).
  double intensity() const;
};

/// The bill of one function (per op), for each function with npu ops.
struct FunctionBill {
  std::string name;
  int64_t calls = 1; ///< times @model calls it (1 for @model itself)
  std::vector<BillLine> ops;
  BillLine total;
  Count peakLiveActivationBytes;
};

struct ModelBill {
  TargetAttr target;
  std::string targetName;
  DictionaryAttr model; ///< the module's `npu.model` description, if any
  int64_t tokens = 0;   ///< tokens processed by this step (batch * S)
  std::vector<FunctionBill> functions;
  std::vector<BillLine> layers; ///< @model's ops in order, calls as layers
  BillLine total;               ///< whole step, calls expanded
  Count parameterBytes;         ///< distinct parameters (npu.weight ops)
  Count parameterCount;         ///< elements of the distinct parameters
  /// Parameters one token uses: parameterCount less, in every
  /// npu.moe_experts, the (E - k) / E of the routed experts' weights (and
  /// biases) that a token routed to k of E experts does not visit.
  Count activeParameterCount;
  Count kvCacheBytes;         ///< all KV caches written by the step
  Count kvCacheBytesPerToken; ///< over all layers, per cached token
  Count peakLiveActivationBytes;
  /// parameters + KV cache + peak live activations.
  Count hbmNeededBytes() const {
    return parameterBytes + kvCacheBytes + peakLiveActivationBytes;
  }
  int64_t minChips() const;

  llvm::json::Value toJSON() const;
  void printText(llvm::raw_ostream &os) const;
};

/// Computes the bill of `module` (entry function `@model` if present, else
/// every function on its own) on `target`. Emits an error at the offending op
/// and fails if a count overflows 64 bits.
FailureOr<ModelBill> computeBill(ModuleOp module, TargetAttr target);

/// Roofline of `work` whose matrix FLOPs run at the peak for `matrixType`.
Roofline getRoofline(const Work &work, Type matrixType, TargetAttr target);

} // namespace mlir::npu

#endif // NPU_ANALYSIS_BILL_H
