//===- NpuOps.td - umbrella of the npu dialect ----------------------------===//
//
// One umbrella per dialect (STYLE.md): the dialect, its attributes, its
// interfaces and every op family, one .td per family.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUOPS_TD
#define NPU_DIALECT_NPU_IR_NPUOPS_TD

include "npu/Dialect/Npu/IR/NpuBase.td"
include "npu/Dialect/Npu/IR/NpuAttrs.td"
include "npu/Dialect/Npu/IR/NpuTargetAttrs.td"
include "npu/Dialect/Npu/IR/NpuBackendAttrs.td"
include "npu/Dialect/Npu/IR/NpuInterfaces.td"

include "npu/Dialect/Npu/IR/NpuMatmulOps.td"
include "npu/Dialect/Npu/IR/NpuAttentionOps.td"
include "npu/Dialect/Npu/IR/NpuNormOps.td"
include "npu/Dialect/Npu/IR/NpuElementwiseOps.td"
include "npu/Dialect/Npu/IR/NpuDataOps.td"
include "npu/Dialect/Npu/IR/NpuMoEOps.td"
include "npu/Dialect/Npu/IR/NpuQuantOps.td"
include "npu/Dialect/Npu/IR/NpuKVCacheOps.td"
include "npu/Dialect/Npu/IR/NpuKernelOps.td"
include "npu/Dialect/Npu/IR/NpuMemoryOps.td"

#endif // NPU_DIALECT_NPU_IR_NPUOPS_TD
