//===- NpuDialect.h - npu dialect --------------------------------*- C++
//-*-===//

#ifndef NPU_DIALECT_NPU_IR_NPUDIALECT_H
#define NPU_DIALECT_NPU_IR_NPUDIALECT_H

#include "mlir/IR/Dialect.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <mutex>

#include "npu/Dialect/Npu/IR/NpuOpsDialect.h.inc"

#endif // NPU_DIALECT_NPU_IR_NPUDIALECT_H
