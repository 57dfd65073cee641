//===- NpuDataOps.cpp - parameters, gathers and shape ops -----------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"

using namespace mlir;
using namespace mlir::npu;

//===----------------------------------------------------------------------===//
// WeightOp
//===----------------------------------------------------------------------===//

// A parameter is read by its consumers, which count it; producing it is free.
Work WeightOp::computeWork() { return Work(); }
