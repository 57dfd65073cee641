//===- NpuOps.h - ops, attributes and interfaces of npu ----------*- C++
//-*-===//

#ifndef NPU_DIALECT_NPU_IR_NPUOPS_H
#define NPU_DIALECT_NPU_IR_NPUOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "npu/Dialect/Npu/IR/NpuDialect.h"
#include "npu/Dialect/Npu/IR/NpuWork.h"

#include "npu/Dialect/Npu/IR/NpuEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "npu/Dialect/Npu/IR/NpuAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "npu/Dialect/Npu/IR/NpuOpsTypes.h.inc"

#include "npu/Dialect/Npu/IR/NpuInterfaces.h.inc"

namespace mlir::npu {
/// Largest dimension the dialect accepts (exclusive): 2^40.
constexpr int64_t kMaxDimSize = int64_t(1) << 40;

/// An attention kernel: the flash form or the absorbed MLA decode.
inline bool isAttentionKind(KernelKind kind) {
  return kind == KernelKind::Attention || kind == KernelKind::MlaAbsorbed;
}

/// Why group-limited routing of `topK` of `experts` in `nGroup` groups, the
/// best `topkGroup` of them kept, is invalid (the n_group experts must
/// divide, topk_group be within n_group, top_k within the kept groups'
/// experts), or empty: npu.moe_router's verifier and npu-system --routed.
std::string checkRoutingGroups(int64_t experts, int64_t topK, int64_t nGroup,
                               int64_t topkGroup);

/// Emits an error at `op` and fails if its work overflows 64 bits.
FailureOr<Work> getCheckedWork(Operation *op);

namespace OpTrait {
/// Every operand and result tensor has dimensions in [1, 2^40) and a byte
/// size that fits in int64.
template <typename ConcreteType>
class ShapesInRange
    : public mlir::OpTrait::TraitBase<ConcreteType, ShapesInRange> {
public:
  static LogicalResult verifyTrait(Operation *op);
};
LogicalResult verifyShapesInRange(Operation *op);
template <typename ConcreteType>
LogicalResult ShapesInRange<ConcreteType>::verifyTrait(Operation *op) {
  return verifyShapesInRange(op);
}

/// Every discardable attribute of the op is dialect-prefixed (`npu.cost`,
/// not `cost`).
template <typename ConcreteType>
class NoUnknownAttrs
    : public mlir::OpTrait::TraitBase<ConcreteType, NoUnknownAttrs> {
public:
  static LogicalResult verifyTrait(Operation *op);
};
LogicalResult verifyNoUnknownAttrs(Operation *op);
template <typename ConcreteType>
LogicalResult NoUnknownAttrs<ConcreteType>::verifyTrait(Operation *op) {
  return verifyNoUnknownAttrs(op);
}
} // namespace OpTrait
} // namespace mlir::npu

#define GET_OP_CLASSES
namespace mlir {
class PatternRewriter; // npu.dma_start's canonicalize method
} // namespace mlir

#include "npu/Dialect/Npu/IR/NpuOps.h.inc"

#endif // NPU_DIALECT_NPU_IR_NPUOPS_H
