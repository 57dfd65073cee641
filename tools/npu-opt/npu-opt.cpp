//===- npu-opt.cpp - mlir-opt for npu -------------------------------------===//

#include "npu/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::npu::registerAllDialects(registry);
  mlir::npu::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "npu optimizer driver\n", registry));
}
