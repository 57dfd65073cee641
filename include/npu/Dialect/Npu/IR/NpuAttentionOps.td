//===- NpuAttentionOps.td - Attention ops of the npu dialect -------------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUATTENTIONOPS_TD
#define NPU_DIALECT_NPU_IR_NPUATTENTIONOPS_TD

include "npu/Dialect/Npu/IR/NpuBase.td"
include "npu/Dialect/Npu/IR/NpuAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

#endif // NPU_DIALECT_NPU_IR_NPUATTENTIONOPS_TD
