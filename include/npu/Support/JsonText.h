//===- JsonText.h - IR text made safe for JSON -----------------*- C++ -*-===//
//
// Names, locations and attribute strings come from the input IR, which may
// hold any bytes (`"\FF"` is a valid MLIR string). llvm::json requires
// UTF-8 (an assertion, and invalid JSON without one): every such string goes
// through jsonText on its way into a report, invalid sequences replaced by
// U+FFFD.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SUPPORT_JSONTEXT_H
#define NPU_SUPPORT_JSONTEXT_H

#include "llvm/Support/JSON.h"

#include <string>

namespace mlir::npu {

inline std::string jsonText(llvm::StringRef s) {
  return llvm::json::isUTF8(s) ? s.str() : llvm::json::fixUTF8(s);
}

} // namespace mlir::npu

#endif // NPU_SUPPORT_JSONTEXT_H
