//===- npu-opt.cpp - mlir-opt for npu -------------------------------------===//
//
// mlir-opt's driver, with one difference: every file the run writes (-o, a
// pass's trace) is staged beside its destination and renamed onto it only
// when the run succeeds (npu/Support/OutputFiles.h). Upstream's driver opens
// -o first, so a failing run with -o equal to its input deleted the input.
//
//===----------------------------------------------------------------------===//

#include "npu/InitAll.h"
#include "npu/Support/OutputFiles.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"

#include <cstdio>

using namespace mlir;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  DialectRegistry registry;
  npu::registerAllDialects(registry);
  npu::registerAllPasses();
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "npu optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // Listings write no file: upstream's driver prints them.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return asMainReturnCode(
        MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  return npu::runFileTool(
      inputFilename, outputFilename,
      [&](std::unique_ptr<llvm::MemoryBuffer> input, raw_ostream &os) {
        return MlirOptMain(os, std::move(input), registry, config);
      });
}
