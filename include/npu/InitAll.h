//===- InitAll.h - register npu and the upstream pieces it uses --*- C++
//-*-===//

#ifndef NPU_INITALL_H
#define NPU_INITALL_H

namespace mlir {
class DialectRegistry;
namespace npu {
/// The npu dialect and the upstream dialects (and their interface models)
/// that npu IR is lowered to.
void registerAllDialects(DialectRegistry &registry);
/// npu passes and pipelines, plus the upstream passes npu pipelines use.
void registerAllPasses();
} // namespace npu
} // namespace mlir

#endif // NPU_INITALL_H
