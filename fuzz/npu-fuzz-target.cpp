//===- npu-fuzz-target.cpp - fuzz the target-file loader ------------------===//
//
// Input: the JSON text of a target file (npu-target/*.json). The loader
// requires the file to be named after the target, so the harness names it
// "<name>.json" when the input has a string "name" (else "fuzz.json").
// Or '@' and a target variant, `<name>:<field>=<value>,...` (a name of the
// tree's npu-target/, its overrides fuzzed).
// Every input must load or fail with an llvm::Error; a target that loads
// must render (toJSON, the attribute's assembly) and its printed attribute
// must parse back to the same attribute: the printer writes every real
// exactly (formatReal), and the verifiers accept what the loader accepted.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "npu/Target/Target.h"

#include "mlir/AsmParser/AsmParser.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef json(reinterpret_cast<const char *>(data), size);
  npu_fuzz::FuzzContext context;
  llvm::Expected<npu::target::TargetFile> file =
      llvm::createStringError(llvm::inconvertibleErrorCode(), "no input");
  if (json.consume_front("@")) {
    // A target variant: a name in npu-target/ with overrides (no path: the
    // harness reads only the tree's own files).
    StringRef spec = json.take_until([](char c) { return c == '\n'; });
    if (spec.contains('/') || spec.contains('\\') || spec.size() > 4096)
      return 0;
    file = npu::target::loadTarget(context.get(), spec);
  } else {
    file = npu::target::parseTarget(context.get(), json,
                                    npu_fuzz::jsonFileName(json));
  }
  if (!file) {
    (void)llvm::toString(file.takeError());
    return 0;
  }
  (void)llvm::formatv("{0:2}", npu::target::toJSON(*file)).str();

  std::string printed;
  llvm::raw_string_ostream os(printed);
  Attribute(file->attr).print(os);
  Attribute reparsed = parseAttribute(printed, context.get());
  if (reparsed != file->attr)
    npu_fuzz::fail("the target attribute does not round-trip through its "
                   "assembly:\n" +
                   printed + "\n" + context.getDiagnostics());
  return 0;
}
