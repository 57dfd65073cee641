//===- JsonFileReader.h - errors that name the file and the field -*- C++
//-*-===//
//
// Private to MLIRNpuTarget: what the target, interconnect and system readers
// share. Every message reads "<file>: <what is wrong, naming the field>".
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_TARGET_JSONFILEREADER_H
#define NPU_LIB_TARGET_JSONFILEREADER_H

#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace mlir::npu::target {

class JsonFileReader {
protected:
  explicit JsonFileReader(llvm::StringRef path) : path(path.str()) {}

  llvm::Error fail(const llvm::Twine &message) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": " + message);
  }
  static std::string render(const llvm::json::Value &v) {
    return llvm::formatv("{0}", v).str();
  }
  /// The string field `key` of `object`, or an error naming it.
  llvm::Error readString(const llvm::json::Object &object, llvm::StringRef key,
                         std::string &out) const {
    const llvm::json::Value *v = object.get(key);
    if (!v)
      return fail("field '" + key + "' is missing");
    std::optional<llvm::StringRef> s = v->getAsString();
    if (!s)
      return fail("field '" + key + "' must be a string, got " + render(*v));
    out = s->str();
    return llvm::Error::success();
  }

  std::string path;
};

/// The file `nameOrPath` names: itself if it contains a '/' or ends in
/// ".json", else `<dir>/<nameOrPath>.json`, which must exist; otherwise
/// "unknown <what> '<name>': no file <path> (known <what>s: ...)".
llvm::Expected<std::string> resolveJsonFile(llvm::StringRef nameOrPath,
                                            llvm::StringRef dir,
                                            llvm::StringRef what);

} // namespace mlir::npu::target

#endif // NPU_LIB_TARGET_JSONFILEREADER_H
