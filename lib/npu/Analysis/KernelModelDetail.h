//===- KernelModelDetail.h - helpers of the kernel descriptions -*- C++ -*-===//
//
// Private to the kernel descriptions (KernelModel.cpp, KernelModelMoE.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_ANALYSIS_KERNELMODELDETAIL_H
#define NPU_ANALYSIS_KERNELMODELDETAIL_H

#include "npu/Analysis/KernelModel.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::npu::kernel_model_detail {

/// Values a group reads from outside, in first-use order.
llvm::SetVector<Value> getGroupInputs(ArrayRef<Operation *> ops);

/// Bytes of one element of the shaped value `v`.
int64_t elementBytes(Value v);

/// FLOPs of the group (bytes are left to the loop-nest model).
Work sumFlops(ArrayRef<Operation *> ops);

/// The expert FFN: gate and up projections, SwiGLU, down projection, of
/// inputs of type `xType` and weights like `w` (the gate's).
KernelDesc gatedMlp(int64_t m, int64_t f, int64_t d, Type xType, Value w,
                    int64_t xBytes, int64_t yBytes);

/// The ops of `ops` of type OpTy, in order.
template <typename OpTy>
SmallVector<OpTy> opsOfType(ArrayRef<Operation *> ops) {
  SmallVector<OpTy> found;
  for (Operation *op : ops)
    if (auto typed = dyn_cast<OpTy>(op))
      found.push_back(typed);
  return found;
}

/// A moe_ffn kernel: the routed experts, the dispatch and the combine
/// (KernelModelMoE.cpp).
FailureOr<KernelModel> describeMoeKernel(ArrayRef<Operation *> ops);

/// The per-row buffers a router's lowering holds (MoEPatterns.cpp), each
/// its own allocation: its f32 logits where they come in another type, its
/// f32 scores, the softmax's row max and sum, the selection scores where a
/// bias makes them differ; with groups, each group's two f32 maxima, f32
/// score and i64 rank and the selection scores masked to the kept groups;
/// and the top-k's k slots of (f32 value, i64 expert, f32 score), one pass
/// over the experts inserting into them, and the initial triple the slots
/// are filled from. Each buffer is counted whole: the VMEM plan reuses some
/// of them once dead, so this bounds it from above (a few bytes per row).
/// Appended to `buffers` (bytes per row each).
void appendRouterState(MoERouterOp router, SmallVectorImpl<int64_t> &buffers);

} // namespace mlir::npu::kernel_model_detail

#endif // NPU_ANALYSIS_KERNELMODELDETAIL_H
