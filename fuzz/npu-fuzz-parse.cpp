//===- npu-fuzz-parse.cpp - fuzz the parser, verifiers and work -----------===//
//
// Input: MLIR text, with the npu dialect and the upstream dialects npu-opt
// registers. For every input: parse; if it parses, verify; if it verifies,
// compute the work of every op (getCheckedWork: an overflow must be an
// error, never a wrap-around or a crash), then print the module, parse the
// print and check that the reparsed module verifies and prints the same text
// (the custom assembly formats of npu ops and attributes round-trip).
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "npu/Dialect/Npu/IR/NpuOps.h"

using namespace mlir;

static std::string print(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  npu_fuzz::FuzzContext context;
  OwningOpRef<ModuleOp> module =
      npu_fuzz::parseVerifiedModule(context.get(), data, size);
  if (!module)
    return 0;
  module->walk([](Operation *op) { (void)npu::getCheckedWork(op); });

  std::string printed = print(*module);
  OwningOpRef<ModuleOp> reparsed = npu_fuzz::parseVerifiedModule(
      context.get(), reinterpret_cast<const uint8_t *>(printed.data()),
      printed.size(), npu_fuzz::Text::Printed);
  if (!reparsed)
    npu_fuzz::fail("a verified module printed as text that does not parse "
                   "and verify:\n" +
                   printed);
  if (std::string again = print(*reparsed); again != printed)
    npu_fuzz::fail("printing is not stable across a round trip:\n" + printed +
                   "\n----- reprinted as -----\n" + again);
  return 0;
}
