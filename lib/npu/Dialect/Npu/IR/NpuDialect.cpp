//===- NpuDialect.cpp - npu dialect registration --------------------------===//

#include "npu/Dialect/Npu/IR/NpuDialect.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::npu;

#include "npu/Dialect/Npu/IR/NpuInterfaces.cpp.inc"
#include "npu/Dialect/Npu/IR/NpuOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "npu/Dialect/Npu/IR/NpuOpsTypes.cpp.inc"

#define GET_OP_CLASSES
#include "npu/Dialect/Npu/IR/NpuOps.cpp.inc"

void NpuDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "npu/Dialect/Npu/IR/NpuOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "npu/Dialect/Npu/IR/NpuOpsTypes.cpp.inc"
      >();
  registerAttributes();
}
