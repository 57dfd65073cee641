//===- NpuAttentionOps.cpp - Attention ops of the npu dialect ------------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"

using namespace mlir;
using namespace mlir::npu;
