//===- NpuDialect.cpp - npu dialect registration --------------------------===//

#include "npu/Dialect/Npu/IR/NpuDialect.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
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

//===----------------------------------------------------------------------===//
// Attribute checks
//===----------------------------------------------------------------------===//

LogicalResult mlir::npu::OpTrait::verifyNoUnknownAttrs(Operation *op) {
  for (NamedAttribute attr : op->getDiscardableAttrs())
    if (!attr.getName().strref().contains('.'))
      return op->emitOpError("has unknown attribute '")
             << attr.getName().strref()
             << "' (attributes of other passes must be dialect-prefixed, "
                "e.g. 'npu.cost')";
  return success();
}

LogicalResult NpuDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  Attribute value = attr.getValue();
  auto expect = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitError() << "'" << name << "' must be " << what << ", got "
                           << value;
  };
  if (name == "npu.fusion")
    return expect(isa<FusionAttr>(value), "a #npu.fusion");
  if (name == "npu.tiling")
    return expect(isa<TilingAttr>(value) && isa<KernelOp>(op),
                  "a #npu.tiling on an npu.kernel");
  if (name == "npu.cost")
    return expect(isa<CostAttr>(value), "a #npu.cost");
  if (name == "npu.slot")
    return expect(isa<SlotAttr>(value), "a #npu.slot");
  if (name == "npu.grid") {
    auto grids = dyn_cast<ArrayAttr>(value);
    return expect(isa<KernelOp>(op) && grids && !grids.empty() &&
                      llvm::all_of(grids, llvm::IsaPred<GridAttr>),
                  "a non-empty array of #npu.grid on an npu.kernel");
  }
  if (name == "npu.launch") {
    auto launches = dyn_cast<ArrayAttr>(value);
    return expect(isa<KernelOp>(op) && launches && !launches.empty() &&
                      llvm::all_of(launches, llvm::IsaPred<LaunchAttr>),
                  "a non-empty array of #npu.launch on an npu.kernel");
  }
  if (name == "npu.target")
    return expect(isa<TargetAttr>(value), "a #npu.target");
  if (name == "npu.model")
    return expect(isa<DictionaryAttr>(value), "a dictionary");
  if (name == "npu.gpu_launch") {
    auto mode = dyn_cast<StringAttr>(value);
    return expect(
        isa<ModuleOp>(op) && mode &&
            (mode.getValue() == "graph" || mode.getValue() == "stream"),
        "\"graph\" or \"stream\" on a module");
  }
  if (name == "npu.gpu_epilogue") {
    auto mode = dyn_cast<StringAttr>(value);
    return expect(isa<ModuleOp>(op) && mode && mode.getValue() == "serial",
                  "\"serial\" on a module");
  }
  if (name == "npu.sram_offset" || name == "npu.sram_peak")
    return expect(isa<IntegerAttr>(value), "an integer");
  if (name == "npu.buffers") {
    auto n = dyn_cast<IntegerAttr>(value);
    return expect(n && n.getInt() >= 1 && op->getNumRegions() == 1,
                  "an integer >= 1 on a loop");
  }
  if (name == "npu.kernel_id") {
    auto n = dyn_cast<IntegerAttr>(value);
    return expect(n && n.getInt() >= 0, "an integer >= 0");
  }
  // A kernel that hands its intermediates from phase to phase on chip
  // (npu-tile-kernels on an absorbed MLA kernel's ops).
  if (name == "npu.kernel_holds")
    return expect(isa<UnitAttr>(value), "a unit attribute");
  // What a per-expert array of a MoE dispatch holds under the static plan
  // (npu-tile-kernels; npu-tpu-check-plan's measure reads it): one value
  // per element of the op's 1-D output (its one result, or once bufferized
  // its last operand).
  if (name == "npu.planned_values") {
    auto values = dyn_cast<DenseI64ArrayAttr>(value);
    Type out = op->getNumResults() == 1   ? op->getResult(0).getType()
               : op->getNumOperands() > 0 ? op->getOperands().back().getType()
                                          : Type();
    auto type = dyn_cast_or_null<ShapedType>(out);
    return expect(
        values && type && type.hasStaticShape() && type.getRank() == 1 &&
            type.getNumElements() == static_cast<int64_t>(values.size()),
        "one i64 per element of the op's 1-D output");
  }
  if (name == "npu.load_chunks" || name == "npu.store_bands") {
    auto n = dyn_cast<IntegerAttr>(value);
    return expect(n && n.getInt() >= 1, "an integer >= 1");
  }
  return op->emitError() << "unknown npu attribute '" << name << "'";
}

LogicalResult NpuDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  if (attr.getName().strref() == "npu.param") {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'npu.param' on argument #" << argIndex
                             << " must be a unit attribute";
    return success();
  }
  return op->emitError() << "unknown npu argument attribute '"
                         << attr.getName().strref() << "' on argument #"
                         << argIndex;
}
